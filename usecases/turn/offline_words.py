"""The offline model's vocabulary: the content words of a text (the words are in ``liamemory.language``)."""

from __future__ import annotations

import re
import unicodedata

from liamemory import language

STOPWORDS = language.union("SHORT_STOP_WORDS")
_WORD = re.compile(r"[\w\-€$.,/&]+", re.U)


def fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def content_words(text: str) -> set[str]:
    words = {w.strip(".,").lower() for w in _WORD.findall(text)}
    return {w for w in words if w and w not in STOPWORDS and len(w) > 1}
