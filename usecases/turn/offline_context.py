"""What the offline model can quote: every line its context holds, and the ones a question asks about.

A real model reads its whole context; so does the offline one: the memories, the older
excerpts, the summary's lines and the window's messages (``context_lines``). A question
is matched against all of them (``answer_lines``): its content words, weighted by how
rare they are among the lines, found in a line as words or word stems; when no line
shares a word, the multilingual embedding finds the one closest in meaning, across
languages. Lines are weighed on what they state: an earlier question answers nothing, and
of lines about the same thing one that holds a value (a name, a number) is preferred.
Of the lines that match nearly as well as the best, the newest come first,
so a value that changed ("we renamed him Rocco") is quoted before the one it replaced;
a later line that corrects the chosen one without naming it ("switched to the 10mg ones")
stands in for it, judged as the memories' change test judges a new statement.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from conversations.extractive import CHANGED_MARK
from conversations.informative import asks, near_identical, only_asks, says_nothing, words
from liamemory import embeddings, language
from liamemory.search_terms import kind_words, kinds_linked
from memories.matching.change import about, cue_in, judge, statement_changes
from usecases.turn.offline_facts import change_cue, corrects_itself, stated, without_quoted
from usecases.turn.offline_words import content_words, fold

LABEL = "(offline model)"
# Lines this close to the best score are quoted too, newest first; at most this many.
NEAR_BEST = 0.5
MAX_QUOTES = 2
# How far above what unrelated statements score a line must be to answer a question
# that shares no word with it (the margin memory recall uses, ``memories.recall``).
MEANING_MARGIN = 0.05
# A margin this much above ``MEANING_MARGIN`` weighs as much as the best shared words.
MEANING_STEP = 0.1
MEANING_CANDIDATES = 40
VALUE_BONUS = 0.3
# A value a line can state: a number, or a capitalised word that does not open a sentence.
_VALUE = re.compile(r"\d|(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
# What kind of value a question asks for, and how a line holds one: a name or a place (a
# capitalised word inside the sentence), a time or a date, a number or a code.
# "Which seat did I get?", "which bench is mine?" are answered by a code or a number as well.
# A name opening a sentence counts when an apposition or a possessive follows it ("Pepper, our
# rescue greyhound, …", "Maddie's at St. Brendan's").
_NAME_VALUE = re.compile(
    r"(?<![.!?]\s)(?<!^)\b(?!I['’])[A-Z][\w'-]+|\b(?=[\w-]*\d)[\w-]+"
    rf"|(?:^|(?<=[.!?]\s))[A-Z][a-z]+(?=,\s(?:(?:il|la|the)\s)?{language.any_word('POSSESSIVES')}|['’]s\s)"
)
_WHEN_VALUE = re.compile(rf"\d|{language.alternation('WEEKDAYS_MONTHS')}", re.I)
_NUMBER_VALUE = re.compile(r"\d")
_ANSWER_KINDS = (
    (re.compile(language.alternation("ASKS_FOR_A_NAME"), re.I), _NAME_VALUE),
    (re.compile(language.alternation("ASKS_FOR_A_TIME"), re.I), _WHEN_VALUE),
    (re.compile(language.alternation("ASKS_FOR_A_NUMBER"), re.I), _NUMBER_VALUE),
)

# Words that name nothing the question is about: asking words, function words and the
# words of recalling ("what did I tell you …"), in every language.
_ASKING = language.union("ASKING_WORDS") | language.union("STOP_WORDS") | language.union("RECALL_WORDS")
# Words too general to say that two lines are about the same thing ("always", "sempre", "week").
_GENERAL = (
    _ASKING | language.union("FUNCTION_WORDS") | language.union("COMMON_WORDS") | language.union("TIME_SPAN_WORDS")
)


@dataclass(frozen=True)
class Line:
    text: str
    source: str  # memory | summary | excerpt | other (conversation) | window
    date: str = ""
    sequence: int | None = None
    title: str = ""
    # Later is newer: (tier, date, position). Memories are current but undated.
    order: tuple[Any, ...] = ()
    # A summary line the summary marked as replacing what was said before: newer than any
    # statement it changes, though its place among the excerpts is unknown.
    replaces: bool = False
    # An excerpt of another conversation: its place in the list (by time, the conversations mixed).
    listed: int = -1
    # Who said it, where the context says: "assistant" for an excerpt of a reply.
    role: str = ""


def _system_text(system: list[dict[str, Any]]) -> str:
    return "\n".join(b.get("text", "") for b in system)


_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_MEMORY_LINE = re.compile(r"^- \[[a-z_]+ #(?P<id>\d+)\] (?P<text>.+)$", re.M)
# The line shape of ``usecases.turn.context.EXCERPT_LINE``.
_EXCERPT_LINE = re.compile(r"^- \[#(?P<seq>\d+), (?P<date>[\d-]+), (?P<role>\w+)\] “(?P<text>.*)”$", re.M)
# ``usecases.turn.context.OTHER_LINE``: an excerpt of another conversation, by its title.
_OTHER_LINE = re.compile(r"^- \[“(?P<title>[^”]*)”, (?P<date>[\d-]+), (?P<role>\w+)\] “(?P<text>.*)”$", re.M)
# The summary's lines (``conversations.extractive``): "2026-12-03:" then "- User: …".
_SUMMARY_BLOCK = re.compile(r"^Summary of the conversation so far:\n(?P<body>.*?)(?=\n\n|\Z)", re.M | re.S)
_DAY = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}):$")
_SUMMARY_LINE = re.compile(
    r"^- (?:(?P<date>\d{4}-\d{2}-\d{2}) )?(?:(?P<label>User|Assistant|Note)(?: \(#\d+\))?: )?(?P<text>.+)$"
)


def context_lines(system: list[dict[str, Any]], messages: list[dict[str, Any]], request_index: int) -> list[Line]:
    """Every line of the context worth quoting, the request itself left out."""
    text = _system_text(system)
    lines = [Line(m["text"], "memory", order=(0, "", int(m["id"]))) for m in _MEMORY_LINE.finditer(text)]
    summary = _SUMMARY_BLOCK.search(text)
    if summary:
        day = ""
        for i, raw in enumerate(summary["body"].splitlines()):
            if heading := _DAY.match(raw):
                day = heading["date"]
            elif m := _SUMMARY_LINE.match(raw):
                date = m["date"] or day
                said = _quoted(m["text"]) if m["label"] == "Assistant" else m["text"]
                marked = said.endswith(CHANGED_MARK)
                said = said.removesuffix(CHANGED_MARK)
                if said:
                    lines.append(Line(said, "summary", date=date, order=(1, date, i / 1000), replaces=marked))
    for m in _EXCERPT_LINE.finditer(text):
        seq = int(m["seq"])
        lines.append(
            Line(m["text"], "excerpt", date=m["date"], sequence=seq, order=(1, m["date"], seq), role=m["role"])
        )
    # The other conversations' excerpts are not ordered among themselves: whether one changed another
    # is read with no conversation around them, and ordering them replaced more right values than
    # wrong ones on the development chats (a rebooked flight "changed" the booking reference).
    for i, m in enumerate(_OTHER_LINE.finditer(text)):
        order = (1, m["date"], -1)
        lines.append(Line(m["text"], "other", date=m["date"], title=m["title"], order=order, listed=i, role=m["role"]))
    for index, message in enumerate(messages[:request_index]):
        for block in message["content"] if isinstance(message["content"], list) else []:
            said = block.get("text", "") if block.get("type") == "text" else ""
            if said.startswith("[Note from the system:"):
                said = said.removeprefix("[Note from the system:").rstrip("]").strip()
            elif said.startswith(("Reminder of your constraints", LABEL)):
                said = ""
            if said.strip():
                lines.append(Line(said.strip(), "window", order=(2, "", index), role=message["role"]))
    return [line for line in lines if _quotable(line)]


# What a reply quotes ("From what you told me: “…”"): the person's own words, the only part
# of a reply the summary kept that is worth quoting again (the rest is the reply's framing).
_QUOTE = re.compile(r"“(?P<text>[^”]{12,})(?:”|$)")


def _quoted(reply: str) -> str:
    """The first passage ``reply`` quotes, or ''."""
    m = _QUOTE.search(reply)
    return m["text"].strip() if m else ""


_POSSESSIVE = re.compile(language.any_word("POSSESSIVES"), re.I)


# Where a reply of the offline model says its quote came from (``where``): "” (message #115, 2026-12-07)",
# "” (conversation “…”, 2026-12-07)", "” (what I remember about you)"; every language's labels.
_SOURCE_LABEL = re.compile(
    r"” \((?:[^()]*#\d+|[^()]*\d{4}-\d{2}-\d{2}|"
    + "|".join(re.escape(str(language.words(lang).REPLIES["from_memory"])) for lang in language.LANGUAGES)
    + r")"
)


def _quotable(line: Line) -> bool:
    """Not the model's own replies (an excerpt of one shortened loses its label, not the quote's source),
    nor replies that say nothing, nor a question about the person's own things."""
    if line.text.startswith(LABEL) or only_asks(line.text) or says_nothing(line.text):
        return False
    if line.role == "assistant" and _SOURCE_LABEL.search(line.text):
        return False
    return not any(asks(x) and _POSSESSIVE.search(x) and not _stated_part(x) for x in _SENTENCES.split(line.text))


def _question_words(question: str) -> set[str]:
    words = {fold(w).removesuffix("'s").strip("'’") for w in content_words(question)}
    return {w for w in words if len(w) > 1 and w not in _ASKING and not w.isdigit()}


_SPELLING_VARIANTS = list(language.table("SPELLING_VARIANTS").items())
_PLURAL_S = [re.compile(p) for p in language.patterns("PLURAL_S")]


def _singular(word: str) -> str:
    """One form for "dogs" / "dog" and "favourite" / "favorite"."""
    if len(word) > 5:
        for spelling, folded in _SPELLING_VARIANTS:
            word = word.replace(spelling, folded)
    for plural in _PLURAL_S:
        if plural.search(word):
            return plural.sub("", word)
    return word


_INFLECTED = re.compile(r"(?:s|es|d|ed|ing|er|ers|ly)")


def _inflects(short: str, word: str) -> bool:
    """Whether ``word`` is a form of a word of three or four letters ("run" / "running", "walk" /
    "walks", "date" / "dating"), which stems of five letters cannot tell from other words ("form"
    is no "formula", "care" no "career")."""
    if len(short) not in (3, 4) or len(word) <= len(short):
        return False
    if len(short) == 4 and short.endswith("e"):  # "dating", "dated"
        return word.startswith(short[:-1]) and bool(_INFLECTED.fullmatch(word[3:]))
    if not word.startswith(short):
        return False
    rest = word[len(short) :]  # "running": a consonant doubled
    return bool(_INFLECTED.fullmatch(rest) or _INFLECTED.fullmatch(rest.removeprefix(short[-1])))


def _matches(word: str, have: set[str]) -> bool:
    for h in have:
        if h == word or _singular(h) == _singular(word) or _inflects(h, word) or _inflects(word, h):
            return True
        if len(word) >= 5 and len(h) >= 5 and (h.startswith(word[:5]) or word.startswith(h[:5])):
            return True
        if _one_stem(word, h):
            return True
        if len(word) >= 4 and word in h and not h.startswith(word):  # "name" in "renamed"
            return True
    return False


_VOWELS = frozenset("aeiouàèéìòù")


def _one_stem(word: str, other: str) -> bool:
    """Two forms of one word that differ in their last vowel only, as Italian inflects ("firmo" /
    "firma", "alunno" / "alunni"); five letters at least, so "caso" is no "casa"."""
    return len(word) == len(other) >= 5 and word[:-1] == other[:-1] and word[-1] in _VOWELS and other[-1] in _VOWELS


# A sentence that opens with a question word asks, with or without its "?" ("what's a good
# dog friendly walk near here"). Italian "come" also opens statements ("come sai, …").
_NOT_ASKING = "".join(rf"(?<!\b{re.escape(w)})" for w in sorted(language.union("STATEMENT_OPENERS")))
_ASKS_OPENING = re.compile(
    rf"^\W*(?:{language.word_alternatives('QUESTION_WORDS', 'QUESTION_CONTRACTIONS')})\b{_NOT_ASKING}", re.I
)


@lru_cache(maxsize=2048)
def _statements(text: str) -> str:
    """``text`` without its questions, its opinions and requests to the assistant, nor the passages
    it quotes for a task: a line is matched, and its meaning weighed, on what the person states.

    Cached: a reply reads the same lines several times (matching, value kinds, corrections)."""
    return " ".join(x for x in map(_stated_sentence, _SENTENCES.split(without_quoted(text))) if x)


def _stated_sentence(sentence: str) -> str:
    """What ``sentence`` states (``stated``, ``_stated_part``); of a task whose colon introduces what
    the person states ("Rifai la comunicazione sul welfare: il CdA ha approvato l'aumento, saranno 750
    euro a testa", "update the turnover slide: we're 218 at 31 December") the statement, with the task's
    words that name what it is about."""
    said = stated(_stated_part(sentence))
    if said:
        return said
    head, colon, tail = sentence.partition(": ")
    told = stated(_stated_part(tail)) if colon else ""
    return f"{head}: {told}" if told and _VALUE.search(told) else ""


# A question asked after a comma, about what the sentence has just said ("i charge £380 a day for
# most clients, is that low for leeds?").
_QUESTION_AFTER_COMMA = re.compile(
    rf",\s+(?=(?:{language.word_alternatives('QUESTION_WORDS', 'QUESTION_VERBS', 'QUESTION_CONTRACTIONS')})\b)", re.I
)


_COMMA = re.compile(r",\s+")


def _stated_part(sentence: str) -> str:
    """``sentence``, or of one that asks the part before its question when that part states a value."""
    if not asks(sentence) and not _ASKS_OPENING.match(sentence):
        return sentence
    head = _QUESTION_AFTER_COMMA.split(sentence, maxsplit=1)[0]
    if head == sentence:
        # A value said in the clauses before a question about something else ("nel nostro gestionale
        # HR, Zucchetti, c'è un modo per esportare le ferie?"): those clauses up to the one that asks.
        clauses = _COMMA.split(sentence)
        opens = [bool(asks(x) or _ASKS_OPENING.match(x)) for x in clauses]
        head = ", ".join(clauses[: opens.index(True)]) if True in opens else sentence
    if head == sentence or asks(head) or _ASKS_OPENING.match(head) or not _VALUE.search(head):
        return ""
    return head


def _asked(question: str) -> str:
    """The sentences of a message that ask ("… lol. quick test, do you remember her name?"); of a question
    that names nothing itself ("… non si ricorda il codice dell'allarme. qual è?", "… wanted my reference
    number. What was it?") the sentence before it too, which names what it asks about."""
    sentences = _SENTENCES.split(question)
    asking = [i for i, x in enumerate(sentences) if asks(x)]
    parts = [_asking_part(sentences[i]) for i in asking]
    if asking and not any(_question_words(x) for x in parts):
        # "…, but tell me what I said anyway, my head is like a sieve": the clauses around say how, not what.
        parts = [sentences[asking[0] - 1], *parts] if asking[0] else [sentences[i] for i in asking]
    return " ".join(parts) or question


_CLAUSES = re.compile(r",\s+|;\s+|\s[-–]\s")


def _asking_part(sentence: str) -> str:
    """``sentence`` up to its asking clause: a remark or task said after it ("which market do I do
    now, putting it in the insta bio", "what's the childminder's name, I need to add her to the
    pickup list") says what the answer is for, not what is asked; a clause before it often names
    the thing ("Jordan's van - what's the reg?") and stays. It may name nothing ("tell me what I said
    anyway"): ``_asked`` then reads the sentence around it."""
    clauses = _CLAUSES.split(sentence)
    opens = [bool(asks(x) or _ASKS_OPENING.match(x)) for x in clauses]
    if True not in opens:
        return sentence
    first = opens.index(True)
    kept = clauses[: first + 1] + [x for x, o in zip(clauses[first + 1 :], opens[first + 1 :], strict=True) if o]
    return ", ".join(kept)


# The words of the sentences around the asking one ("the cat knocked my phone off. do you
# remember her name?") say what it is about, at this weight.
CONTEXT_WORD_WEIGHT = 0.5
# A newer line about the same thing as the best one, holding a value of the kind asked and
# scoring this share of the best, is quoted first (a value that changed: a correction
# often repeats fewer of the question's words than the statement it corrects).
NEWER_SHARE = 0.25
# Two lines share a word of their own that names what both are about when few lines of the context
# say it ("lucchetto" in two lines; "back" in "a place back in Cornwall" and "the back room" is
# said everywhere).
OWN_WORD_LINES = 2
# A newer line that changed a picked one replaces it when it scores this share of it for the question.
CHANGED_RELEVANCE = 0.5


def _wanted(question: str) -> dict[str, float]:
    """The question's content words and their weights: the asking sentences' in full, the rest's at half."""
    asked = _asked(question)
    weights = dict.fromkeys(_question_words(question), CONTEXT_WORD_WEIGHT)
    weights.update(dict.fromkeys(_question_words(asked), 1.0))
    return weights


def answer_lines(question: str, lines: list[Line], *, value_only: bool = False) -> list[Line]:
    """The lines that answer ``question``, the best first; empty when none does.

    ``value_only``: only a line sharing a word with the question and holding a value of the
    kind it asks for answers (a request said without a question: "bike lock code please").

    Each line scores its rare shared words (relative to the best line, 0..1) plus how far
    its meaning stands above what unrelated statements score for the question (in steps
    of ``MEANING_STEP``), when embeddings are on. The best line is quoted first (of lines
    nearly as good, the newest: a value that changed), then one more if it is near the best.
    """
    # A line that only asks ("what's a good dog friendly walk?") answers nothing.
    lines = [line for line in _unique(lines) if _statements(line.text).strip()]
    if not lines:
        return []
    wanted = _wanted(question)
    vocabulary = lower_case_words([question, *(line.text for line in lines)])
    have = [{fold(w).removesuffix("'s") for w in content_words(_statements(line.text))} for line in lines]
    # A line that shows one of the kinds the question names answers that word ("what's my diet?" / "I am
    # vegetarian", "l'indirizzo dello studio" / "in via San Nazaro 41"), as recall and the excerpts read it,
    # and so does a line naming the kind in another language or word ("my cat" / "il mio gatto").
    if linked := kinds_linked(_asked(question), naming=True):
        kind = {fold(w) for w in kind_words(_asked(question))} & set(wanted)
        have = [h | kind if linked(_statements(line.text)) else h for h, line in zip(have, lines, strict=True)]
    df = {w: sum(1 for h in have if _matches(w, h)) for w in wanted}
    # How much each question word says: its weight in the question, by how rare it is among the lines.
    rarity = {w: weight * math.log(1 + len(lines) / df[w]) for w, weight in wanted.items() if df[w]}
    lexical = [sum(r for w, r in rarity.items() if _matches(w, h)) for h in have]
    top = max(*lexical, math.log(1 + len(lines)))
    scores = [x / top if top > 0 else 0.0 for x in lexical]
    for i, margin in _meaning_margins(_asked(question), lines).items():
        scores[i] += max(0.0, margin - MEANING_MARGIN) / MEANING_STEP
    if value_only:
        value = _value_kind(_asked(question))
        scores = [
            x if x > 0 and _holds(value, _statements(line.text), question, vocabulary) else 0.0
            for line, x in zip(lines, scores, strict=True)
        ]
    best = max(scores)
    if best <= 0:
        return []
    # What each line says about the question, before the bonus below.
    said_about = {line: x / best for line, x in zip(lines, scores, strict=True)}
    # Of lines about the same thing, one that holds a value (a name, a number) states it.
    value = _value_kind(_asked(question))
    scores = [
        x + VALUE_BONUS * best if x > 0 and _holds(value, _statements(line.text), question, vocabulary) else x
        for line, x in zip(lines, scores, strict=True)
    ]
    best = max(scores)
    by_line = dict(zip(lines, scores, strict=True))

    subjects = [_subject_words(line.text) for line in lines]
    spread = {w: sum(1 for x in subjects if w in x) for x in subjects for w in x}

    def same_thing(line: Line, other: Line) -> bool:
        """Whether ``other`` is about what ``line`` is: it holds half the question words ``line``
        holds at least, or the two share a word of their own that the question does not say ("il
        codice del lucchetto" and "aggiornamento lucchetto: … ora è 6604")."""
        about = _matched(wanted, line)
        if 2 * len(about & _matched(wanted, other)) >= len(about):
            return True
        own = (_subject_words(line.text) & _subject_words(other.text)) - _GENERAL
        return any(len(w) > 3 and not _matches(w, set(wanted)) and spread[w] <= OWN_WORD_LINES for w in own)

    scored: dict[Line, float] = {}
    for line, score in by_line.items():
        if score >= NEWER_SHARE * best:
            # A newer line that changed this one stands in for it when it is about the question
            # too ("the exam moved to the 13th" is no answer to "what's my flatmate's name?").
            current = _current(line, lines)
            relevant = by_line.get(current, 0.0) >= CHANGED_RELEVANCE * score and same_thing(line, current)
            # It must hold a value of the kind asked: a remark about the same thing is no new value.
            changed = _replaces_value(line, current, question, value) or relevant
            if current is not line and not (changed and _holds(value, _statements(current.text), question, vocabulary)):
                current = line
            scored[current] = max(score, scored.get(current, 0.0))
    top_score = max(scored.values())
    best_line = max(scored, key=lambda line: scored[line])
    # Of the lines about the same thing as the best one, the one said last that holds a value of the
    # kind asked stands first: a value that changed ("they've pushed me to 9:15"); the older ones
    # are not quoted beside it (they hold what it replaced).
    same = [
        line
        for line, x in scored.items()
        if line is not best_line
        and x >= NEWER_SHARE * top_score
        and _about_each_other(best_line, line, lines)
        and 2 * len(_matched(wanted, best_line) & _matched(wanted, line)) >= len(_matched(wanted, best_line))
        and _holds(value, _statements(line.text), question, vocabulary)
    ]
    first = best_line
    for line in same:
        if said_after(line, first):
            first = line

    # A correction that names neither the question's words nor the thing ("switched to the 10mg ones",
    # "changed our minds, going for Cossham instead") stands in for the line it corrects.
    # It must be about the question too, or name what the corrected line names: on a context of a dozen
    # lines the change test tied "Brian at number 12 has a spare key" to "the worst pothole is outside
    # number 84, … lost a hubcap".
    def may_correct(x: Line, current: Line) -> bool:
        own = (_subject_words(x.text) & _subject_words(current.text)) - _GENERAL
        return said_about[x] >= NEWER_SHARE or any(len(w) > 3 and spread[w] <= OWN_WORD_LINES for w in own)

    corrected = _corrections(first, lines, value, question, vocabulary, may_correct)
    corrected += _restated(corrected[-1], [x for x, v in scored.items() if v >= NEWER_SHARE * top_score], wanted, value)
    first = corrected[-1]
    rest = sorted(
        (line for line in scored if line is not first and not any(_copies(line, x) for x in corrected)),
        key=lambda x: -scored[x],
    )
    # Nor is a line the first one says it corrected ("sorry I gave you the wrong staff number, it's 40863").
    rest = [
        line
        for line in rest
        if not ((line is best_line or line in same) and replaced(line, first))
        and not (_listed_after(first, line) and _changes(line, first, wanted))
    ]
    quoted = [first, *(line for line in rest if scored[line] >= NEAR_BEST * top_score)][:MAX_QUOTES]
    return _one_value(quoted, lines, wanted, value)


def answer(question: str, lines: list[Line], *, value_only: bool = False) -> list[Line]:
    """``answer_lines``, each quote without the passages that name a value it replaced (``_without_older``)."""
    found = answer_lines(question, lines, value_only=value_only)
    if not found:
        return found
    value = _value_kind(_asked(question))
    vocabulary = lower_case_words([question, *(line.text for line in lines)])
    return [_without_older(x, lines, value, question, vocabulary) for x in found]


# Where a quote may be cut: between sentences, clauses, and before a denial of a value ("18.70 not 18.40",
# "non alle 9:30"); a piece that opens with a denial denies.
_DENIAL = rf"(?:{language.alternation('CORRECTING_DENIALS')})\s+(?:\w{{1,5}}\s+)?(?=\d|[A-Z])"
_CUTS = re.compile(rf"((?<=[.!?])\s+|,\s+|;\s+|\s[-–]\s|\s(?={_DENIAL}))")
_DENIES = re.compile(_DENIAL)
_CUT_MARK = "…"


def _bare_values(text: str) -> set[str]:
    """``_values`` without the punctuation a sentence puts after them ("18.40." is "18.40")."""
    return {v.rstrip(".,:;/-") for v in _values(text)}


def _without_older(
    line: Line, lines: list[Line], value: re.Pattern[str], question: str, vocabulary: frozenset[str]
) -> Line:
    """``line`` without the clauses that name only a value it says it replaced ("its 18.70 not 18.40", "il 15 è
    alle 10:30, non alle 9:30"). Quoted whole, the correction gave the person the old value beside the new one;
    kept whole when what is left would hold no value of the kind asked. Only a denied value is cut: a value an
    older line it changed holds is often the thing's own name, still true ("Too much beer, Dr Singh says")."""
    # A value it denies that another line of the context says: what was said before and is corrected (not
    # "open every day, non la domenica", said of nothing earlier).
    denied = {fold(line.text[m.end() :].split()[0].rstrip(".,:;!?")) for m in _DENIES.finditer(line.text)}
    others = [fold(x.text) for x in lines if x.text != line.text]
    older = {v for v in denied if v and any(v in x for x in others)}
    if not older:
        return line
    # The pieces and, between them, the text that separated them; what is read for the value keeps the
    # end of a sentence cut ("its 18.70 … redo that weekly sum?" is a statement and a question).
    parts = _CUTS.split(line.text)
    kept: list[str] = []
    read: list[str] = []
    for i in range(0, len(parts), 2):
        piece = parts[i]
        have = _bare_values(piece)
        if have & older and (_DENIES.match(piece) or not have - older):
            if not kept or kept[-1] != _CUT_MARK:
                kept += [" ", _CUT_MARK] if kept else [_CUT_MARK]
            read.append(piece.rstrip()[-1:] if piece.rstrip().endswith((".", "!", "?")) else "")
            continue
        if kept:
            kept.append(parts[i - 1] if kept[-1] != _CUT_MARK else " ")
        kept.append(piece)
        read += [parts[i - 1] if i else "", piece]
    rest = "".join(kept).strip()
    if rest == line.text or not rest.strip(_CUT_MARK + " "):
        return line
    if not _holds(value, _statements("".join(read)), question, vocabulary):
        return line
    return replace(line, text=rest)


def _one_value(quoted: list[Line], lines: list[Line], wanted: dict[str, float], value: re.Pattern[str]) -> list[Line]:
    """The quotes; of two that give the thing asked two values, the newer alone ("The landlord's a Sr.
    Duarte" and, later, "the new landlady is Dona Fátima"): the person asked for one value, and the
    older one beside it read as an answer too (the older value in the reply).

    The two must be about one thing: each holds every word the question asks with ("the Brittany Ferries
    booking ref": "the ferry, booking is BF-3390274" and "the TAP booking reference" are two bookings),
    or each is the line the other is most about; or the newer says it updates the older's value."""
    if len(quoted) < 2:
        return quoted
    first, second = quoted[:2]
    if _listed_after(second, first):
        newer = second
    elif _listed_after(first, second):
        newer = first
    else:
        return quoted
    asked = _kinds_asked(value)
    kinds = [{k for k, _ in _value_shapes(x.text)} for x in (first, second)]
    if asked is not None:
        kinds = [k & asked for k in kinds]
    if not kinds[0] & kinds[1]:
        return quoted
    asking = {w for w, weight in wanted.items() if weight >= 1.0}
    words = [_asked_in(wanted, x.text) for x in (first, second)]
    if (asking and words[0] == words[1] == asking) or _about_each_other(first, second, lines):
        return [newer]
    # A newer line that says it updates or corrects what was said ("aggiornamento lista: … quindi 131", "ah no
    # aspetta, il numero è 3381") with a value of the form of the older one's replaces it, when the two share a
    # word the question asks with, one few lines say, or the form of a code or an amount of more than one digit.
    older = second if newer is first else first
    shapes = [{(k, f) for k, f in _value_shapes(x.text) if asked is None or k in asked} for x in (newer, older)]
    if (change_cue(_statements(newer.text)) or corrects_itself(newer.text)) and shapes[0] & shapes[1]:
        own = (_subject_words(newer.text) & _subject_words(older.text)) - _GENERAL
        rare = [w for w in own if len(w) > 3 and sum(w in _subject_words(x.text) for x in lines) <= OWN_WORD_LINES]
        # A name, a date or a value of one digit is of every form ("4 days off" and "4 on 4 off").
        formed = {(k, f) for k, f in shapes[0] & shapes[1] if f and (k, f) != ("amount", "1")}
        if words[0] & words[1] or rare or formed:
            return [newer]
    return quoted


def _restated(line: Line, candidates: list[Line], wanted: dict[str, float], value: re.Pattern[str]) -> list[Line]:
    """The person's lines said after ``line`` that changed its value, each after the last (``_changes``).

    "budget is 900 for the both of us" … "sam got a bonus so we can do 1200 for the holiday now, not 900",
    "il mio turno è il sabato, 7-14" … "mi hanno spostato alla domenica, sempre 7-14": the later line
    holds a value of a kind ``line`` holds and the question asks for, not ``line``'s, of the same form
    (a code's letters and digits: "TP1361" for "TP1357", never a wifi password for a flight). The
    meaning test of ``_corrections`` cannot tell these on a context of a dozen lines: e5-small puts
    "the guest wifi password is Halv-Guest-7731" as close to "they moved us to TP1361" as the flight
    it changed, and the change test calls both changes.
    """
    asked = _kinds_asked(value)
    chain = [line]
    for _ in range(MAX_CORRECTIONS):
        current = chain[-1]
        shapes = _value_shapes(current.text)
        later = [
            x
            for x in candidates
            if x not in chain
            and x.role != "assistant"
            and not _copies(x, current)
            and _listed_after(x, current)
            and {(k, f) for k, f in _value_shapes(x.text, current.text) if asked is None or k in asked} & shapes
            and _changes(current, x, wanted)
        ]
        if not later:
            break
        chain.append(max(later, key=lambda x: (x.order, x.listed)))
    return chain[1:]


def _listed_after(x: Line, y: Line) -> bool:
    """Whether the context says ``x`` was said after ``y``: its own order (``_placed_after``), or, of one
    other conversation's excerpts, the order they are listed in (by time)."""
    if x.source == y.source == "other" and x.title == y.title:
        return x.listed > y.listed
    return _placed_after(x, y) is True


# A number or a code whole ("17:30", "7-14", "GRP-7734"), and a name inside a sentence.
_DIGITS = re.compile(r"[\w:./-]*\d[\w:./-]*")
_NAMED = re.compile(r"(?<![.!?]\s)(?<!^)\b(?!I['’])[A-Z][\w'-]+")


def _changes(old: Line, new: Line, wanted: dict[str, float]) -> bool:
    """Whether ``new`` says that ``old``'s value changed: it denies it ("1200 now, not 900"), or it says a
    change ("spostato", "moved"; not only "now" or "più") or that it corrects what was said ("I gave you
    the wrong staff number, it's 40863", "I told you wrong about the meetings") of the same thing: a word
    the question asks both hold, or a value both name ("got rid of the octavia", "sempre 7-14")."""
    if any(fold(m["value"]).rstrip(".,") in fold(old.text) for m in _DENIED.finditer(new.text)):
        return True
    if not (change_cue(_statements(new.text)) or corrects_itself(new.text)):
        return False
    return bool(_asked_in(wanted, old.text) & _asked_in(wanted, new.text)) or bool(
        _values(old.text) & _values(new.text)
    )


# The change and newness words of every language ("switched", "new", "spostato"): what a line says happened,
# not to what ("a new receptionist is starting" and "new night porter is Bogdan").
_CHANGE_WORDS = re.compile(
    r"(?<![\w'])(?:" + language.alternation("CHANGE_CUES") + "|" + language.alternation("ACQUIRING") + r")(?![\w])",
    re.I,
)


def _asked_in(wanted: dict[str, float], text: str) -> set[str]:
    """The words of the question's asking part ``text`` holds, its change words left out ("the new apprentice"
    and "New one is Mark Davies" are not about one thing)."""
    have = {fold(w).removesuffix("'s") for w in content_words(_statements(_CHANGE_WORDS.sub(" ", text)))}
    return {w for w, weight in wanted.items() if weight >= 1.0 and _matches(w, have)}


def _values(text: str) -> set[str]:
    """The names and the whole numbers of two characters or more ``text`` holds ("Octavia", "7-14"; not "2",
    nor the "30" of "17:30", nor a title: "Dr Farah" and "Dr Lindgren" share no value)."""
    return {
        fold(v)
        for v in (*_NAMED.findall(text), *_DIGITS.findall(text))
        if len(v) > 1 and not _TITLE.fullmatch(v.rstrip("."))
    }


_TITLE = re.compile(language.alternation("TITLES"), re.I)


# A code's form: its runs of letters and digits ("TP1361" and "TP1357": "A9"; "Halv-Guest-7731":
# "A-A-9").
_FORM = (("[A-Za-z]+", "A"), (r"\d+", "9"))


def _value_shapes(text: str, besides: str = "") -> set[tuple[str, str]]:
    """The kinds of value ``text`` states that ``besides`` does not (``_value_kinds``), each with its form:
    a code's (``_FORM``), an amount's count of digits ("1624" for "1622", not "18 rooms")."""
    said, shapes, known = _statements(text), set(), fold(besides)
    for kind, pattern in _VALUE_KINDS:
        found = _NUMBER.finditer(said) if kind == "amount" else pattern.finditer(said)
        for m in found:
            if fold(m.group(0)) in known:
                continue
            form = ""
            if kind == "code":
                form = m.group(0)
                for run, mark in _FORM:
                    form = re.sub(run, mark, form)
            elif kind == "amount":
                form = str(len(m.group(1)))
            shapes.add((kind, form))
        said = pattern.sub(" ", said)
    return shapes


# A whole number, its integer part apart ("2,100": "2"; "66.5": "66").
_NUMBER = re.compile(r"(\d+)(?:[.,]\d+)*")


def _matched(wanted: dict[str, float], line: Line) -> set[str]:
    """The question's words that ``line`` holds."""
    have = {fold(w).removesuffix("'s") for w in content_words(_statements(line.text))}
    return {w for w in wanted if _matches(w, have)}


def _value_kind(asked: str) -> re.Pattern[str]:
    """How a line holds what ``asked`` asks for: a name, a time, a number; any value otherwise."""
    return next((holds for asks, holds in _ANSWER_KINDS if asks.search(asked)), _VALUE)


def _holds(value: re.Pattern[str], text: str, question: str, vocabulary: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` holds a value of that kind that the question does not already say.

    A name or any value may also open a sentence ("Biscuit just stole a sock", "Oliver ha
    fatto cadere un bicchiere"): a capitalised first word the person never writes in lower
    case (``vocabulary``: the words the context writes so) and that is no function word.
    """
    said = {fold(w) for w in content_words(question)}
    if any(fold(m.group(0)).strip(".,") not in said for m in value.finditer(text)):
        return True
    if (value is not _NAME_VALUE and value is not _VALUE) or not vocabulary:
        return False
    for sentence in _SENTENCES.split(text):
        first = _OPENING_WORD.match(sentence)
        word = fold(first.group(1)) if first else ""
        if word and word not in vocabulary and word not in said and word not in _NOT_NAMES:
            return True
    return False


# A capitalised word opening a sentence, after any punctuation; and the words that open
# sentences without naming anyone (function words, openers, asking words) in every language.
_OPENING_WORD = re.compile(r"^\W*([A-Z][\w'’-]{2,})\b")
_NOT_NAMES = (
    _ASKING
    | language.union("FUNCTION_WORDS")
    | language.union("SHORT_STOP_WORDS")
    | language.union("INDEFINITE_PRONOUNS")
)


def lower_case_words(texts: list[str]) -> frozenset[str]:
    """The words ``texts`` write in lower case: a capitalised one of them opening a sentence is no name."""
    return frozenset(fold(w) for text in texts for w in re.findall(r"(?<![\w'’])[a-zà-ü][\w'’-]+", text))


def _about_each_other(a: Line, b: Line, pool: list[Line]) -> bool:
    """Whether ``a`` and ``b`` are about one thing: they name a word of their own, and of the lines of
    ``pool`` each is the one the other is most about, as the memories' change test tells which memory
    a statement changes (``about``: closeness in meaning plus the rare words both name)."""
    if not (_subject_words(a.text) & _subject_words(b.text)) - _GENERAL:
        return False
    vectors = _passage_vectors(pool)
    if not vectors:
        return False
    return _most_about(a, b, pool, vectors) and _most_about(b, a, pool, vectors)


def _most_about(x: Line, other: Line, pool: list[Line], vectors: dict[Line, Any]) -> bool:
    """Whether of the lines of ``pool`` ``other`` (or a copy of it) is the one ``x`` is most about."""
    others: list[tuple[int, str, float | None]] = [
        (i, y.text, float(vectors[x] @ vectors[y])) for i, y in enumerate(pool) if not _copies(x, y)
    ]
    scores = about(x.text, others)
    return bool(scores) and _copies(pool[max(scores, key=lambda i: scores[i])], other)


# The kinds of value a line can hold, each read and taken out before the next: a date ("30 June", "the
# 22nd", "giovedì"), a time ("9:15", "4pm"), a code ("LOG-4478"), an amount ("£350", "10mg", "29"),
# a name (a capitalised word inside a sentence).
_DATE = re.compile(
    rf"(?:(?:\d{{1,2}}(?:st|nd|rd|th)?|{language.alternation('ORDINAL_DAYS')})\s+)?{language.alternation('WEEKDAYS_MONTHS')}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)\b|{language.alternation('RECURRING_DAYS')}",
    re.I,
)
_VALUE_KINDS = (
    ("date", _DATE),
    ("time", re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", re.I)),
    ("code", re.compile(r"\b(?:[A-Za-z][\w-]*\d[\w-]*|\d+[A-Z][\w-]*)\b")),
    ("amount", re.compile(r"\d")),
    ("name", re.compile(r"(?<![.!?]\s)(?<!^)\b(?!I\b)[A-Z][a-z]+")),
)


# The kinds of value (``_VALUE_KINDS``) that answer a question asking for a name, a time or a number:
# a correction that brings a new day ("kids are with me Wednesday to Friday now") is no new name for
# "what's the childminder's name?". A name question may be answered by a code ("which seat").
_KINDS_ASKED = {
    _NAME_VALUE: frozenset({"name", "code", "amount"}),
    _WHEN_VALUE: frozenset({"date", "time"}),
    _NUMBER_VALUE: frozenset({"code", "amount"}),
}


def _kinds_asked(value: re.Pattern[str]) -> frozenset[str] | None:
    """The value kinds that answer a question whose value is read by ``value``; None: any kind."""
    return _KINDS_ASKED.get(value)


def _value_kinds(text: str, besides: str = "") -> set[str]:
    """The kinds of value ``text`` states that ``besides`` does not: a correction holds a new value of
    the kind it corrects ("moved to 5 April" corrects a date; "ends 218 not 213" is no correction of
    "ends 30 June", nor "Karen is coming on Thursdays" of "my grandson Oliver, Karen's boy")."""
    said, kinds, known = _statements(text), set(), fold(besides)
    for kind, pattern in _VALUE_KINDS:
        if any(fold(m.group(0)) not in known for m in pattern.finditer(said)):
            kinds.add(kind)
        said = pattern.sub(" ", said)
    return kinds


# A value a line says it is not ("419 non 418", "the 21st, not the 12th", "not Joanne").
_DENIED = re.compile(
    rf"\b(?:{language.alternation('DENIALS')})\s+(?:(?:{language.alternation('DENIED_ARTICLES')})\s+)?"
    rf"(?P<value>\d[\w:./-]*|[A-Z][\w'-]+|(?:{language.alternation('ORDINAL_DAYS')})\b)"
)


def _denies_only(new: str, old: str) -> bool:
    """Whether every value ``new`` says it is not is one ``old`` holds: a correction that names what it
    replaces ("la targa è GF 419 KT, 419 non 418") corrects nothing else."""
    said = fold(old)
    return all(fold(m["value"]).rstrip(".,") in said for m in _DENIED.finditer(new))


# At most this many corrections of a corrected line are followed ("3 April", then "5 April", then "7").
MAX_CORRECTIONS = 3


def _corrections(
    line: Line,
    lines: list[Line],
    value: re.Pattern[str],
    question: str,
    vocabulary: frozenset[str],
    may_correct: Callable[[Line, Line], bool],
) -> list[Line]:
    """``line`` and the lines said after it that corrected it, each the last one's correction.

    A correction is judged as the memories' change test judges a new statement (``judge``, with the
    two lines' closeness in meaning): people imply what they correct ("switched to the 10mg ones"
    after "amlodipine 5mg", "alla fine l'hanno spostato a giovedì"), so no shared word is needed.
    The two must be about each other above every other line of the context (``about``, as the change
    test picks the memory a change is about: one direction only let "il codice del cancello è 1957"
    correct an order number), and it must hold a value of the kind asked, and be one of the lines about
    the question or name a rare word of the line it corrects (``may_correct``).
    """
    vectors = _passage_vectors(lines)
    chain = [line]
    if not vectors:
        return chain
    asked = _kinds_asked(value)
    for _ in range(MAX_CORRECTIONS):
        current = chain[-1]
        current_kinds = _value_kinds(current.text)
        if asked is not None:
            current_kinds &= asked
        later = [
            x
            for x in lines
            if x not in chain
            and not _copies(x, current)
            and said_after(x, current)
            and may_correct(x, current)
            and _holds(value, _statements(x.text), question, vocabulary)
            and _value_kinds(x.text, current.text) & current_kinds
            and change_cue(_statements(x.text))
            and _denies_only(x.text, current.text)
            and judge(current.text, x.text, closeness=float(vectors[current] @ vectors[x])).relation == "supersedes"
            and _most_about(x, current, lines, vectors)
            and _most_about(current, x, lines, vectors)
        ]
        if not later:
            break
        newest = later[0]
        for x in later[1:]:
            if said_after(x, newest):
                newest = x
        chain.append(newest)
    return chain


def _copies(a: Line, b: Line) -> bool:
    """One line, or a copy of the other: a summary line keeps a message's words, fewer of them."""
    x, y = words(a.text), words(b.text)
    return a is b or (bool(x and y) and (x <= y or y <= x))


def _placed_after(x: Line, y: Line) -> bool | None:
    """Whether the context's own order puts ``x`` after ``y``; None where it does not say.

    Lines of one kind are in the order they were said (memories by id); the window is the
    latest of a conversation; a day apart orders anything dated. A memory's time is not in
    the context, nor where a summary line of a day stands among that day's excerpts."""
    if x.source == y.source and x.source in ("memory", "summary", "excerpt", "window"):
        return x.order > y.order
    if "memory" in (x.source, y.source):
        return None
    if "window" in (x.source, y.source):
        return x.source == "window"
    if x.date and y.date and x.date != y.date:
        return x.date > y.date
    return None


def said_after(x: Line, y: Line) -> bool:
    """Whether ``x`` was said after ``y``: by the context's order where it says (``_placed_after``),
    else by which of the two changes the other (the memories' change test: "the rota changed, from
    next month 4 on 3 off" after "my rota is 3 on 4 off"), the other saying no change of its own
    ("adesso siamo a 14 ettari" is news too); when neither says, it was not."""
    placed = _placed_after(x, y)
    if placed is not None:
        return placed
    x_changes, y_changes = bool(statement_changes(y.text, x.text)), bool(statement_changes(x.text, y.text))
    return x_changes and not y_changes and not cue_in(y.text, x.text)


def replaced(line: Line, newer: Line) -> bool:
    """Whether ``newer``, said after ``line``, says that it changed it: a change cue ``line`` lacks
    ("put the rent up to 5200", "now", "instead") or the change test; a newer remark that only
    mentions the same thing ("an 'about us' for the bakery, starter from my gran") replaces nothing."""
    return said_after(newer, line) and bool(cue_in(newer.text, line.text) or statement_changes(line.text, newer.text))


def _newer(x: Line, line: Line) -> bool:
    """Later in the context where its order says (``_placed_after``: a summary line's place among the
    excerpts of its day is unknown, so "First week at Monzo done" is no newer than the summary's "My new
    manager at Monzo is called Fiona"), or an active memory (current) beside what an older conversation held."""
    if (placed := _placed_after(x, line)) is not None:
        return placed
    return (x.source == "memory" or x.replaces) and line.source in ("summary", "excerpt", "other")


def _current(line: Line, lines: list[Line]) -> Line:
    """``line``, or the newer line that changed it ("I moved from Rome to Turin" for "I live in
    Rome"), even when that one shares no word with the question; it must share one with ``line``
    (what both are about), so an unrelated change ("the visit moved to 11:15") never stands in."""
    # An active memory is current by construction (a superseded one is never recalled), and a
    # memory line's place in the context says nothing of when it was said: a line of the
    # window that differs from it is older news, never its replacement.
    if line.source == "memory":
        return line
    words = _subject_words(line.text) - _GENERAL
    changed = [
        x
        for x in lines
        if x is not line and _newer(x, line) and words & _subject_words(x.text) and statement_changes(line.text, x.text)
    ]
    return max(changed, key=lambda x: x.order) if changed else line


def _replaces_value(line: Line, newer: Line, question: str = "", value: re.Pattern[str] = _VALUE) -> bool:
    """Whether ``newer`` names the value ``line`` held ("I moved from Rome to Turin" for "I live in Rome").

    A value the question names is what both are about ("the meeting with Conti"), not the one asked;
    of a question asking for a number or a time only such values count ("il CAF ha chiamato, mi hanno
    spostata al 27 maggio" names the CAF of "ho fatto l'ISEE al CAF, è uscito 18.400", not its amount).
    """
    said = {fold(w) for w in content_words(question)}
    values = {fold(v) for v in _NAME_VALUE.findall(_statements(line.text))} - said
    if value is _NUMBER_VALUE or value is _WHEN_VALUE:
        values = {v for v in values if value.search(v)}
    return bool(values & {fold(v) for v in _NAME_VALUE.findall(newer.text)})


def _subject_words(text: str) -> set[str]:
    return {fold(w) for w in content_words(_statements(text)) if len(w) > 2 and not w.isdigit()}


def _unique(lines: list[Line]) -> list[Line]:
    """One line per thing said: of near-identical lines the newest stays, or a memory holding a value the
    other lacks (current: a memory corrected where it came from keeps the statement's words, "staff number
    40863" for "… 40883")."""
    kept: list[Line] = []
    for line in sorted(lines, key=lambda x: x.order, reverse=True):
        same = next((i for i, k in enumerate(kept) if near_identical(line.text, k.text)), None)
        if same is None:
            kept.append(line)
        elif line.source == "memory" and _values(line.text) - _values(kept[same].text):
            kept[same] = line
    return kept


_VECTORS: dict[str, Any] = {}
_VECTORS_MAX = 4096


def _passage_vectors(lines: list[Line]) -> dict[Line, Any]:
    """Each line's e5 passage vector (of what it states), kept per process; none without embeddings."""
    if not embeddings.enabled():
        return {}
    said = {line: _statements(line.text) for line in lines}
    vectors = _statement_vectors(list(said.values()))
    return {line: vectors[text] for line, text in said.items()}


def _statement_vectors(texts: list[str]) -> dict[str, Any]:
    """The e5 passage vector of each text, kept per process: the summary and memories come back turn
    after turn."""
    missing = list(dict.fromkeys(text for text in texts if text not in _VECTORS))
    if missing:
        if len(_VECTORS) > _VECTORS_MAX:
            _VECTORS.clear()
        _VECTORS.update(zip(missing, embeddings.passage_vectors(missing), strict=True))
    return {text: _VECTORS[text] for text in texts}


def _meaning_margins(question: str, lines: list[Line]) -> dict[int, float]:
    """For the lines beyond the window, how far each one's cosine to ``question`` exceeds unrelated statements'.

    "Qual è il mio numero d'ordine?" shares no word with "my order number is A-7781";
    the multilingual embedding sees that they are about the same thing. Vectors of lines
    are kept per process: the summary and memories come back turn after turn.
    """
    if not embeddings.enabled():
        return {}
    index = [i for i, line in enumerate(lines) if line.source != "window"][-MEANING_CANDIDATES:]
    if not index:
        return {}
    said = {i: _statements(lines[i].text) for i in index}
    vectors = _statement_vectors(list(said.values()))
    query = embeddings.query_vector(question)
    unrelated = embeddings.unrelated_similarity(query)
    return {i: float(vectors[said[i]] @ query) - unrelated for i in index}


def where(line: Line, *, lang: str) -> str:
    """Where a quoted line comes from, in the reply's language (``lang``)."""
    replies = language.words(lang).REPLIES
    if line.source == "memory":
        return str(replies["from_memory"])
    if line.source == "summary":
        label = str(replies["summary"])
        return f"{label}, {line.date}" if line.date else label
    if line.source == "other":
        return f"{replies['conversation']} “{line.title}”, {line.date}"
    if line.source == "excerpt":
        return f"{replies['message']} #{line.sequence}, {line.date}"
    return str(replies["this_conversation"])
