"""The query side of retrieval: its content words and the dates it names.

Shared by history search (``conversations.search``) and memory recall
(``memories.recall``), so both read a question the same way.
"""

from __future__ import annotations

import re

from liamemory import language

# How many candidates each method hands on, and how much of a question is read.
CANDIDATE_POOL = 400
MAX_QUERY_TERMS = 32
MAX_QUERY_CHARS = 2000

# Function words and the words of asking about the past ("what did I say about…"),
# which name the act of asking, not what is asked about.
STOP_WORDS = language.union("STOP_WORDS") | language.union("RECALL_WORDS")
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


def tsquery_text(terms: list[str], *, every: bool = False) -> str:
    """A tsquery of the terms, OR-ed: a message need not contain every word of a question
    (AND-ed with ``every``: the messages that hold them all)."""
    return (" & " if every else " | ").join(f"'{t}'" for t in terms)


_MONTHS = language.numbered("MONTHS") | language.table("MONTH_ABBREVIATIONS")
# ISO: Monday 1 .. Sunday 7; not the abbreviations ("sun", "sat" and "wed" are words too).
_WEEKDAYS = language.numbered("WEEKDAYS") | language.table("WEEKDAY_SPELLINGS")
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
