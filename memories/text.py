"""How a memory reads: one fact, in one voice, without the talk around it.

Every write path (the agents' tools, the API, the admin, the offline model) stores what
``memory_text`` returns, so the memory page, the admin and the export show that text.
"Remember that I'm actually living in Turin now" is stored "I'm living in Turin": the
request ("remember that"), the asides ("actually", "by the way") and the time words
that only mattered in the conversation ("now", "currently") go; the value is then at
the end, where the sentence put it. Names, numbers and case are kept exactly. The
words are in ``liamemory.language`` (English and Italian).
"""

from __future__ import annotations

import re
from functools import cache

from liamemory import language


@cache
def _prefix() -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + language.alternation("MEMORY_FILLER_PREFIXES") + r")\s+", re.IGNORECASE)


@cache
def _filler() -> re.Pattern[str]:
    words = language.alternation("MEMORY_FILLER_WORDS")
    # A filler word between commas takes one comma with it: "I am, actually, 43" → "I am 43".
    return re.compile(rf",?\s*(?<![\w'’-])(?:{words})(?![\w'’-])\s*(?:,(?=\s))?", re.IGNORECASE)


def memory_text(text: str) -> str:
    """The fact ``text`` states, without filler; the text itself when nothing would be left."""
    original = " ".join((text or "").split())
    cleaned = original
    for _ in range(3):  # "Remember that, by the way, …": prefixes can follow each other
        shorter = _prefix().sub("", cleaned, count=1)
        if shorter == cleaned:
            break
        cleaned = shorter
    cleaned = _filler().sub(" ", cleaned)
    cleaned = re.sub(r"\s+([,.;:!?])", r"\1", cleaned)
    cleaned = re.sub(r"([,;:])(?=[,.;:!?]|$)", "", " ".join(cleaned.split()))
    cleaned = cleaned.strip(" ,;:")
    if len(re.findall(r"\w+", cleaned)) < 2:
        return original
    if original[:1].isupper() and cleaned[:1].islower() and not cleaned.startswith(("iPhone", "e-")):
        cleaned = cleaned[0].upper() + cleaned[1:]
    return cleaned
