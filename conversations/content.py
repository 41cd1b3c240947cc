"""Content blocks in the Anthropic shape and their plain text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# The last block of a reply the person stopped while it was being written: the model
# reads it in later turns' context; the pages show a "stopped" mark instead.
STOPPED_MARK = "[Stopped by the user before the reply was finished.]"


def stopped_reply_content(text: str) -> list[dict[str, Any]]:
    """A stopped reply's content: the words written until then, and the mark."""
    return [text_block(text), text_block(STOPPED_MARK)]


def is_stopped(content: list[dict[str, Any]]) -> bool:
    return any(b.get("type") == "text" and b.get("text") == STOPPED_MARK for b in content)


def correction_text(*, sequence: int, who: str, by: str, about: str, right_value: str) -> str:
    """A correction note's first block: what is wrong, the right value, ignore the earlier statement.

    It never repeats the wrong value, so a summary can keep it whole. ``who`` said the
    statement ("the user", "the assistant"); ``by`` corrected it ("the user", "staff").
    ``correction_words`` reads it back.
    """
    subject = f" about {about}" if about else ""
    return (
        f"Correction by {by} of message #{sequence}: what {who} said there{subject} is wrong; "
        f"the right value is: {right_value}. Ignore the earlier statement."
    )


_CORRECTION = re.compile(
    r"Correction by (?P<by>.+?) of message #\d+: what (?:the user|the assistant) said there"
    r"(?: about (?P<about>.+?))? is wrong; the right value is: (?P<value>.*)\. Ignore the earlier statement\.",
    re.DOTALL,
)


@dataclass(frozen=True)
class CorrectionWords:
    """A correction as the person gave it: the right value, what it is about, who corrected."""

    right_value: str
    about: str
    by: str


def correction_words(content: list[dict[str, Any]]) -> CorrectionWords | None:
    """The right value and subject a correction note was written from (``correction_text``), or None."""
    match = _CORRECTION.fullmatch(correction_without_quote(content))
    if match is None:
        return None
    return CorrectionWords(right_value=match["value"], about=match["about"] or "", by=match["by"])


def correction_without_quote(content: list[dict[str, Any]]) -> str:
    """The correction of a correction note without its quote of the wrong statement.

    A note's first text block is the correction (what is wrong, the right value, ignore
    the earlier statement); the second quotes the statement. A summary keeps the first only.
    """
    texts = [b.get("text", "") for b in content if b.get("type") == "text"]
    return texts[0] if texts else ""


def blocks_to_text(blocks: list[dict[str, Any]]) -> str:
    """The searchable plain text of a message: text blocks, tool inputs and results."""
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "tool_use":
            parts.append(f"[{block.get('name')}] {json.dumps(block.get('input', {}), ensure_ascii=False)}")
        elif kind == "tool_result":
            inner = block.get("content", "")
            parts.append(inner if isinstance(inner, str) else blocks_to_text(inner))
    return "\n".join(p for p in parts if p)
