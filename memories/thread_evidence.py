"""A correction said in the conversation a memory came from: the chat's own evidence.

The change test (``memories.matching.change``) judges two statements as a pair, wherever
each was said. A conversation says more: "wait no, misread the email, it's 41782" or
"they've moved stats, its now Wednesdays at 2pm" is about something the person told
this same conversation, and the person knows what they said there. So a statement said
in the thread a memory was drawn from replaces that memory when all of these hold:

1. it says it corrects or updates something (a change cue, a word of correcting oneself,
   a thing moved to a value: "pushed me to 9:15", or the memory's own value denied: "not 47");
2. it gives a value of the kind the memory holds (a number or code, a day, a name) that
   the memory does not;
3. it is about that memory: they share a word that names a thing, or the new code is the
   old one with a character or two changed, or the old value is denied — and of the
   thread's memories it is the one the statement is most about (``about``);
4. nothing says it is supposed, asked, one more item (an additive word before the new value),
   someone else's news, or how things were.

A wrong supersession costs more than a missed one, so every test is required; the
memory's history says that the conversation was the evidence.
"""

from __future__ import annotations

import re
from functools import cache

from liamemory import language
from memories.matching import Verdict
from memories.matching.change import about, cue_in


@cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'’])(?:" + language.alternation(name) + r")(?!\w)", re.I)


_FUNCTION_WORDS = language.union("FUNCTION_WORDS")
# "cinque anni" and "cinque minuti" share a count, not a thing.
_NUMBER_WORDS = language.union("NUMBER_WORDS")
_WEEKDAY = re.compile(rf"\b(?:{language.word_alternatives('WEEKDAYS', 'WEEKDAY_SPELLINGS')})s?\b", re.I)
_MONTH = re.compile(rf"\b(?:{language.word_alternatives('MONTHS')})\b", re.I)
_CODE = re.compile(r"[\w/-]*\d[\w/:.,-]*\w|\d")
# A name: a capitalised word that does not open a sentence.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)(?<!\n)\b(?!I\b)[A-Z][^\W\d_]*[a-zà-ÿ][^\W\d_]*(?:['’-][^\W\d_]+)?\b")
_DENIAL = rf"(?:{language.alternation('DENIALS')})\s+(?:(?:{language.alternation('DENIED_ARTICLES')})\s+)?"


def _words(text: str) -> set[str]:
    """Content words that can name a thing: no numbers (in figures or words), cues, days or names."""
    values = _days(text) | _names(text, opening=False)
    found = re.findall(r"[^\W\d_][\w'’-]*", text.lower())
    return {
        w
        for w in found
        if len(w) > 3
        and w not in _FUNCTION_WORDS
        and w not in _NUMBER_WORDS
        and w not in values
        and w.rstrip("s") not in values
        and not _pattern("CHANGE_CUES").fullmatch(w)
    }


def _stem(word: str) -> str:
    """A word without its plural or its final vowel ("lockers", "locker"; "coinquiline", "coinquilina")."""
    if len(word) > 5 and word.endswith("es"):
        word = word[:-2]
    elif word.endswith("s"):
        word = word[:-1]
    return word[:-1] if word[-1:] in "aeiouàèéìòù" else word


def _shared(old: str, new: str) -> set[str]:
    """The words both name, as one word or its plural: a verb's other form is no shared thing
    ("telefona", "telefonata"; "chiamato", "chiamiamo")."""
    return {w for w in {_stem(w) for w in _words(old)} & {_stem(w) for w in _words(new)} if len(w) > 3}


def _codes(text: str) -> set[str]:
    return {m.group(0).lower().rstrip(".,") for m in _CODE.finditer(text)}


def _names(text: str, *, opening: bool) -> set[str]:
    """Capitalised words; with ``opening``, the text's first word too (a memory opens on a name as
    often as not: "Pepper, our rescue greyhound")."""
    found = {re.sub(r"['’]s$", "", m.group(0).lower()) for m in _NAME.finditer(text)}
    first = re.match(r"\W*([A-Z][^\W\d_]*[a-zà-ÿ][^\W\d_]*)\b", text)
    if opening and first and first.group(1).lower() not in _FUNCTION_WORDS:
        found.add(first.group(1).lower())
    return found


def _weekdays(text: str) -> set[str]:
    return {m.group(0).lower().rstrip("s") for m in _WEEKDAY.finditer(text)}


def _months(text: str) -> set[str]:
    return {m.group(0).lower() for m in _MONTH.finditer(text)}


def _days(text: str) -> set[str]:
    return _weekdays(text) | _months(text)


def _shape(code: str) -> str:
    """A code's shape: its letters as one run, its digits by how many, one or two counting alike (a day,
    an hour): "ACC-55102" and "ACC-55120" are "a-99999", "5" and "12" are "9", "2719" and "8" differ."""
    letters = re.sub(r"[^\W\d_]+", "a", code)
    return re.sub(r"\d+", lambda m: "9" if len(m.group(0)) <= 2 else "9" * len(m.group(0)), letters)


def _values(text: str, *, opening: bool) -> dict[str, set[str]]:
    """The values a statement holds, by kind: codes and numbers by their shape, weekdays, months, names."""
    names = _names(text, opening=opening) - _days(text)
    out: dict[str, set[str]] = {"weekday": _weekdays(text), "month": _months(text), "name": names}
    for code in _codes(text):
        out.setdefault(f"code {_shape(code)}", set()).add(code)
    return out


def _near_typo(a: str, b: str) -> bool:
    """Two codes of one length that differ in at most two characters ("41772"/"41782", "ACC-55102"/"ACC-55120")."""
    a, b = re.sub(r"\W", "", a), re.sub(r"\W", "", b)
    return len(a) == len(b) >= 4 and a != b and sum(x != y for x, y in zip(a, b, strict=True)) <= 2


def _denied(old: str, new: str) -> str | None:
    """A value of the memory the new statement says it is not ("not 47", "non è la 31/2025"), or a tail
    of one ("3:22:41 not 47" after 3:22:47)."""
    lowered = new.lower()
    for value in sorted(_codes(old) | _names(old, opening=True)):
        if re.search(rf"{_DENIAL}{re.escape(value)}(?!\w)", lowered):
            return value
    for denied in re.findall(rf"{_DENIAL}(\d+)(?![\w.,:]\d)", lowered):
        if any(code != denied and re.sub(r"\D", "", code).endswith(denied) for code in _codes(old)):
            return denied
    return None


def _says_a_correction(old: str, new: str) -> str | None:
    """What in ``new`` says it corrects or updates something: a change cue that is more than a marker
    of time or certainty ("now", "actually", "adesso"), a word of correcting oneself, or a thing moved
    to a new value ("pushed me to 9:15")."""
    cue = cue_in(new, old)
    if cue and not _pattern("MARKERS").fullmatch(cue):
        return cue
    found = _pattern("SELF_CORRECTION").search(new) or _pattern("MOVED_TO").search(new)
    return found.group(0).lower() if found else None


def _tentative(new: str) -> bool:
    """Supposed, wished or asked: nothing of the memory changed yet."""
    return bool(_pattern("TENTATIVE").search(new) or new.rstrip().endswith("?"))


def _one_more(new: str, fresh: set[str]) -> bool:
    """One more item ("another dog, Rex"): an additive word before the new value; one after it is
    about something else ("moved to 15 May, clash with another course")."""
    additive = _pattern("ADDITIVE").search(new)
    if additive is None:
        return False
    lowered = new.lower()
    first = min((i for v in fresh if (i := lowered.find(v)) >= 0), default=len(new))
    return additive.start() < first


def _someone_elses(old: str, new: str) -> bool:
    """The new statement names a relation the memory does not ("my sister moved to Leeds")."""
    known = {m.group(0).lower() for m in _pattern("OTHER_PEOPLE").finditer(old)}
    return any(m.group(0).lower() not in known for m in _pattern("OTHER_PEOPLE").finditer(new))


# How a supersession by this evidence begins its reason in the memory's history.
SAID_HERE = "said in the same conversation"


def corrects(old: str, new: str) -> str | None:
    """Why ``new``, said in the conversation ``old`` was drawn from, replaces ``old``'s value; else None."""
    if _tentative(new) or _someone_elses(old, new):
        return None
    denied = _denied(old, new)
    cue = _says_a_correction(old, new)
    if not (cue or denied):
        return None
    if not denied and _pattern("PAST_STATE").search(new) and not _pattern("SELF_CORRECTION").search(new):
        # "il martedì sera ero sempre morto": how things were, not what changed.
        return None
    old_values, new_values = _values(old, opening=True), _values(new, opening=False)
    fresh = {kind: found - old_values.get(kind, set()) for kind, found in new_values.items()}
    kinds = [kind for kind in fresh if fresh[kind] and old_values.get(kind)]
    if not kinds or _one_more(new, {v for kind in kinds for v in fresh[kind]}):
        return None
    named = _names(old, opening=True)
    if kinds != ["name"] and named and new_values["name"] and not named & _names(new, opening=True):
        # "Matilde compie gli anni il 3 maggio" after "mio figlio Andrea sta a Torino": another one's value.
        return None
    shared = _shared(old, new)
    codes = [kind for kind in kinds if kind.startswith("code")]
    typo = any(_near_typo(a, b) for kind in codes for a in old_values[kind] for b in fresh[kind])
    if not (shared or typo or denied):
        return None
    said = f"it is not {denied!r}" if denied else f"{cue!r}"
    what = ", ".join(sorted(v for kind in kinds for v in fresh[kind]))[:60]
    return f"{SAID_HERE}: {said}, now {what}"


def corrected_text(old: str, new: str) -> str | None:
    """``old`` with its one number or code that ``new`` corrects put right ("My bib number came through,
    41772." and "wait no, misread the email. it's 41782": "My bib number came through, 41782."), when
    the correction gives one value of that shape and the memory holds one; else None.

    Only a mistake is put right in the memory's words (a word of correcting oneself, or the old value
    denied); a change ("exam got moved to 15 May") is news, kept in the person's own words."""
    denied = _denied(old, new)
    if not (denied or _pattern("SELF_CORRECTION").search(new)):
        return None
    old_values, new_values = _values(old, opening=True), _values(new, opening=False)
    swaps = []
    for kind, found in new_values.items():
        fresh = found - old_values.get(kind, set())
        replaced = old_values.get(kind, set()) - (found - {denied})
        if kind.startswith("code") and len(fresh) == 1 and len(replaced) == 1:
            swaps.append((next(iter(replaced)), next(iter(fresh))))
    if len(swaps) != 1:
        return None
    (was, now), lowered = swaps[0], old.lower()
    start = lowered.find(was)
    if start < 0 or lowered.find(was, start + 1) >= 0:
        return None
    value = re.search(re.escape(now), new, re.I)
    return old[:start] + (value.group(0) if value else now) + old[start + len(was) :]


def thread_correction(new: str, candidates: list[tuple[int, str, float | None]]) -> tuple[int, Verdict] | None:
    """The memory of this conversation (id, text, closeness to ``new``) that ``new`` corrects, with why.

    Only the memory ``new`` is most about among the conversation's memories may be corrected.
    """
    if not candidates:
        return None
    scores = about(new, candidates)
    target = max(scores, key=lambda pk: scores[pk])
    text = next(t for pk, t, _ in candidates if pk == target)
    why = corrects(text, new)
    return (target, Verdict("supersedes", why)) if why else None
