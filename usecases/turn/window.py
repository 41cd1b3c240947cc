"""Cutting a history at whole turns, for both tool-call shapes model APIs use.

A *turn* starts at a user message that is not a tool result. Everything up to the
next such message (assistant text, tool calls, tool results) belongs to it, so a cut
made only at turn starts never separates a tool call from its result:

- Anthropic blocks: assistant ``tool_use`` + user ``tool_result`` blocks;
- Responses items: ``function_call`` + ``function_call_output`` items.
"""

from __future__ import annotations

from typing import Any

CONTINUATION_ITEM_TYPES = {"function_call", "function_call_output", "reasoning"}


def is_turn_start(item: dict[str, Any]) -> bool:
    if item.get("type") in CONTINUATION_ITEM_TYPES or item.get("role") != "user":
        return False
    content = item.get("content")
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return True


def turn_starts(items: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(items) if is_turn_start(item)]


def cut_to_whole_turns(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop leading items until the first turn start (an orphaned tail of an older turn)."""
    starts = turn_starts(items)
    return items[starts[0] :] if starts else []


def drop_oldest_turn(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Remove the oldest whole turn; returns the rest and how many items went.

    The last turn (the current message) is never dropped.
    """
    starts = turn_starts(items)
    if len(starts) < 2:
        return items, 0
    return items[starts[1] :], starts[1]
