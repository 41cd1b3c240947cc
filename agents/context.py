"""Context assembly: what one model call sees. One function, easy to read and test.

Order (DESIGN.md, "A chat turn"): the stable part first — common identity, the agent's
instructions, tool definitions — marked for the provider's prompt cache; after it what
changes every turn: the rolling summary and the user's relevant long-term memories,
with the rule that what the user says now wins; then the window of recent messages cut
at whole turns and trimmed to the token budget; the agent's critical constraints are
re-asserted at the very end. Volatile data (today's date) only ever comes from tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from agents import tools as agent_tools
from agents.registry import COMMON_IDENTITY, AgentSpec
from agents.window import cut_to_whole_turns, drop_oldest_turn
from conversations.models import Message, MessageRole, Thread, ThreadSummary
from conversations.selectors import corrections_of, message_window, summary_current
from conversations.tokens import estimate_message, estimate_messages, estimate_text, history_budget
from memories import retrieval
from memories.models import Memory
from memories.selectors import long_term_memory_allowed, pinned_memories

SUMMARY_HEADING = "Summary of the conversation so far:"
MEMORY_HEADING = "What you already know about this user (long-term memory):"
OVERRIDE_LINE = "If the user's current messages contradict anything remembered above, what the user says now wins."


@dataclass
class Context:
    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    info: dict[str, Any] = field(default_factory=dict)


def relevant_memories(
    *, user, thread: Thread, agent: AgentSpec, query: str, limit: int = 8, allowed: bool | None = None
) -> list[Memory]:
    """Pinned kinds first, then the memories most similar to the message.

    ``allowed``: the turn's memory switch when the caller already knows it.
    """
    if allowed is None:
        allowed = long_term_memory_allowed(user=user, thread=thread)
    if not allowed:
        return []
    pinned = pinned_memories(user=user, kinds=agent.pinned_kinds, limit=limit) if agent.pinned_kinds else []
    seen = {m.id for m in pinned}
    hits = [h.memory for h in retrieval.search_memories(user=user, query=query, limit=limit) if h.memory.id not in seen]
    return (pinned + hits)[: max(limit, len(pinned))]


def rows_to_api_messages(rows: list[Message]) -> list[dict[str, Any]]:
    """Message rows in the Anthropic wire shape; ``tool`` rows travel as user tool_result blocks.

    Consecutive messages of one wire role are merged, as the API expects alternation.
    """
    out: list[dict[str, Any]] = []
    for row in rows:
        if row.role == MessageRole.SYSTEM:
            role, blocks = "user", [{"type": "text", "text": f"[Note from the system: {row.text}]"}]
        elif row.role == MessageRole.TOOL:
            role, blocks = "user", list(row.content)
        else:
            role, blocks = row.role, list(row.content)
        if out and out[-1]["role"] == role:
            out[-1]["content"] = out[-1]["content"] + blocks
        else:
            out.append({"role": role, "content": blocks})
    return out


def with_late_corrections(rows: list[Message], *, thread: Thread, request_message: Message) -> list[Message]:
    """Keep a correction note with the statement it corrects, right after it.

    A note always comes after its statement, so one in the window range is already in
    ``rows``. Only a note written after the message this run answers (a retry or a
    regenerate of an older turn) is missing: it is put right after its statement. No
    query unless the thread has grown past that message.
    """
    if not rows or thread.next_sequence <= request_message.sequence + 1:
        return rows
    notes = corrections_of(message_ids=[r.pk for r in rows])
    out: list[Message] = []
    for row in rows:
        out.append(row)
        out.extend(n for n in notes.get(row.pk, []) if n.sequence > request_message.sequence)
    return out


def _system_blocks(agent: AgentSpec, summary: ThreadSummary | None, memories: list[Memory]) -> list[dict[str, Any]]:
    stable = f"{COMMON_IDENTITY}\n\n{agent.instructions}"
    blocks: list[dict[str, Any]] = [{"type": "text", "text": stable, "cache_control": {"type": "ephemeral"}}]
    dynamic = []
    if summary:
        dynamic.append(f"{SUMMARY_HEADING}\n{summary.text}")
    if memories:
        lines = "\n".join(f"- [{m.kind} #{m.id}] {m.content}" for m in memories)
        dynamic.append(f"{MEMORY_HEADING}\n{lines}\n{OVERRIDE_LINE}")
    if dynamic:
        blocks.append({"type": "text", "text": "\n\n".join(dynamic)})
    return blocks


def _reassert(messages: list[dict[str, Any]], agent: AgentSpec) -> None:
    if not agent.constraints or not messages:
        return
    reminder = "Reminder of your constraints: " + " ".join(agent.constraints)
    messages[-1] = {**messages[-1], "content": [*messages[-1]["content"], {"type": "text", "text": reminder}]}


def build_context(
    *, thread: Thread, agent: AgentSpec, user, request_message: Message, memory_allowed: bool | None = None
) -> Context:
    summary = summary_current(thread=thread) if settings.MEMORY_SUMMARY_ENABLED else None
    covered = summary.covers_through if summary else 0

    rows = [
        r
        for r in message_window(thread=thread, size=settings.MEMORY_WINDOW)
        if covered < r.sequence <= request_message.sequence
    ]
    rows = with_late_corrections(rows, thread=thread, request_message=request_message)
    messages = cut_to_whole_turns(rows_to_api_messages(rows))
    memories = relevant_memories(
        user=user, thread=thread, agent=agent, query=request_message.text, allowed=memory_allowed
    )
    system = _system_blocks(agent, summary, memories)
    tools = agent_tools.definitions(agent.tools, kinds=agent.memory_kinds)

    budget = history_budget(
        context_window=settings.MODEL_CONTEXT_WINDOW,
        reserved_for_answer=settings.TOKENS_RESERVED_FOR_ANSWER,
        margin=settings.TOKEN_BUDGET_MARGIN,
    )
    # The cacheable prefix (tools, identity, instructions) is sent by any design; the
    # full-history baseline is that prefix plus every message, with no summary or memories.
    prefix = estimate_text(system[0]["text"]) + estimate_messages(tools)
    fixed = prefix + sum(estimate_text(b["text"]) for b in system[1:])
    dropped_items = 0
    while fixed + estimate_messages(messages) > budget:
        messages, n = drop_oldest_turn(messages)
        if not n:
            break
        dropped_items += n
    _reassert(messages, agent)

    first_seq = rows[0].sequence if rows else request_message.sequence
    estimated = fixed + estimate_messages(messages)
    return Context(
        system=system,
        messages=messages,
        tools=tools,
        info={
            "summary_version": summary.version if summary else None,
            "summary_covers_through": covered,
            "memory_ids": [m.id for m in memories],
            "window_first_sequence": first_seq,
            "window_last_sequence": request_message.sequence,
            "window_messages": len(messages),
            "dropped_for_budget": dropped_items,
            # Older than the window yet in no summary: still reachable by search_history.
            "uncovered_messages": max(0, first_seq - 1 - covered),
            "estimated_tokens": estimated,
            "prefix_tokens": prefix,
            "full_resend_tokens": prefix + thread.history_tokens + estimate_message({"role": "user", "content": ""}),
            "budget": budget,
        },
    )
