"""The one home of the language heuristics (English and Italian word lists and patterns).

Summaries, matching, retrieval, context and the offline model read their words from here;
adding a language is one module beside ``en`` and ``it`` defining the same names (a test
checks that they do). Nothing here touches the database.

Each module holds word sets (``frozenset``), word tuples, tables (``dict``) and regex
sources (a string, or a tuple of alternatives). Callers take one language's words with
``words("it")``, or every language's at once with ``union``, ``patterns`` and ``table``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType
from typing import Any

# Every module of this package is a language, named by its ISO 639-1 code.
LANGUAGES: dict[str, ModuleType] = {
    info.name: importlib.import_module(f"{__name__}.{info.name}")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
}


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
    return tuple(p for value in _every(name) for p in ((value,) if isinstance(value, str) else value))


def alternation(name: str) -> str:
    """``patterns(name)`` as one regex source: ``(?:a)|(?:b)|…``."""
    return "|".join(f"(?:{p})" for p in patterns(name))


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
