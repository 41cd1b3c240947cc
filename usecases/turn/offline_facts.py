"""What the offline model stores unasked: a stable personal fact said in passing.

The real model is told to store durable facts the user states about themselves
(``registry``'s instructions); the offline model does the same through the same
``remember_fact`` tool, so the cap, the duplicates and the review rules apply alike. It
stores a sentence that states one: where the person works, lives or moved, who their
relatives and pets are, an allergy or a diet, an appointment with its date or time, an
identifier with its code. Questions, opinions, wishes and small talk are never stored: a
wrong memory costs more than a missed one (the person can still say "remember that …").
The words are in ``liamemory.language``.
"""

from __future__ import annotations

import re

from conversations.facts import find_facts
from liamemory import language

MAX_CHARS = 180

_FLAGS = re.IGNORECASE
_STABLE = [re.compile(p, _FLAGS) for p in language.patterns("STABLE_FACT")]
_APPOINTMENT = re.compile(language.alternation("APPOINTMENT"), _FLAGS)
_IDENTIFIER_WORD = re.compile(language.alternation("IDENTIFIER"), _FLAGS)
_NOT_A_FACT = re.compile(language.alternation("NOT_A_FACT"), _FLAGS)
_DAY = language.alternation("WEEKDAYS_MONTHS")
_WHEN = re.compile(f"{_DAY}|\\b\\d{{1,2}}(?::\\d{{2}})?\\s?(?:am|pm)\\b", _FLAGS)
_FIRST_PERSON = re.compile(language.any_word("FIRST_PERSON"), _FLAGS)
_CLOCK = re.compile(language.alternation("CLOCK"), _FLAGS)
_DAY_AND_MONTH = re.compile(f"(?:{_DAY})\\s+\\d{{1,2}}\\b|\\b\\d{{1,2}}(?:st|nd|rd|th)?\\s+(?:{_DAY})", _FLAGS)
_POSSESSIVE = re.compile(language.any_word("POSSESSIVES"), _FLAGS)
_CODE = re.compile(r"(?=[\w/-]*\d)[A-Za-z0-9][\w/-]{2,}")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
# Openers that carry nothing: "oh", "also", "btw", "random one,", "and".
_OPENER = re.compile(rf"^(?:(?:{language.alternation('OPENERS')})\b[\s,.:;!-]*)+", _FLAGS)


def stable_fact(text: str) -> str | None:
    """The sentence of ``text`` that states a stable personal fact, ready to store; else None.

    A message that ends by asking about the person's own things ("… Qual è il mio piatto preferito?")
    is a question, whatever it says before.
    """
    sentences = [s.strip() for s in _SENTENCES.split(text or "") if s.strip()]
    if sentences and sentences[-1].endswith("?") and _POSSESSIVE.search(sentences[-1]):
        return None
    for sentence in sentences:
        if sentence.endswith("?") or _NOT_A_FACT.search(sentence):
            continue
        if _states_a_fact(sentence):
            return _memory_text(sentence)
    return None


def _states_a_fact(sentence: str) -> bool:
    if any(p.search(sentence) for p in _STABLE):
        return True
    if _APPOINTMENT.search(sentence) and (_WHEN.search(sentence) or _dated(sentence)):
        return True
    dated = _CLOCK.search(sentence) or _DAY_AND_MONTH.search(sentence)
    if dated and _FIRST_PERSON.search(sentence) and _WHEN.search(sentence):
        return True
    return bool(_IDENTIFIER_WORD.search(sentence) and _CODE.search(sentence))


def _dated(sentence: str) -> bool:
    return any(re.search(r"\d", f) for f in find_facts(sentence))


def _memory_text(sentence: str) -> str:
    """The sentence without openers, at most ``MAX_CHARS``, cut at a clause if longer."""
    text = _OPENER.sub("", sentence).strip(" ,;:-")
    text = text[:1].upper() + text[1:]
    if len(text) <= MAX_CHARS:
        return text
    cut = max(text.rfind(sep, 0, MAX_CHARS) for sep in (", ", " - ", " so ", " but ", " and "))
    return (text[:cut] if cut > 40 else text[: MAX_CHARS - 1]).rstrip(" ,;:-")
