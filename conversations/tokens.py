"""Token estimates without a tokenizer (docs/design.md, "Token accounting").

Characters of every string in a message, nested structures included, divided by 3.2,
plus 4 per message. Deliberately conservative: it serves decisions made before a
call; what the provider reports is recorded after it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

CHARS_PER_TOKEN = 3.2
PER_MESSAGE_OVERHEAD = 4


def count_chars(value: Any) -> int:
    """Characters of every string inside ``value`` (dict keys are structure, not text)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(count_chars(v) for v in value.values())
    if isinstance(value, list | tuple):
        return sum(count_chars(v) for v in value)
    return 0


def estimate_text(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_message(message: Any) -> int:
    return math.ceil(count_chars(message) / CHARS_PER_TOKEN) + PER_MESSAGE_OVERHEAD


def estimate_messages(messages: Iterable[Any]) -> int:
    return sum(estimate_message(m) for m in messages)


def history_budget(*, context_window: int, reserved_for_answer: int, margin: float) -> int:
    """(model window − tokens reserved for the answer) × (1 − margin)."""
    return max(0, int((context_window - reserved_for_answer) * (1 - margin)))
