"""Content blocks in the Anthropic shape and their plain text."""

from __future__ import annotations

import json
from typing import Any


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


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
