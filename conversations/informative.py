"""Whether a message carries information worth quoting back to a model.

An excerpt of the history stands in for something said long ago; a reply that says
nothing ("I don't have information about that", "non lo so"), one that only restates
the question it answers, or a second copy of a row already quoted is filler: it costs
tokens and pushes out what was said. Tool traffic is not speech at all and never gets
this far (``conversations.search`` leaves it out of the history search's scope). The
words are in ``liamemory.language``.
"""

from __future__ import annotations

import functools
import re

from liamemory import language

# The offline model labels every reply; the label is not content.
_LABEL = re.compile(r"^\s*\(offline model\)\s*", re.I)
_NO_INFORMATION = re.compile(language.alternation("NO_INFORMATION"), re.I)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_FUNCTION = language.union("FUNCTION_WORDS")
_BUT = re.compile(language.any_word("CONTRAST_WORDS"), re.I)
_YES_NO = re.compile(rf"^\W*(?:{language.word_alternatives('YES_NO')})\b", re.I)
# A quoted excerpt inside a reply: what it quotes is a row of its own.
_QUOTED = re.compile(r"“([^”]{12,})”")


def words(text: str) -> set[str]:
    """The content words of ``text``, lower-cased (function words out)."""
    return {w for w in (x.lower().replace("’", "'") for x in _WORD.findall(text)) if w not in _FUNCTION}


def says_nothing(text: str) -> bool:
    """A reply whose every sentence is a refusal, "I don't know", or nothing found.

    "I don't know the exact hours, but the museum opens at 9 on weekdays" carries the
    second half; only a reply made of nothing else says nothing.
    """
    body = _LABEL.sub("", text or "").strip()
    if not body:
        return True
    sentences = [s.strip() for s in _SENTENCES.split(body) if words(s)]
    if not sentences or not _nothing(sentences[0]):
        return False
    return all(_nothing(s) or _acknowledges(s) for s in sentences[1:])


def _nothing(sentence: str) -> bool:
    # "I don't know the exact hours, but it opens at 9": the rest of it carries something.
    return bool(_NO_INFORMATION.match(sentence)) and not _BUT.search(sentence)


def _acknowledges(sentence: str) -> bool:
    # The second sentence of the offline model's refusal offers to take notes; a real
    # model's adds a courtesy. Neither carries a name, a number or more than a few words.
    return len(words(sentence)) <= 4 and not re.search(r"\d|(?<=\s)[A-Z]", sentence)


def restates(reply: str, *, asked: str) -> bool:
    """A reply that only repeats the words of the message it answers (no new word, no yes or no)."""
    body = _LABEL.sub("", reply or "")
    said = words(body)
    return bool(asked.strip()) and not _YES_NO.match(body) and said <= words(asked)


# A task given to the assistant ("can you write …", "scrivimi …"), one that needs a value of the
# person's ("… use her name"), and a naming, which states something even inside a task.
_TASK = re.compile(
    rf"^\W*(?:(?:{language.alternation('POLITE_OPENERS')})\s+)?(?:{language.alternation('TASK_REQUESTS')})\b", re.I
)
# A word that heads news ("update: they moved us to gate C4") gives no task.
_HEADING = re.compile(r"^\W*\w+(?:\s+\w+){0,3}\s*:")
_USES_A_VALUE = re.compile(rf"\b(?:{language.alternation('USE_A_VALUE')})\b", re.I)
_NAMING = [re.compile(p, re.I) for p in language.patterns("NAMING")]


def gives_a_task(sentence: str) -> bool:
    """A sentence that gives the assistant a task ("can you write …", "scrivimi …"), not news headed by such a word."""
    return bool(_TASK.match(sentence)) and not _HEADING.match(sentence)


def only_tasks(text: str) -> bool:
    """A message that only gives the assistant a task, and asks: "mi scrivi una mail al collega? usa
    il suo nome". Quoted back, it answers nothing: the value it needs was said elsewhere."""
    sentences = [s.strip() for s in _SENTENCES.split(_LABEL.sub("", text or "")) if words(s)]
    if not any(gives_a_task(s) for s in sentences) or any(p.search(text) for p in _NAMING):
        return False
    return all(asks(s) or gives_a_task(s) or _USES_A_VALUE.search(s) for s in sentences)


# A question about the person's own things: "my …", or one that asks to recall ("what did I tell you?").
_PERSONAL = re.compile(rf"{language.any_word('POSSESSIVES')}|\b(?:{language.alternation('RECALL_REQUEST')})\b", re.I)
_STATES = [re.compile(p, re.I) for p in (*language.patterns("STABLE_FACT"), *language.patterns("NAMING"))]
# A value a sentence can hold: a number, or a capitalised word inside it (a name, a place).
_VALUE = re.compile(r"\d|(?<!^)(?<![.!?]\s)\b(?-i:[A-Z][a-z]+)")


def asks_back(text: str) -> bool:
    """A question about the person's own things, with only remarks beside it ("what's my shop
    called? my kid bet me you wouldn't know"): asked again later, it answers nothing."""
    sentences = [s.strip() for s in _SENTENCES.split(_LABEL.sub("", text or "")) if words(s)]
    asking = [s for s in sentences if asks(s)]
    if not asking or not any(_PERSONAL.search(s) for s in asking):
        return False
    said = [s for s in sentences if not asks(s)]
    return not any(_VALUE.search(s) or any(p.search(s) for p in _STATES) for s in said)


@functools.lru_cache(maxsize=4096)
def carries_nothing(text: str, *, role: str, asked: str = "") -> bool:
    """Whether a message of ``role`` is filler as an excerpt (``asked``: what a reply answers).

    Cached: the context judges a hit once among the search's hits and again among the
    exchanges around them, a few dozen regular expressions each time.

    A message of questions only asks, so does a question about the person's own things
    with remarks beside it, and one of tasks for the assistant only asks for work;
    otherwise what the person said carries something, and a reply does unless it says
    nothing or restates ``asked``.
    """
    if only_asks(text) or (role == "user" and (only_tasks(text) or asks_back(text))):
        return True
    if role != "assistant":
        return not (text or "").strip()
    return says_nothing(text) or restates(text, asked=asked)


# A clause that asks without a question mark, at the start of a sentence or after a comma, the
# words that open a chat sentence and say nothing before it ("ok whats my locker code", "wait whats …").
_OPENING = rf"\W*(?:(?:{language.alternation('INTERJECTIONS')}|{language.alternation('ASKING_LEADS')})\b\W*){{0,2}}"
_ASKING_CLAUSE = re.compile(
    rf"(?:^|[,;:]|\s[-–]){_OPENING}(?:{language.alternation('ASKING_CLAUSE')})\b"
    rf"|^{_OPENING}(?:{language.alternation('ASKING_SENTENCE')})\b",
    re.I,
)


# A sentence that opens as a question does: a question word or an opener of asking ("why do cats
# knead", "remind me …", "ricordami …"), or a verb that opens a yes/no question before its subject
# ("is it bad to …", "can u make …").
_ASKING_OPENING = re.compile(
    rf"^\W*(?:(?:{language.word_alternatives('QUESTION_WORDS')}|{language.alternation('ASKING_OPENERS')})\b"
    rf"|(?:{language.word_alternatives('QUESTION_VERBS')})\s+(?:{language.word_alternatives('QUESTION_SUBJECTS')})\b)",
    re.I,
)


def asks(text: str, *, openings: bool = False) -> bool:
    """Whether a sentence of ``text`` asks: it ends with a question mark, or a clause of it opens as a
    question does. People type questions without one ("whats the lockbox code", "mercury wants our
    account number again, what was it"): read as statements, they went unanswered and stood as
    excerpts that carry nothing.

    ``openings``: a sentence opening with any question word or yes/no verb asks too, unless it gives
    the assistant a task ("can you suggest a dinner"). That reads the message being answered now
    ("why do cats knead"); a line quoted back may open so and state ("When I was little we lived in
    Rome"), so lines to quote are read without it."""
    return any(
        s.rstrip().endswith("?")
        or _ASKING_CLAUSE.search(s)
        or (openings and bool(_ASKING_OPENING.match(s.strip())) and not gives_a_task(s))
        for s in _SENTENCES.split(text or "")
    )


def only_asks(text: str) -> bool:
    """A message made only of questions: asked again later, it is no answer to itself."""
    sentences = [s.strip() for s in _SENTENCES.split(_LABEL.sub("", text or "")) if words(s)]
    return bool(sentences) and all(asks(s) for s in sentences)


def near_identical(a: str, b: str) -> bool:
    """Two texts that say the same: one holds the other, or they share nearly all their words.

    A reply that quotes an earlier message holds it ("Earlier you said: “…”").
    """
    (x, wa), (y, wb) = _normal(a), _normal(b)
    if not x or not y:
        return False
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    if len(short) >= 12 and short in long:
        return True
    # Every word counts here: "When is Maeve coming?" is not "Maeve is coming this weekend".
    # The share cannot reach 0.8 when one set is under 0.8 of the other's size (the common case).
    if 5 * min(len(wa), len(wb)) < 4 * max(len(wa), len(wb)):
        return False
    return len(wa & wb) / len(wa | wb) >= 0.8


def quotes(text: str) -> list[str]:
    """The passages ``text`` quotes between “ and ”."""
    return _QUOTED.findall(text or "")


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> tuple[str, frozenset[str]]:
    """The text's words lower-cased and joined, and their set (cached: a search compares each hit with each)."""
    found = _WORD.findall(_LABEL.sub("", text or "").lower())
    return " ".join(found), frozenset(found)
