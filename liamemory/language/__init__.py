"""The one home of the language heuristics (English and Italian word lists and patterns).

Summaries, matching, retrieval, context and the offline model read their words from here;
adding a language is one module beside ``en`` and ``it`` defining the same names (a test
checks that they do). Nothing here touches the database.

Each module holds word sets (``frozenset``), word tuples, tables (``dict``) and regex
sources (a string, or a tuple of alternatives; "" where the language has none). Callers
take one language's words with ``words("it")``, or every language's at once with
``union``, ``patterns``, ``table`` and ``entries``; ``detect`` says which language a text
is in. A few tables are keyed by use, not by word (``KEYED``): every language has the
same keys there.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata
from types import ModuleType
from typing import Any

# Every module of this package is a language, named by its ISO 639-1 code.
LANGUAGES: dict[str, ModuleType] = {
    info.name: importlib.import_module(f"{__name__}.{info.name}")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
}


# The language a text is in when nothing says otherwise.
DEFAULT = "en"
# Tables keyed by what they are for (a rule, a reply), not by a word.
KEYED = ("CLAIM_GRAMMAR", "RELATIVE_DATES", "DATE_LABELS", "REPLIES", "KINDS")


def words(lang: str) -> ModuleType:
    """The word lists and patterns of ``lang`` ("en", "it")."""
    return LANGUAGES[lang]


def _every(name: str) -> list[Any]:
    return [getattr(module, name) for module in LANGUAGES.values()]


def union(name: str) -> frozenset[str]:
    """The word set or tuple ``name`` of every language, as one set."""
    return frozenset(word for value in _every(name) for word in value)


def patterns(name: str) -> tuple[str, ...]:
    """The regex alternatives ``name`` of every language, in language order."""
    return tuple(p for value in _every(name) for p in ((value,) if isinstance(value, str) else value) if p)


def alternation(name: str) -> str:
    """``patterns(name)`` as one regex source: ``(?:a)|(?:b)|…``."""
    return "|".join(f"(?:{p})" for p in patterns(name))


def entries(name: str, key: str) -> dict[str, str]:
    """Each language's entry ``key`` of its table ``name`` (a ``KEYED`` table), by language; none empty."""
    return {lang: entry for lang, module in LANGUAGES.items() if (entry := getattr(module, name)[key])}


def entry_alternation(name: str, key: str) -> str:
    """The entry ``key`` of the table ``name`` in every language, as one regex source."""
    return "|".join(f"(?:{p})" for p in entries(name, key).values())


def word_alternatives(*names: str) -> str:
    """The words of ``names`` in every language as regex alternatives, the longest first."""
    found = frozenset().union(*(union(name) for name in names))
    return "|".join(re.escape(w) for w in sorted(found, key=lambda w: (-len(w), w)))


def any_word(*names: str) -> str:
    """A regex source matching any word of ``names`` in any language, as a whole word."""
    return rf"\b(?:{word_alternatives(*names)})\b"


def numbered(name: str) -> dict[str, int]:
    """The names ``name`` of every language by their place, from 1 (``numbered("MONTHS")["maggio"] == 5``)."""
    return {word: number for value in _every(name) for number, word in enumerate(value, start=1)}


def table(name: str) -> dict[str, Any]:
    """The table ``name`` of every language merged (a word is in one language's table)."""
    merged: dict[str, Any] = {}
    for value in _every(name):
        merged.update(value)
    return merged


_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _fold(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower()


def _only_in(lang: str) -> frozenset[str]:
    """The function words only ``lang`` uses."""
    others = frozenset().union(*(m.FUNCTION_WORDS for code, m in LANGUAGES.items() if code != lang))
    return frozenset(LANGUAGES[lang].FUNCTION_WORDS - others)


_ONLY = {lang: _only_in(lang) for lang in LANGUAGES}


def detect(text: str) -> str:
    """The language ``text`` reads as: the one with the most words only it uses (accented forms
    folded) and letters only it writes; ``DEFAULT`` on a tie. A guess for short chat messages."""
    found = _WORD.findall((text or "").lower())
    scores = {
        lang: sum(1 for w in found if w in only or _fold(w) in only)
        + sum((text or "").count(letter) for letter in LANGUAGES[lang].LETTERS)
        for lang, only in _ONLY.items()
    }
    best = max(scores.values())
    return DEFAULT if scores[DEFAULT] == best else next(lang for lang, score in scores.items() if score == best)
