"""Tools the model may call: definitions written for the model, and their execution.

The user, thread and run always come from the run's config (``ToolContext``), never
from the model's arguments: a model asked to read another user's memory has no way to
name that user. Every result is structured; a refusal is
``{"ok": false, "error": "...", "how_to_fix": "..."}`` so the model can act on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from agents.models import Run
from conversations.models import Thread
from conversations.search import informative_hits, search_history
from conversations.selectors import corrections_of
from memories.models import Memory, MemoryKind
from memories.recall import search_memories
from memories.services import MemoryWriteRefused, memory_forget, memory_remember
from usecases.turn.registry import AgentSpec
from usecases.turn.writes import turn_lock

MAX_QUERY_CHARS = 500


@dataclass
class ToolContext:
    user: User
    thread: Thread
    run: Run
    agent: AgentSpec
    # Messages from this sequence on are already in the context window.
    window_first_sequence: int
    memory_allowed: bool


# Sent with every model call (and so paid for on every turn): each description says
# what the model cannot infer from the name and schema, and no more. These are the
# full schemas, used to check arguments; ``definitions()`` narrows ``kind`` per agent
# and leaves out what only the offline model passes (``OFFLINE_ONLY``).
DEFINITIONS: dict[str, dict[str, Any]] = {
    "remember_fact": {
        "name": "remember_fact",
        "description": (
            "Store one durable fact about the user as a plain statement of at most 180 characters, e.g. "
            "'prefers replies in Italian'. A near-repeat updates the stored fact; a contradiction replaces it."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "content": {"type": "string"},
                "importance": {"type": "integer", "minimum": 1, "maximum": 5},
                "kind": {"type": "string", "enum": list(MemoryKind.values)},
                # The offline model's: a change said in passing is kept only if it replaces a memory,
                # a correction only if it corrects one drawn from this conversation.
                "only_if_it_replaces": {"type": "boolean"},
                "only_if_it_corrects": {"type": "boolean"},
            },
            "required": ["content"],
        },
    },
    "recall_facts": {
        "name": "recall_facts",
        "description": "Search the user's stored facts, best first, with ids. An empty query lists the most important.",
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
    "forget_fact": {
        "name": "forget_fact",
        "description": "Delete one of the user's stored facts by its id.",
        "input_schema": {
            "type": "object",
            "properties": {"memory_id": {"type": "integer"}},
            "required": ["memory_id"],
        },
    },
    "search_history": {
        "name": "search_history",
        "description": "Search older messages of this conversation, beyond your context; returns verbatim excerpts.",
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
    "get_current_date": {
        "name": "get_current_date",
        "description": "Today's date and time (UTC).",
        "input_schema": {"type": "object", "properties": {}},
    },
    "request_approval": {
        "name": "request_approval",
        "description": (
            "Ask staff to approve an action (payment plan, discount, refund) before you promise it. Above the "
            "threshold the conversation waits for their decision; the result says whether it was approved."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "reason": {"type": "string", "description": "What you want to do and why."},
                "amount": {"type": "number", "minimum": 0, "description": "In euros."},
            },
            "required": ["reason", "amount"],
        },
    },
}


# A real model sees the memories in its context and judges a change itself; the offline model
# reads a change's shape only, and leaves to the memory service whether it replaces anything.
OFFLINE_ONLY = {"remember_fact": ("only_if_it_replaces", "only_if_it_corrects")}


class ApprovalRequired(Exception):
    """Raised by a tool that must wait for a staff decision; the graph interrupts on it."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__("approval required")
        self.payload = payload


def definitions(names: tuple[str, ...] | list[str], kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """The definitions sent to the model; ``kind`` offers only the kinds the agent may write.

    An agent that writes one kind gets no ``kind`` argument at all (it defaults to that
    kind); a kind it may not write would only be refused.
    """
    narrowed = []
    for definition in (DEFINITIONS[n] for n in names if n in DEFINITIONS):
        properties = dict(definition["input_schema"]["properties"])
        for name in OFFLINE_ONLY.get(definition["name"], ()):
            properties.pop(name)
        if definition["name"] == "remember_fact" and kinds is not None:
            if len(kinds) > 1:
                properties["kind"] = {"type": "string", "enum": list(kinds)}
            else:
                properties.pop("kind")
        narrowed.append({**definition, "input_schema": {**definition["input_schema"], "properties": properties}})
    return narrowed


def refusal(error: str, how_to_fix: str) -> dict[str, Any]:
    return {"ok": False, "error": error, "how_to_fix": how_to_fix}


def _check_args(name: str, args: Any) -> dict[str, Any] | None:
    """Validate arguments against the tool's schema; a refusal dict when they are wrong."""
    schema = DEFINITIONS[name]["input_schema"]
    if not isinstance(args, dict):
        return refusal("Arguments must be a JSON object.", f"Call {name} with an object matching its schema.")
    missing = [k for k in schema.get("required", []) if k not in args]
    if missing:
        return refusal(f"Missing argument(s): {', '.join(missing)}.", f"Call {name} again with {missing[0]}.")
    unknown = sorted(set(args) - set(schema["properties"]))
    if unknown:
        return refusal(f"Unknown argument(s): {', '.join(unknown)}.", "Use only the arguments the tool defines.")
    types: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
    }
    for key, value in args.items():
        spec = schema["properties"][key]
        expected = types.get(spec.get("type", ""))
        if expected and (not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool)):
            return refusal(f"'{key}' must be a {spec['type']}.", f"Pass '{key}' with that type.")
        if isinstance(value, str) and len(value) > 4 * MAX_QUERY_CHARS:
            return refusal(f"'{key}' is too long.", "Send a shorter value.")
        problem = _check_bounds(key, value, spec)
        if problem:
            return problem
    return None


def _check_bounds(key: str, value: Any, spec: dict[str, Any]) -> dict[str, Any] | None:
    """The schema's ``minimum``, ``maximum`` and ``enum``, which the model is told but may ignore
    (a negative amount was approved "by policy")."""
    if isinstance(value, float) and not math.isfinite(value):
        return refusal(f"'{key}' must be a finite number.", f"Pass '{key}' as an ordinary number.")
    low, high = spec.get("minimum"), spec.get("maximum")
    if isinstance(value, int | float) and ((low is not None and value < low) or (high is not None and value > high)):
        if low is not None and high is not None:
            allowed = f"from {low} to {high}"
        elif low is not None:
            allowed = f"at least {low}"
        else:
            allowed = f"at most {high}"
        return refusal(f"'{key}' must be {allowed}; got {value}.", f"Call again with '{key}' {allowed}.")
    if "enum" in spec and value not in spec["enum"]:
        return refusal(f"'{key}' must be one of {', '.join(map(str, spec['enum']))}.", f"Pick '{key}' from that list.")
    return None


def _memory_off() -> dict[str, Any]:
    return refusal(
        "Long-term memory is off for this conversation (the user turned it off, or the thread is incognito).",
        "Do not store or look up long-term facts here; answer from the conversation itself.",
    )


def _remember_fact(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:

    if not ctx.memory_allowed:
        return _memory_off()
    single = ctx.agent.memory_kinds[0] if len(ctx.agent.memory_kinds) == 1 else MemoryKind.FACT
    kind = args.get("kind", single)
    try:
        outcome = memory_remember(
            user=ctx.user,
            content=args["content"],
            kind=kind,
            importance=args.get("importance", 3),
            writer_type="agent",
            writer_name=ctx.agent.name,
            allowed_kinds=list(ctx.agent.memory_kinds),
            source_thread=ctx.thread,
            source_message=ctx.run.request_message,
            source_run=ctx.run,
            only_if_it_replaces=args.get("only_if_it_replaces", False),
            only_if_it_corrects=args.get("only_if_it_corrects", False),
        )
    except MemoryWriteRefused as refused:
        return refused.as_tool_result()
    # The service words what happened for the model (naming any memory it replaced, so
    # the model does not quote the old value again); kind and text let it quote what it saved.
    return {**outcome.as_tool_result(), "kind": outcome.memory.kind, "content": outcome.memory.content}


def _recall_facts(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:

    if not ctx.memory_allowed:
        return _memory_off()
    query = args["query"].strip()[:MAX_QUERY_CHARS]
    if query:
        found = [(h.memory, h.score) for h in search_memories(user=ctx.user, query=query, limit=10)]
    else:
        found = [(m, 1.0) for m in Memory.objects.for_user(ctx.user).active().order_by("-importance", "-id")[:10]]
    return {
        "ok": True,
        "memories": [
            {"id": m.id, "kind": m.kind, "content": m.content, "rank": rank}
            for rank, (m, _score) in enumerate(found, start=1)
        ],
    }


def _forget_fact(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:

    if not ctx.memory_allowed:
        return _memory_off()
    if not memory_forget(user=ctx.user, memory_id=args["memory_id"]):
        return refusal(
            f"No stored fact with id {args['memory_id']}.", "Call recall_facts to find the id of the fact to forget."
        )
    return {"ok": True, "forgotten": args["memory_id"]}


def _search_history(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:

    query = args["query"].strip()[:MAX_QUERY_CHARS]
    if not query:
        return refusal("The query is empty.", "Pass the words you are looking for.")
    # Filler (refusals, restatements, copies) is left out as in the context's excerpts.
    hits = search_history(thread=ctx.thread, query=query, before_sequence=ctx.window_first_sequence, limit=20)
    hits = informative_hits(hits, query=query, limit=10)
    # An excerpt of a statement that was corrected carries its correction notes.
    notes = corrections_of(message_ids=[h.message_id for h in hits])
    excerpts = []
    for h in hits:
        excerpt = {
            "message_id": h.message_id,
            "sequence": h.sequence,
            "role": h.role,
            "time": h.created_at.isoformat(),
            "text": h.excerpt,
        }
        if h.message_id in notes:
            excerpt["corrected_by"] = [n.text for n in notes[h.message_id]]
        excerpts.append(excerpt)
    return {"ok": True, "excerpts": excerpts}


def _get_current_date(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    now = timezone.now()
    return {
        "ok": True,
        "date": now.date().isoformat(),
        "time_utc": now.strftime("%H:%M"),
        "weekday": now.strftime("%A"),
    }


def _request_approval(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    amount = float(args["amount"])
    if amount <= settings.APPROVAL_THRESHOLD:
        return {"ok": True, "approved": True, "by": "policy", "note": "Below the approval threshold."}
    raise ApprovalRequired({"tool": "request_approval", "reason": args["reason"][:1000], "amount": amount})


EXECUTORS = {
    "remember_fact": _remember_fact,
    "recall_facts": _recall_facts,
    "forget_fact": _forget_fact,
    "search_history": _search_history,
    "get_current_date": _get_current_date,
    "request_approval": _request_approval,
}


# Tools that only read: they take no lock on the run.
READ_ONLY = frozenset({"recall_facts", "search_history", "get_current_date"})


def execute(name: str, args: Any, ctx: ToolContext) -> dict[str, Any]:
    """Run one tool call; unknown tools and bad arguments give a refusal, not an exception."""
    if name not in EXECUTORS or name not in ctx.agent.tools:
        return refusal(f"There is no tool named '{name}'.", f"Use one of: {', '.join(ctx.agent.tools)}.")
    problem = _check_args(name, args)
    if problem:
        return problem
    if name in READ_ONLY:
        # Nothing to keep from a cancel or an erasure: no lock, no transaction (three
        # statements a call fewer); a run that ended meanwhile stops at its next write.
        return EXECUTORS[name](ctx, args)
    # Remember and forget after a cancel answered 200 used to still write: the tool's
    # writes hold the run's lock (``writes.turn_lock``).
    with transaction.atomic():
        turn_lock(run_id=ctx.run.pk)
        return EXECUTORS[name](ctx, args)
