"""Identifiers, amounts, dates and numbers: what a summary must never lose.

Found in the compressed span, compared with the summary as whole tokens (a fact
"18" is not kept by "#184", nor "A-77" by "A-7781"), and the lost ones are added
back on a "Key facts:" line. Nothing here writes to the database or logs text.
"""

from __future__ import annotations

import re

from liamemory import language

KEY_FACTS_PREFIX = "Key facts:"
# The key-facts line is capped so a thread full of numbers cannot blow the budget;
# facts are kept in first-seen order, so the early ones (the ones at risk of being
# summarized away) are the ones that stay.
KEY_FACTS_MAX = 60

# --- Facts: identifiers, amounts, dates, numbers ------------------------------------

# Month names and their short forms, the longest first ("june" before "jun").
_MONTHS = "|".join(
    sorted(
        language.numbered("MONTHS").keys() | language.table("MONTH_ABBREVIATIONS").keys(),
        key=lambda name: (-len(name), name),
    )
)
# dates: 2026-03-14, 14/03/2026, 14 March 2026, March 14, 2026
_DATE_PATTERNS = [
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?",
    r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}",
    rf"\d{{1,2}}\s+(?:{_MONTHS})\b\.?(?:\s+\d{{4}})?",
    rf"(?:{_MONTHS})\b\.?\s+\d{{1,2}}(?:{language.alternation('ORDINAL_SUFFIXES')})?(?:,?\s+\d{{4}})?",
]
_FACT_PATTERNS = [
    # e-mail addresses and URLs
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    r"https?://[^\s<>\"')\]]+[^\s<>\"').,;:!?\]]",
    # amounts with a currency: €1,250.00, $ 30, 1.250,00 EUR, 40 euro
    r"[€$£¥]\s?\d[\d.,']*\d|[€$£¥]\s?\d",
    r"\d[\d.,']*\s?(?:€|EUR|USD|GBP|CHF|euros?|dollars?)(?![\w])",
    *_DATE_PATTERNS,
    # identifiers: letters and digits joined (A-7781, INV-2026-001, SKU12345, #4521)
    r"(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9]+(?:[-_/][A-Za-z0-9]+)+",
    r"[A-Z]{2,}\d+[A-Z\d]*",
    r"#\d+",
    # times, percentages, and numbers with two or more digits or decimals
    r"\d{1,2}:\d{2}",
    r"\d+(?:[.,]\d+)*\s?%",
    r"\d[\d,.']*\d",
]
# "#31" after "message" or in "[#31, …]" points at a message of the thread (excerpts and
# the answers quoting them cite them so): a place in the conversation, not a fact of it.
_MESSAGE = language.alternation("MESSAGE_WORDS")
_MESSAGE_OR_SHORT = "|".join(p for p in (_MESSAGE, language.alternation("MESSAGE_ABBREVIATIONS")) if p)
_MESSAGE_REFERENCE_BEFORE = re.compile(rf"(?:\b(?:{_MESSAGE_OR_SHORT})|\[)\s*$", re.IGNORECASE)
# ... and the date that follows it in such a citation ("message #31, 2026-03-01").
_CITED_DATE_BEFORE = re.compile(rf"(?:\b(?:{_MESSAGE})|\[)\s*#\d+,\s*$", re.IGNORECASE)
_FACT_RE = re.compile(r"(?<![\w@/.-])(?:" + "|".join(f"(?:{p})" for p in _FACT_PATTERNS) + r")", re.IGNORECASE)
_DATE_RE = re.compile(
    r"(?<![\w@/.-])(?:" + "|".join(f"(?:{p})" for p in _DATE_PATTERNS) + r")(?![\w/-])", re.IGNORECASE
)
_TRAILING = ".,;:"


def find_facts(text: str) -> list[str]:
    """Identifiers, amounts, dates and numbers in ``text``, in order, without duplicates.

    A match contained in a longer one ("7781" in "A-7781") is not a fact of its own.
    """
    spans: list[tuple[int, int]] = []
    for match in _FACT_RE.finditer(text):
        start, end = match.span()
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        before = text[max(0, start - 24) : start]
        if (text[start] == "#" and _MESSAGE_REFERENCE_BEFORE.search(before)) or _CITED_DATE_BEFORE.search(before):
            continue
        if end > start:
            spans.append((start, end))
    facts: list[str] = []
    seen: set[str] = set()
    for start, end in spans:
        if any(s <= start and end <= e and (s, e) != (start, end) for s, e in spans):
            continue
        fact = text[start:end].strip()
        if fact and fact not in seen:
            seen.add(fact)
            facts.append(fact)
    return facts


def has_date(text: str) -> bool:
    """Whether ``text`` names a calendar date ("14 March", "oct 3", "2026-03-14"), not merely a number."""
    return _DATE_RE.search(text) is not None


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# What may touch a fact in running text without making it another token: spaces and
# sentence punctuation, not letters, digits or the joiners of identifiers.
_JOINED_BEFORE = r"[\w#@/.,'€$£¥-]"
_JOINED_AFTER = r"[\w/%@€$£¥-]|[.,']\w"


def fact_in_text(fact: str, text: str) -> bool:
    """Whether ``text`` holds ``fact`` as a whole token, not inside a longer one."""
    pattern = rf"(?<!{_JOINED_BEFORE}){re.escape(_normalized(fact))}(?!{_JOINED_AFTER})"
    return re.search(pattern, _normalized(text)) is not None


def lost_facts(*, source: str, summary: str) -> list[str]:
    """Facts of ``source`` that ``summary`` does not hold as whole tokens.

    A fact found the same way in the summary is held ("18" of "18th" is held by "18th").
    """
    held = set(find_facts(summary))
    return [f for f in find_facts(source) if f not in held and not fact_in_text(f, summary)]


def with_key_facts(*, body: str, source: str) -> tuple[str, int]:
    """``body`` plus a "Key facts:" line listing what it lost of ``source``; and their count."""
    body = strip_key_facts(body).rstrip()
    missing = lost_facts(source=source, summary=body)[:KEY_FACTS_MAX]
    if not missing:
        return body, 0
    return f"{body}\n{KEY_FACTS_PREFIX} {'; '.join(missing)}".lstrip(), len(missing)


def strip_key_facts(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(KEY_FACTS_PREFIX))
