"""The query side of retrieval: its content words and the dates it names.

Shared by history search (``conversations.search``) and memory recall
(``memories.recall``), so both read a question the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


# Kinds of things (``language`` KINDS): what names each, the single words that show one and
# a pattern that shows one where no word list can ("5mg"), every language's together.
_KINDS = {kind: [m.KINDS[kind] for m in language.LANGUAGES.values()] for kind in language.words(language.DEFAULT).KINDS}
_KIND_NAMES = {kind: frozenset(w for names, _, _ in entries for w in names) for kind, entries in _KINDS.items()}
_KIND_CUES = {kind: frozenset(w for _, cues, _ in entries for w in cues) for kind, entries in _KINDS.items()}
_KIND_PATTERNS = {
    kind: re.compile("|".join(f"(?:{p})" for _, _, p in entries if p), re.I) for kind, entries in _KINDS.items()
}


def _words(text: str) -> set[str]:
    """Every word of ``text``, lower-cased, and each English plural's singular ("beagles": "beagle")."""
    found = set(_WORD_RE.findall((text or "")[:MAX_QUERY_CHARS].lower().replace("’", "'").replace("'", " ")))
    return found | {w[:-1] for w in found if len(w) > 3 and w.endswith("s")}


def _kinds(words: set[str], text: str) -> tuple[set[str], set[str]]:
    """The kinds ``text`` names and the kinds it shows one of (by a word or the kind's pattern)."""
    named = {kind for kind, names in _KIND_NAMES.items() if words & names}
    shown = {
        kind
        for kind, cues in _KIND_CUES.items()
        if words & cues or (_KIND_PATTERNS[kind].pattern and _KIND_PATTERNS[kind].search(text))
    }
    return named, shown


def kind_terms(query: str) -> list[str]:
    """Words to look for besides the query's own: what shows one of the kinds it names, and the
    names of the kinds it shows one of.

    "what's my dog's name?" is answered by "Biscuit … he's a beagle", "how old is my beagle?"
    by "our dog is nine": the stating turn and the question share neither a word nor, by
    e5-small's cosine, a meaning (bench/README.md, "Every fact reaches the context").
    """
    words = _words(query)
    named, shown = _kinds(words, query)
    extra = {w for kind in named for w in _KIND_CUES[kind]} | {w for kind in shown - named for w in _KIND_NAMES[kind]}
    return sorted(extra - words - STOP_WORDS)


def kinds_linked(query: str, *, naming: bool = False) -> Callable[[str], bool] | None:
    """A test of whether a text shows one of the kinds ``query`` names, or names a kind ``query`` shows
    one of ("which blood pressure pill am I on?" / "I'm on Ramipril 5mg"); None when it has none.

    ``naming``: a text that names a kind the query names by another word links too: another language's
    ("my cat" / "il mio gatto", "la padrona di casa" / "our landlady") or a synonym ("tablet" / "pill"),
    which no shared word finds. Within one word the two share it, so this adds only those."""
    q_named, q_shown = _kinds(_words(query), query)
    if not (q_named or q_shown):
        return None

    def linked(text: str) -> bool:
        named, shown = _kinds(_words(text), text)
        return bool(q_named & shown or q_shown & named or (naming and q_named & named))

    return linked


def kind_words(query: str) -> frozenset[str]:
    """The words of ``query`` that name one of the kinds or show one ("dog" in "what's my dog
    called?", "beagle" in "how old is my beagle?"): what a line linked by ``kinds_linked`` answers."""
    words = _words(query)
    every = set().union(*_KIND_NAMES.values(), *_KIND_CUES.values())
    return frozenset(words & every)


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
