"""The query side of retrieval: its content words and the dates it names.

Shared by history search (``conversations.search``) and memory recall
(``memories.recall``), so both read a question the same way.
"""

from __future__ import annotations

import re

from liamemory.stopwords import STOP_WORDS

# How many candidates each method hands on, and how much of a question is read.
CANDIDATE_POOL = 400
MAX_QUERY_TERMS = 32
MAX_QUERY_CHARS = 2000

_WORD_RE = re.compile(r"\w+(?:[-.]\w+)*")


def query_terms(query: str) -> list[str]:
    """The content words of ``query``, lower-cased, de-duplicated, in order.

    Elided Italian articles ("dell'ordine") and English contractions are split at the
    apostrophe. Tokens are made only of word characters, hyphens and dots, so they are
    safe to quote inside a tsquery.
    """
    text = (query or "")[:MAX_QUERY_CHARS].lower().replace("’", "'").replace("'", " ")
    terms: list[str] = []
    for token in _WORD_RE.findall(text):
        token = token.strip("_")
        if not token or token in STOP_WORDS:
            continue
        if len(token) < 2 and not token.isdigit():
            continue
        if token not in terms:
            terms.append(token)
        if len(terms) >= MAX_QUERY_TERMS:
            break
    return terms


def tsquery_text(terms: list[str]) -> str:
    """A tsquery of the terms, OR-ed: a message need not contain every word of a question."""
    # OR semantics: a message need not contain every word of a question.
    return " | ".join(f"'{t}'" for t in terms)


_MONTHS = {
    name: number
    for names in (
        "january february march april may june july august september october november december",
        "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    )
    for number, name in enumerate(names.split(), start=1)
}
_MONTHS.update({name[:3]: number for name, number in list(_MONTHS.items())[:12] if name != "may"})
_MONTHS["sept"] = 9
_WEEKDAYS = {  # ISO: Monday 1 .. Sunday 7
    name: number
    for names in (
        "monday tuesday wednesday thursday friday saturday sunday",
        "lunedì martedì mercoledì giovedì venerdì sabato domenica",
    )
    for number, name in enumerate(names.split(), start=1)
}
_WEEKDAYS.update({"lunedi": 1, "martedi": 2, "mercoledi": 3, "giovedi": 4, "venerdi": 5})
_YEAR_RE = re.compile(r"(?:19|20)\d\d")


def date_terms(query: str) -> list[tuple[str, int]]:
    """The dates a query names, as ``(part, value)`` for ``date_part``: month, year, ISO weekday.

    "May" counts as the month only when capitalised and not the first word ("May I
    ask..." and "you may" do not).
    """
    found: list[tuple[str, int]] = []
    words = re.findall(r"\w+", (query or "")[:MAX_QUERY_CHARS])
    for i, word in enumerate(words):
        lower = word.lower()
        if lower == "may" and (i == 0 or word != "May"):
            continue
        if lower in _MONTHS:
            term = ("month", _MONTHS[lower])
        elif lower in _WEEKDAYS:
            term = ("isodow", _WEEKDAYS[lower])
        elif _YEAR_RE.fullmatch(word):
            term = ("year", int(word))
        else:
            continue
        if term not in found:
            found.append(term)
    return found
