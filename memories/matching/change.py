"""Does a new statement change an older one it is close to in meaning? (English, Italian)

The grammar (``memories.matching.compare``) is right where it parses both statements,
but people announce changes in more ways than any grammar lists ("I got a new job at
KPMG" after "I work at Deloitte", "Luca turned 8"). So a second, general test runs
on what the grammar leaves side by side:

1. **Close in meaning.** The two are about the same thing: their e5 vectors are close
   (``closeness``), or, without vectors, they share a content word.
2. **The new one says something happened.** A change, an end, a correction, a negation
   (``CHANGE_CUES`` in ``liamemory.language``), or the same sentence with another
   number or name in it.
3. **And not about someone else or one more item**: "my wife got a new job", "I also
   have a motorbike" leave the older fact alone.

A wrong supersession costs more than a missed one (the memory stops being recalled),
so each test is required, and the caller supersedes only the closest such memory.
Constants chosen on ``bench/contradictions`` dev pairs (pairs.jsonl and dev/*.jsonl).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

import numpy as np

from liamemory import language
from memories.matching import Verdict, compare, trigram_similarity, values_in
from memories.matching.change_score import FEATURES, FLOOR, ScoreModel, pair_features, pair_vector, shipped

# e5 cosine of two memories (passage vectors) at or above which they are "close in
# meaning". Closeness alone does not decide, it only admits a candidate, and without a word
# in common it names only the person's nearest memory (``choose``). On the six outside
# writers' dev sets, 0.80 against 0.85 found 0.03–0.11 more changes a writer with no more
# wrong pairs and 0–2 more in the crowd check (bench/README.md).
CLOSE = 0.80


@cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + language.alternation(name) + r")(?![\w])")


_FUNCTION_WORDS = language.union("FUNCTION_WORDS")
# A denial before a value ("not 42", "non il 42").
_DENIAL = rf"\b(?:{language.alternation('DENIALS')})\s+(?:(?:{language.alternation('DENIED_ARTICLES')})\s+)?"
# First person, or the user named in the third ("the user", "l'utente").
# "l'ho data via" is first person too (an elided object before the verb).
_SELF = re.compile(r"(?<!\w)(?:" + language.word_alternatives("FIRST_PERSON", "THE_USER") + r")(?![\w])")


def _words(text: str) -> list[str]:
    return re.findall(r"[\w@.+-]*\w", text.lower())


def _content(text: str) -> set[str]:
    """Content words, folded to a short stem so "moved"/"moving", "sertraline"'s forms meet."""
    cues = _pattern("CHANGE_CUES")
    stripped = cues.sub(" ", text.lower())
    return {w[:5] for w in _words(stripped) if w not in _FUNCTION_WORDS and len(w) > 2 and not w.isdigit()}


_CONTRASTED = re.compile(language.alternation("CONTRASTED"))
# A denial up to two words before a cue ("haven't started", "nn ho ricominciato").
_DENIED_CUE = re.compile(rf"(?<![\w'])(?:{language.alternation('CUE_DENIALS')})(?:\s+\S+){{0,2}}\s+$")


# A span of time right before a present cue ("for years now", "da anni ormai").
_SPAN_SO_FAR = re.compile(rf"(?<![\w'])(?:{language.alternation('SPAN_SO_FAR')})\s+$")


def cue_in(new: str, old: str) -> str | None:
    """The change cue ``new`` carries that ``old`` does not, if any; a denied cue says nothing happened,
    and a present cue after a span of time ("been here a while now") says how long the fact has held."""
    lowered = new.lower()
    old_cues = {m.group(0) for m in _pattern("CHANGE_CUES").finditer(old.lower())}
    for m in _pattern("CHANGE_CUES").finditer(lowered):
        before = lowered[: m.start()]
        denied = _DENIED_CUE.search(before) and not _pattern("DENIED_CHANGE_CUES").fullmatch(m.group(0))
        lasting = _pattern("PRESENT_CUES").fullmatch(m.group(0).strip(" ,")) and _SPAN_SO_FAR.search(before)
        if m.group(0) not in old_cues and not denied and not lasting and not _denies_another(m.group(0), old):
            return m.group(0).strip(" ,")
    return None


def _denies_another(cue: str, old: str) -> bool:
    """ "not amazing but okay", "not gonna, but ugh": a "not X but" that denies nothing the older
    statement said corrects nothing of it."""
    m = re.fullmatch(r"\s*(?:not|non)\s+(\S+?)[,]?\s+(?:but|ma)\s*", cue)
    if m is None:
        return False
    word = m.group(1).lower()
    return word[:5] not in _content(old) and word not in values_in(old)


def _still_holds(old: str, new: str) -> bool:
    """The new statement says something still holds or has not happened yet ("still Tuesday though",
    "half five like usual", "sto valutando", "ci ha proposto di …, ne stiamo parlando"): what it says
    changed is another thing, or nothing yet (a proposal, a plan not signed)."""
    return any(
        bool(_pattern(name).search(new.lower())) and not _pattern(name).search(old.lower())
        for name in ("STILL_HOLDS", "AS_USUAL", "NOT_DECIDED")
    )


# "from next week": an occasion that starts a change, not one occasion of a routine.
_FROM_WHEN = re.compile(rf"(?<![\w'])(?:{language.alternation('FROM_WHEN')})\s+$")


def _one_occasion(old: str, new: str) -> bool:
    """The older fact recurs and the new statement speaks of one occasion ("Thursday yoga is
    cancelled next week", "sospendo la cardioaspirina tre giorni"): an exception, not a change."""
    return bool(_pattern("ROUTINE").search(old.lower())) and _one_time(old, new)


_ASKING = re.compile(
    rf"^\W*(?:(?:{language.word_alternatives('QUESTION_WORDS', 'QUESTION_CONTRACTIONS')})\b"
    rf"|(?:{language.word_alternatives('QUESTION_VERBS')})\s+(?:{language.word_alternatives('QUESTION_SUBJECTS')})\b)"
)


def _stated(new: str) -> str:
    """The new statement without its sentences that ask ("should we move dishoom to 7?", "what is
    my NI number actually used for?"): a question says nothing happened, the rest still may."""
    sentences = re.split(r"(?<=[.!?])\s+", new.strip())
    return " ".join(s for s in sentences if not (s.rstrip().endswith("?") and _ASKING.match(s.lower())))


def _one_time(old: str, new: str) -> bool:
    """The new statement speaks of one occasion the older one does not ("this week only", "tomorrow"):
    a number for that occasion is an exception to the fact, not a new value of it."""
    if _pattern("ONE_OCCASION").search(old.lower()):
        return False
    lowered = new.lower()
    return any(not _FROM_WHEN.search(lowered[: m.start()]) for m in _pattern("ONE_OCCASION").finditer(lowered))


def _history(old: str, new: str) -> bool:
    """A state placed well before now ("back in 2020 my cholesterol was 280"): what was, not news."""
    lowered = new.lower()
    return bool(
        _pattern("FAR_PAST").search(lowered)
        and _pattern("PAST_STATE").search(lowered)
        and not _pattern("FAR_PAST").search(old.lower())
    )


def _resumes(old: str, new: str) -> bool:
    """The older state comes back after an exception ("back to my usual tomorrow", "torno al solito
    orario", "then I come back to bristol"): what the new statement tells is a detour, not a change.
    Not with a number of its own ("cutting back to 7 till 2"): that is a new value."""
    lowered, old_words, old_numbers = new.lower(), _content(old), _numbers(old)
    for m in _pattern("RESUMES").finditer(lowered):
        after = [w.strip(",.;:!?") for w in lowered[m.end() :].split()[:3]]
        if _numbers(" ".join(after)) - old_numbers:
            continue
        if any(_pattern("USUAL").match(" ".join(after[i:])) or w[:5] in old_words for i, w in enumerate(after)):
            return True
    return False


def _comes_back(old: str, new: str) -> bool:
    """ "Sara is in maternity … Sara comes back in spring", "Tony was closed for holidays … I can't wait that
    Tony comes back": the older statement's own name is said to come back, so its absence is a while, not
    an end."""
    names = {w.lower()[:5] for w in re.findall(r"\b[A-Z][\w'-]+", old)}
    lowered = new.lower()
    for m in _pattern("COMES_BACK").finditer(lowered):
        before = _words(lowered[: m.start()])[-2:]
        if any(w[:5] in names for w in before):
            return True
    return False


def _closed_for_a_while(new: str) -> bool:
    """ "Dr Conti was closed so we went to the emergency vet", "the pool is closed for maintenance": a place
    said to be closed (a state at a time) is shut for a while; an end is said as an event ("closed down",
    "has closed", "chiude per sempre")."""
    lowered = new.lower()
    closed = list(_pattern("CLOSED_STATE").finditer(lowered))
    if not closed:
        return False
    # Another cue beside it ("is closed now", "closed, so we moved to Elm") says what changed.
    return all(any(c.start() <= m.start() < c.end() for c in closed) for m in _pattern("CHANGE_CUES").finditer(lowered))


def _near_miss(new: str) -> bool:
    """A change that nearly happened did not ("we nearly separated last year")."""
    return bool(_pattern("NEAR_MISS").search(new.lower()))


def _keeps_the_old(old: str, new: str) -> bool:
    """ "Changed apartments, still in Austin": the new statement keeps the older fact and brings
    no number or name of its own, so what changed is something beside it."""
    kept = _pattern("KEPT")
    if not kept.search(new.lower()) or kept.search(old.lower()):
        return False
    lowered = old.lower()
    return all(value in lowered for value in values_in(new))


# Words that open a noun phrase: "the", "my", "their" (``_another_of_its_kind``).
_DETERMINERS = (
    language.union("DEFINITE_ARTICLES") | language.union("POSSESSIVES") | language.union("OTHERS_POSSESSIVES")
)


def _is_content_word(word: str) -> bool:
    return (
        word not in _FUNCTION_WORDS
        and len(word) > 2
        and not any(c.isdigit() for c in word)
        and not _pattern("CHANGE_CUES").fullmatch(word)
    )


def _modifiers(text: str, stem: str) -> set[str]:
    """The words right before a common noun of ``stem`` in a noun phrase ("the book club": "book")."""
    raw = re.findall(r"[\w'-]+", text)
    tokens = [t.lower() for t in raw]
    found = set()
    for i in range(2, len(tokens)):
        word, before = tokens[i], tokens[i - 1]
        if word[:5] != stem or not raw[i].islower() or not _is_content_word(before) or before.endswith(("'s", "s'")):
            continue
        if tokens[i - 2] in _DETERMINERS or (
            i > 2 and tokens[i - 3] in _DETERMINERS and _is_content_word(tokens[i - 2])
        ):
            found.add(before[:5])
    return found


def _class_letter(text: str, stem: str) -> set[str]:
    """The one letter right after a common noun of ``stem`` that names its class ("la patente B",
    "la patente a per la moto"): a letter, then no word of the noun phrase ("patente a 18 anni"
    gives an age, not a class)."""
    tokens = re.findall(r"[\w'-]+|[^\w\s]", text)
    found = set()
    for i in range(1, len(tokens) - 1):
        word, after = tokens[i], tokens[i + 1]
        if word.lower()[:5] != stem or not word.islower() or tokens[i - 1].lower() not in _DETERMINERS:
            continue
        following = tokens[i + 2].lower() if i + 2 < len(tokens) else ""
        if len(after) == 1 and after.isascii() and after.isalpha() and not following.isdigit():
            found.add(after.lower())
    return found


def _another_of_its_kind(old: str, new: str) -> bool:
    """ "I quit the book club" after "a member of the local chess club": the thing both name, with
    another word before it that the other statement never says, is another of its kind; so is the
    same thing with another class letter after it ("la patente A" after "la patente B")."""
    old_words, new_words = _content(old), _content(new)
    for stem in old_words & new_words:
        before_old, before_new = _modifiers(old, stem), _modifiers(new, stem)
        if before_old and before_new and not (before_new & old_words) and not (before_old & new_words):
            return True
        class_old, class_new = _class_letter(old, stem), _class_letter(new, stem)
        if class_old and class_new and not class_old & class_new:
            return True
    return False


def _acquired(new: str) -> set[str]:
    """What a statement says is new: the content word after each cue of acquiring ("found a new
    bakery": "bakery") and, for an adjective after its noun, the one before ("un cane nuovo")."""
    lowered = new.lower()
    found = set()
    for m in _pattern("ACQUIRING").finditer(lowered):
        after = [w for w in _words(lowered[m.end() :]) if _is_content_word(w)][:1]
        before = _words(lowered[: m.start()])[-1:] if " " not in m.group(0) else []
        found |= {w[:5] for w in after + before if _is_content_word(w)}
    return found


def _another_thing_acquired(old: str, new: str) -> bool:
    """ "Found a new bakery that does gluten-free" after "I don't eat gluten", "il signor Bruni ha preso
    un cane nuovo" after "il mio vicino è il signor Bruni": all the new statement says happened is
    that something was acquired, and the older statement neither names that thing nor loses a value
    to it ("got a new job at KPMG" after "I work at Deloitte" does): one more thing, not a change."""
    lowered = new.lower()
    old_cues = {m.group(0) for m in _pattern("CHANGE_CUES").finditer(old.lower())}
    cues = [m.group(0) for m in _pattern("CHANGE_CUES").finditer(lowered) if m.group(0) not in old_cues]
    if not cues or not all(_pattern("ACQUIRING").search(cue) for cue in cues) or _pattern("END_CUES").search(lowered):
        return False
    things = _acquired(new)
    old_values, new_values = values_in(old), values_in(new)
    replaced = bool(old_values - new_values and new_values - old_values)
    return bool(things) and not things & _content(old) and not replaced


# Numbers said in words ("my ten-year-old"); the words for one are articles too ("a", "una").
_NUMBER_WORDS = {word: str(n) for word, n in language.table("NUMBER_WORDS").items() if n > 1 and " " not in word}


def _identifiers_restated(old: str, new: str) -> bool:
    """Every number or address of the old statement is in the new one, and no other: the same value again."""

    def identifiers(text: str) -> set[str]:
        spelled = {_NUMBER_WORDS[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in _NUMBER_WORDS}
        return _identifier_tokens(text) | _emails(text) | spelled

    old_ids = identifiers(old)
    return bool(old_ids) and old_ids == identifiers(new)


def _senses(word: str) -> set[str]:
    """The people a word names ("papà": the father, one of the parents), the word itself if no table says."""
    return {word, *language.table("KIN_SENSES").get(word, ())}


def _about_someone_else(old: str, new: str) -> bool:
    """The new statement names a person the old one does not, before anything it says happened:
    "my wife got a new job" is her news; "sold the Vespa to my neighbour's kid" is still mine."""
    people = _pattern("OTHER_PEOPLE")
    lowered = new.lower()
    known = {sense for m in people.finditer(old.lower()) for sense in _senses(m.group(0))}
    others = [m for m in people.finditer(lowered) if not _senses(m.group(0)) & known]
    if not others:
        return False
    cue = _pattern("CHANGE_CUES").search(lowered)
    return cue is None or others[0].start() < cue.start()


# The relation, up to three uncapitalised words, then the person's name closing the statement ("my
# best friend is Rachel", "l'ex moglie si chiama Karen", "divorced from Mark"; not "mia sorella Marta
# vive a Torino", whose value is a place).
_RELATION_THEN_NAME = re.compile(
    rf"(?i:(?<![\w'])(?:{language.alternation('LASTING_RELATIONS')})(?![\w']))(?:\s+[^\sA-Z]\S*){{1,3}}?\s+(?P<name>[A-Z][\w'-]*)$"
)


def _news_of_the_person(old: str, new: str, cue: str, shared: set[str]) -> bool:
    """ "Rachel's just got engaged … I'm maid of honour" after "my best friend is Rachel", "giulia si è
    trasferita … ci sentiamo" after "la mia migliore amica è Giulia": the older statement names a
    relation a person's own news does not end (a friend, an ex, a sibling) and its value is that
    person's name, and the new statement tells of that person (the name a few words before the cue,
    no first person between), whatever the rest of the message says of me. An end ("Tom moved to
    Manchester" still reads as one) is left to the rest of the test."""
    stated = old.rstrip(" .!")
    relation = _RELATION_THEN_NAME.search(stated)
    if relation is None or relation.group("name").lower()[:5] not in shared or _pattern("END_CUES").search(new.lower()):
        return False
    lowered = new.lower()
    at = lowered.find(cue)
    before = _words(lowered[:at])[-4:] if at >= 0 else []
    name = relation.group("name").lower()[:5]
    return any(w[:5] == name and not any(_SELF.fullmatch(x) for x in before[i + 1 :]) for i, w in enumerate(before))


def _speaks_of_self(text: str) -> bool:
    """First person, or the user named in the third ("the user", "l'utente"), or no subject at all
    before what happened ("killed netflix yesterday", "sold the Vespa"): the speaker's own news."""
    lowered = text.lower()
    return bool(_SELF.search(lowered) or _pattern("CHANGE_CUES").match(lowered.lstrip(" -–—,.!")))


# "not the 12th": a number's ordinal ending.
_ORDINAL = rf"(?:{language.alternation('ORDINAL_SUFFIXES')})?"


def _denies_old_value(old: str, new: str) -> str | None:
    """ "43, not 42", "the 21st, not the 12th", "ad aprile, non febbraio": the new statement negates a
    number, name or word the old one gave."""
    # "scade ad aprile, non febbraio", "one sugar, not two": a word of the older statement denied
    # right after the value that replaces it.
    for m in _NOT_AFTER_COMMA.finditer(new.lower()):
        if m.group(1)[:5] in _content(old):
            return m.group(1)
    for value in sorted(values_in(old)):
        if re.search(rf"{_DENIAL}{re.escape(value)}{_ORDINAL}(?!\w)", new.lower()):
            return value
    # "555-0143. Not 42." after "555-0142": the digits that differ, denied.
    for denied in re.findall(rf"{_DENIAL}(\d{{2,}})(?![\w.,:]\d)", new.lower()):
        if any(len(number) > len(denied) and number.endswith(denied) for number in _numbers(old)):
            return denied
    return None


_NOT_AFTER_COMMA = re.compile(
    rf"[,;]\s*(?:{language.alternation('CORRECTING_DENIALS')})\s+"
    rf"(?:(?:{language.alternation('DENIED_ARTICLES')})\s+)?([^\W\d_][\w'-]*)"
)


def _number_corrected(old: str, new: str, denied: str | None) -> bool:
    """ "it's 43 not 42" after "my shoe size is 42 EU": the older statement's own number denied and
    another given in its place says which fact it corrects, with no word in common."""
    return denied is not None and denied in _numbers(old) and bool(_numbers(new) - _numbers(old))


def _another_record(old: str, new: str, verdict: Verdict) -> bool:
    """ "Order A-1 costs €120 by 12 May" then "order B-2 costs €90 by 3 June": every identifier
    differs, so it is another order, not a change of one value (the grammar's fallback alone
    sees the same words with other identifiers)."""
    if not verdict.reason.startswith("the same subject with another identifier"):
        return False
    old_ids, new_ids = _identifier_tokens(old), _identifier_tokens(new)
    return len(old_ids) >= 2 and len(new_ids) >= 2 and not (old_ids & new_ids)


def _identifier_tokens(text: str) -> set[str]:
    """Whole tokens with a digit in them ("2026-03-03", "€90.00", "A-1234")."""
    return {t.strip(".,;:!?()[]'\"€$£").lower() for t in text.split() if any(c.isdigit() for c in t)}


def _emails(text: str) -> set[str]:
    return set(re.findall(r"[\w.+-]+@[\w.-]+\w", text.lower()))


def _codes(text: str) -> set[str]:
    """Identifiers of letters and digits together (A-1234, SKU12, INV-2026-1)."""
    return {t for t in re.findall(r"[\w-]*\d[\w-]*", text.lower()) if re.search(r"[a-z]", t)}


def _numbers(text: str) -> set[str]:
    """Identifiers: numbers, times, e-mail addresses."""
    return set(re.findall(r"[\w.+-]+@[\w.-]+\w|\d+(?:[.,:]\d+)?", text.lower()))


def _is_year(numbers: set[str]) -> bool:
    """All years ("died in 2010"): another kind of number than an age, a price or a time."""
    return all(re.fullmatch(r"(?:19|20)\d\d", n) for n in numbers)


def _one_more(new: str) -> bool:
    return bool(_pattern("ADDITIVE").search(new.lower()))


def rules_judge(old: str, new: str, *, closeness: float | None = None, **thresholds: float) -> Verdict:
    """How ``new`` relates to ``old`` by the rules alone: the grammar first, then the change test above.

    ``closeness`` is the cosine of the two memories' e5 vectors, None when either has none;
    ``thresholds`` go to the grammar's ``compare``.
    """
    verdict = compare(old, new, **thresholds)
    if verdict.relation == "supersedes" and _keeps_the_old(old, new):
        # "sì, sono sempre al Niguarda, faccio l'infermiera lì": the grammar reads "lì" as a new value.
        return Verdict("same", f"{verdict.reason.split(':')[0]}: said to still hold", verdict.similarity)
    if verdict.relation == "supersedes" and _another_record(old, new, verdict):
        return Verdict("compatible", "another record: none of its identifiers is the older one's", verdict.similarity)
    if verdict.relation != "compatible":
        return verdict
    new = _stated(new)
    if not new:
        return verdict
    shared = _content(old) & _content(new)
    close = closeness is not None and closeness >= CLOSE
    denied = _denies_old_value(old, new)
    corrected = _number_corrected(old, new, denied)
    if not shared and not close and not corrected:
        return verdict
    if _about_someone_else(old, new) or _one_more(new):
        return verdict
    if _CONTRASTED.search(new.lower()):
        return verdict
    ended = bool(_pattern("END_CUES").search(new.lower()))
    if ended and _pattern("END_CUES").search(old.lower()):
        # "we broke up" then "it's over with Sara": the same end said again.
        return verdict
    if not denied and (_still_holds(old, new) or (_identifiers_restated(old, new) and not ended)):
        return verdict
    # What did not happen now, or not to the older fact: a near miss, a while away (the older
    # statement's name comes back, a place closed for a time), one occasion of a
    # routine, a past state, a change beside a fact that is kept, another of its kind, one
    # more thing acquired.
    if not denied and (
        _near_miss(new)
        or _comes_back(old, new)
        or _closed_for_a_while(new)
        or _one_occasion(old, new)
        or _history(old, new)
        or _keeps_the_old(old, new)
        or _another_of_its_kind(old, new)
        or _another_thing_acquired(old, new)
        or _resumes(old, new)
    ):
        return verdict
    if denied and (shared or corrected):
        return Verdict("supersedes", f"the new statement says it is not {denied!r}", verdict.similarity)
    cue = cue_in(new, old)
    names = {w.lower()[:5] for w in re.findall(r"\b[A-Z][\w'-]+", old + " " + new)}
    # Nothing in common is about a name only if the new statement names someone (past its first
    # word, capitalised as a memory's text is): "from next week we're shut tuesdays" names no one.
    named = shared or re.search(r"(?<=\s)[A-Z][\w'-]+", new)
    about_a_name = bool(named) and shared <= names and not _speaks_of_self(new)
    if cue and _news_of_the_person(old, new, cue, shared):
        why = "news of the person the older statement names, not of the relation"
        return Verdict("compatible", why, verdict.similarity)
    if cue and about_a_name and not _pattern("END_CUES").search(new.lower()):
        # "Sarah started a new job" changes Sarah's job, not "my girlfriend is Sarah";
        # only an end ("Max died", "il corso è stato cancellato") or a new number carries over.
        cue = None
    emails = [_emails(old), _emails(new)]
    other_address = all(emails) and not (emails[0] & emails[1])
    anchored = bool(shared) or other_address or close
    if cue and anchored:
        why = f"close in meaning ({closeness:.2f})" if closeness is not None else "the same subject"
        return Verdict("supersedes", f"{why}; the new statement says {cue!r}", verdict.similarity)
    old_numbers, new_numbers = _numbers(old), _numbers(new)
    # Codes ("order A-1234") name the thing: other codes are other things, not other values.
    old_codes, new_codes = _codes(old), _codes(new)
    other_things = bool(old_codes and new_codes and old_codes != new_codes)
    if (
        shared
        and old_numbers
        and new_numbers
        and not (old_numbers & new_numbers)
        and not other_things
        and _is_year(old_numbers) == _is_year(new_numbers)
        and _content(old) <= _content(new)
        and not _one_time(old, new)
    ):
        why = f"the same subject with another number ({', '.join(sorted(new_numbers))})"
        return Verdict("supersedes", why, verdict.similarity)
    return verdict


def signals(old: str, new: str, rules: Verdict) -> dict[str, float]:
    """What the word lists read in the pair, as the learned score's features."""
    old_words, new_words = _content(old), _content(new)
    return {
        "shared_words": len(old_words & new_words) / max(1, min(len(old_words), len(new_words))),
        "new_has_cue": float(cue_in(new, old) is not None),
        "new_has_end": float(bool(_pattern("END_CUES").search(new.lower()))),
        "denies_old_value": float(_denies_old_value(old, new) is not None),
        "someone_else": float(_about_someone_else(old, new)),
        "one_more": float(_one_more(new)),
        "speaks_of_self": float(_speaks_of_self(new)),
        "rules_supersede": float(rules.relation == "supersedes"),
    }


def features(old: str, new: str, *, closeness: float, **thresholds: float) -> tuple[np.ndarray, Verdict]:
    """The learned score's features of the pair, and the rules' verdict they include."""
    rules = rules_judge(old, new, closeness=closeness, **thresholds)
    return pair_features(old, new, closeness=closeness, signals=signals(old, new, rules)), rules


def judge(
    old: str,
    new: str,
    *,
    closeness: float | None = None,
    vector: np.ndarray | None = None,
    old_vector: np.ndarray | None = None,
    model: ScoreModel | None = None,
    **thresholds: float,
) -> Verdict:
    """How ``new`` relates to ``old``: the rules (the grammar, then the change test), and what
    they leave side by side the learned score may still call a change.

    ``vector`` and ``old_vector`` are the two statements' e5 passage vectors and
    ``closeness`` their cosine; without them (no embeddings) the rules decide alone.
    ``model`` is the fitted score (``change_score.shipped()`` by default, None today). The
    score never supersedes far in meaning, about someone else or for one more item.
    """
    rules = rules_judge(old, new, closeness=closeness, **thresholds)
    model = model if model is not None else shipped()
    if rules.relation != "compatible" or model is None or vector is None or old_vector is None:
        return rules
    if closeness is None or closeness < FLOOR or compare(old, new, **thresholds).relation != "compatible":
        return rules
    found = pair_features(old, new, closeness=closeness, signals=signals(old, new, rules))
    if found[FEATURES.index("someone_else")] or found[FEATURES.index("one_more")]:
        return rules
    score = model.score(found, pair_vector(vector, old_vector))
    if score < model.threshold:
        return rules
    why = f"close in meaning ({closeness:.2f}) and it reads as a change of it (score {score:.1f})"
    return Verdict("supersedes", why, rules.similarity)


# How much a word both statements name counts beside closeness in meaning when telling which
# memory a statement is about (``about``): per unit of the word's rarity among the person's
# memories (log of memories over memories naming it). Chosen on the twelve outside writers'
# crowd check (bench/README.md, 2026-12-04 night): 0.01–0.05 gave the same picks to within
# two a writer; 0 (closeness alone) picked worse on every writer.
WORD_WEIGHT = 0.02


def _slot_words(text: str) -> set[str]:
    """The content words that can name the thing a statement is about: not its numbers or codes
    ("20mg", "1:1"), which are values of a thing, not the thing."""
    return {w for w in _content(text) if not any(c.isdigit() for c in w)}


def about(new: str, candidates: list[tuple[int, str, float | None]]) -> dict[int, float]:
    """How much ``new`` is about each memory (id → score): closeness in meaning plus each word
    both name, weighted by how few of the person's memories name it ("yoga" names one memory,
    "month" or "lavoro" half of them). Without a vector for every memory (some written moments
    ago are not embedded yet) the words decide, trigram similarity counting as at most one
    rare word (it says little about meaning): closeness and its absence are not one scale."""
    words = {pk: _slot_words(text) for pk, text, _ in candidates}
    named: dict[str, int] = {}
    for found in words.values():
        for word in found:
            named[word] = named.get(word, 0) + 1
    new_words = _slot_words(new)
    total = len(candidates)
    by_meaning = all(closeness is not None for _, _, closeness in candidates)
    scores = {}
    for pk, text, closeness in candidates:
        near = closeness if by_meaning and closeness is not None else WORD_WEIGHT * trigram_similarity(text, new)
        rarity = sum(np.log((1 + total) / (1 + named[w])) for w in new_words & words[pk])
        scores[pk] = near + WORD_WEIGHT * float(rarity)
    return scores


def choose(
    new: str,
    candidates: list[tuple[int, str, float | None]],
    *,
    vector: np.ndarray | None = None,
    old_vectors: Mapping[int, np.ndarray] | None = None,
    **thresholds: float,
) -> list[tuple[int, Verdict]]:
    """Which of a person's memories (id, text, closeness to ``new``) ``new`` restates or supersedes.

    ``vector`` is ``new``'s e5 passage vector and ``old_vectors`` the memories' by id (None
    without embeddings). The grammar's verdicts all stand. The change test's (or the
    score's) count only for the one memory the statement is most about (``about``): a
    change word says something happened, not to what, and the memory that merely passes
    the test ("my gran started him" against "I run a bakery") is often not the one the
    statement names. When the memory it is most about is left alone, so are the others; a
    memory sharing no word with ``new`` must also be clearly its nearest (``NEAREST_MARGIN``).
    """
    decided: list[tuple[int, Verdict]] = []
    verdicts: dict[int, Verdict] = {}
    for pk, text, closeness in candidates:
        old_vector = old_vectors.get(pk) if old_vectors is not None else None
        # thresholds are the grammar's two floats, never ``model``
        verdict = judge(text, new, closeness=closeness, vector=vector, old_vector=old_vector, **thresholds)  # type: ignore[arg-type]
        if verdict.relation == "compatible":
            continue
        if compare(text, new, **thresholds).relation == verdict.relation:
            decided.append((pk, verdict))
        else:
            verdicts[pk] = verdict
    if verdicts and not any(v.relation == "supersedes" for _, v in decided):
        scores = about(new, candidates)
        target = max(scores, key=lambda pk: scores[pk])
        if target in verdicts and _named_or_clearly_nearest(new, target, candidates):
            decided.append((target, verdicts[target]))
    return decided


# Without a word in common, the memory a change is about must be the person's nearest in
# meaning by at least this much over the next: in replayed chats 4 of 5 wrong supersessions
# were a nearest memory sharing no word with a statement whose change was about something
# not remembered. On crowds of 20 memories (the cap) drawn from the twelve outside writers'
# sets: wrong 354 -> 276, right 1,583 -> 1,540 (bench/README.md, 2026-12-04 night).
NEAREST_MARGIN = 0.01


def _named_or_clearly_nearest(new: str, target: int, candidates: list[tuple[int, str, float | None]]) -> bool:
    """The memory shares a word with ``new`` that can name a thing, or is clearly its nearest in meaning."""
    text = next(t for pk, t, _ in candidates if pk == target)
    if _slot_words(text) & _slot_words(new):
        return True
    near = sorted((c for _, _, c in candidates if c is not None), reverse=True)
    mine = next(c for pk, _, c in candidates if pk == target)
    if mine is None or len(near) < 2:
        return True
    return mine >= near[0] and mine - near[1] >= NEAREST_MARGIN


# At most this many memories are put to the fast model, the closest first.
MODEL_CANDIDATES = 8


def close_candidates(new: str, candidates: list[tuple[int, str, float | None]]) -> list[tuple[int, str]]:
    """The memories close enough in meaning to ``new`` to ask the fast model about, closest first."""
    scored = []
    for pk, text, closeness in candidates:
        if closeness is not None:
            near = closeness >= CLOSE
            score = closeness
        else:
            near = bool(_content(text) & _content(new))
            score = trigram_similarity(text, new)
        if near:
            scored.append((score, pk, text))
    scored.sort(key=lambda item: item[0], reverse=True)
    return [(pk, text) for _, pk, text in scored[:MODEL_CANDIDATES]]


def statement_changes(old: str, new: str) -> str | None:
    """Why ``new`` changes ``old`` (two statements of a conversation, no vectors), or None."""
    verdict = judge(old, new)
    return verdict.reason if verdict.relation == "supersedes" else None


__all__ = [
    "CLOSE",
    "MODEL_CANDIDATES",
    "NEAREST_MARGIN",
    "WORD_WEIGHT",
    "about",
    "choose",
    "close_candidates",
    "cue_in",
    "features",
    "judge",
    "rules_judge",
    "statement_changes",
]
