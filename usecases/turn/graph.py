"""The LangGraph graph of one chat turn, made of small nodes.

    load_context → call_model ⇄ run_tools → persist
                              ↘ (step cap) stop_at_step_limit → persist

State is this turn's working set only: the new assistant and tool messages, step
count and usage. The assembled context lives in an untracked channel: it is rebuilt
from the database when a run resumes, so checkpoints never hold a copy of the thread.
Tools get the user, thread and run from the runtime the runner built from the run's
config ids, never from the model.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from typing import Annotated, Any, TypedDict

from django.contrib.auth.models import User
from langgraph.channels import UntrackedValue
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agents import run_lifecycle
from agents.context_report import context_report_read
from agents.models import Run, RunErrorCode, TraceKind
from agents.streaming import release_db_connection
from conversations.models import Message, Thread
from conversations.tokens import estimate_messages
from liamemory.llm import ChatModel
from usecases.turn import tools as agent_tools
from usecases.turn.context import Context, build_context
from usecases.turn.registry import AgentSpec
from usecases.turn.writes import turn_complete

STEP_LIMIT_TEXT = "I stopped here: this request needed more tool steps than I am allowed in one turn."
STEP_LIMIT_ERROR = "This reply needed more than the {steps} steps allowed in one turn; it stopped there."


@dataclass
class TurnRuntime:
    """What a run's graph reads, loaded once per execution by the runner (``_runtime``)."""

    run: Run
    thread: Thread
    user: User
    agent: AgentSpec
    model: ChatModel
    # The user's message this turn answers (a queued run always has one).
    request_message: Message
    # The memory switch, decided once for the turn (``memories.selectors.long_term_memory_allowed``).
    memory_allowed: bool
    # Publishes the reply while it is written (agents/streaming.py); None writes it only at the end.
    stream: Any = None


class TurnState(TypedDict, total=False):
    new: list[dict[str, Any]]
    steps: int
    usage: dict[str, int]
    sent: int
    full_resend: int
    model: str
    latency_ms: int
    # The context report's JSON (``agents.context_report``): checkpointed, so a resumed run
    # still records what its prompt held. Read back with ``context_report_read``.
    info: dict[str, Any]
    # Set when the turn ends short of an answer (the step cap): the run's error code.
    error_code: str
    context: Annotated[dict[str, Any], UntrackedValue(dict)]


def initial_state() -> TurnState:
    """Every checkpointed key, reset: a run continues its thread's checkpoint, so a key left
    out here would keep the previous run's value (its ``error_code`` failed every later run)."""
    return {
        "new": [],
        "steps": 0,
        "usage": {},
        "sent": 0,
        "full_resend": 0,
        "model": "",
        "latency_ms": 0,
        "info": {},
        "error_code": "",
    }


def _wire(new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": "user" if m["role"] == "tool" else "assistant", "content": m["content"]} for m in new]


def _context(state: TurnState, rt: TurnRuntime) -> Context:
    return build_context(
        thread=rt.thread,
        agent=rt.agent,
        user=rt.user,
        request_message=rt.request_message,
        memory_allowed=rt.memory_allowed,
    )


def _untracked(ctx: Context) -> dict[str, Any]:
    """The context as the untracked channel holds it (never checkpointed: no copy needed)."""
    return {f.name: getattr(ctx, f.name) for f in fields(ctx)}


def load_context(state: TurnState, runtime: Runtime[TurnRuntime]) -> TurnState:
    rt = runtime.context
    started = time.monotonic()
    ctx = _context(state, rt)
    report = ctx.report
    stored = report.as_json()
    # The context's three trace events in one INSERT (one commit), where each was its own.
    traces = [
        run_lifecycle.Trace(
            TraceKind.RETRIEVAL,
            "memories",
            {
                "query_chars": len(rt.request_message.text),
                "memory_ids": list(report.memory_ids),
                "summary_version": report.summary_version,
            },
            duration_ms=int((time.monotonic() - started) * 1000),
        )
    ]
    if report.excerpts:
        traces.append(
            run_lifecycle.Trace(
                TraceKind.RETRIEVAL,
                "excerpts",
                {"excerpts": stored["excerpts"], "before_sequence": report.window_first_sequence},
                tokens_in=report.excerpt_tokens,
            )
        )
    traces.append(
        run_lifecycle.Trace(TraceKind.CONTEXT, "build_context", stored, tokens_in=report.estimated_tokens or 0)
    )
    run_lifecycle.traces_record(run_id=rt.run.pk, traces=traces)
    return {"context": _untracked(ctx), "info": stored}


def call_model(state: TurnState, runtime: Runtime[TurnRuntime]) -> TurnState:
    rt = runtime.context
    ctx = Context(**state["context"]) if state.get("context") else _context(state, rt)
    new = state.get("new", [])
    messages = ctx.messages + _wire(new)
    # No database connection is held while the model writes (a pooled one goes back).
    release_db_connection()
    reply = rt.model.complete(
        system=ctx.system,
        messages=messages,
        tools=ctx.tools,
        max_tokens=rt.agent.max_tokens,
        on_text=rt.stream.text if rt.stream else None,
    )
    if rt.stream:
        rt.stream.end_message()
    sent = (ctx.report.estimated_tokens or 0) + estimate_messages(_wire(new))
    run_lifecycle.trace_record(
        run_id=rt.run.pk,
        kind=TraceKind.MODEL_CALL,
        name=reply.model,
        payload={
            "request_messages": len(messages),
            "estimated_input_tokens": sent,
            "stop_reason": reply.stop_reason,
            "cache_read_tokens": reply.usage.cache_read_tokens,
            "cache_write_tokens": reply.usage.cache_write_tokens,
            "tool_calls": [b["name"] for b in reply.tool_uses],
        },
        tokens_in=reply.usage.input_tokens,
        tokens_out=reply.usage.output_tokens,
        duration_ms=reply.latency_ms,
    )
    usage = dict(state.get("usage") or {})
    for key, value in asdict(reply.usage).items():
        usage[key] = usage.get(key, 0) + value
    return {
        "new": [*new, {"role": "assistant", "content": reply.content}],
        "steps": state.get("steps", 0) + 1,
        "usage": usage,
        "sent": state.get("sent", 0) + sent,
        "full_resend": state.get("full_resend", 0)
        + (ctx.report.full_resend_tokens or 0)
        + estimate_messages(_wire(new)),
        "model": reply.model,
        "latency_ms": state.get("latency_ms", 0) + reply.latency_ms,
        "context": _untracked(ctx),
    }


def _tool_result_block(tool_use_id: str, result: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": json.dumps(result, ensure_ascii=False),
    }
    if result.get("ok") is False:
        block["is_error"] = True
    return block


def run_tools(state: TurnState, runtime: Runtime[TurnRuntime]) -> TurnState:
    rt = runtime.context
    report = context_report_read(state.get("info"))
    window_first = report.window_first_sequence if report else None
    tool_ctx = agent_tools.ToolContext(
        user=rt.user,
        thread=rt.thread,
        run=rt.run,
        agent=rt.agent,
        window_first_sequence=rt.request_message.sequence if window_first is None else window_first,
        memory_allowed=rt.memory_allowed,
    )
    blocks = []
    for call in [b for b in state["new"][-1]["content"] if b.get("type") == "tool_use"]:
        if rt.stream:
            rt.stream.tool(call["name"])
        started = time.monotonic()
        try:
            result = agent_tools.execute(call["name"], call.get("input"), tool_ctx)
        except agent_tools.ApprovalRequired as wait:
            decision = interrupt(wait.payload)
            result = {
                "ok": True,
                "approved": bool(decision.get("approved")),
                "by": decision.get("by", "staff"),
                "note": decision.get("note", ""),
            }
        run_lifecycle.trace_record(
            run_id=rt.run.pk,
            kind=TraceKind.TOOL_CALL,
            name=call["name"],
            payload={"arguments": call.get("input"), "result": result},
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        blocks.append(_tool_result_block(call["id"], result))
    return {"new": [*state["new"], {"role": "tool", "content": blocks}]}


def stop_at_step_limit(state: TurnState, runtime: Runtime[TurnRuntime]) -> TurnState:
    """The last tool results get a closing reply, and the run will end ``failed`` with ``step_limit``."""
    closing = {"role": "assistant", "content": [{"type": "text", "text": STEP_LIMIT_TEXT}]}
    return {"new": [*state["new"], closing], "error_code": RunErrorCode.STEP_LIMIT}


def persist(state: TurnState, runtime: Runtime[TurnRuntime]) -> TurnState:
    rt = runtime.context
    turn_complete(
        run_id=rt.run.pk,
        new_messages=state["new"],
        usage=state.get("usage") or {},
        model=state.get("model") or rt.model.name,
        report=context_report_read(state.get("info")),
        tokens_sent=state.get("sent", 0),
        tokens_full_resend=state.get("full_resend", 0),
        error_code=state.get("error_code", ""),
        error_message=STEP_LIMIT_ERROR.format(steps=rt.agent.max_steps) if state.get("error_code") else "",
        memory_allowed=rt.memory_allowed,
    )
    return {}


def after_model(state: TurnState, runtime: Runtime[TurnRuntime]) -> str:
    last = state["new"][-1]
    return "run_tools" if any(b.get("type") == "tool_use" for b in last["content"]) else "persist"


def after_tools(state: TurnState, runtime: Runtime[TurnRuntime]) -> str:
    return "stop_at_step_limit" if state.get("steps", 0) >= runtime.context.agent.max_steps else "call_model"


def build_graph(checkpointer: Any) -> CompiledStateGraph[TurnState, TurnRuntime, TurnState, TurnState]:
    graph = StateGraph(TurnState, context_schema=TurnRuntime)
    graph.add_node("load_context", load_context)
    graph.add_node("call_model", call_model)
    graph.add_node("run_tools", run_tools)
    graph.add_node("stop_at_step_limit", stop_at_step_limit)
    graph.add_node("persist", persist)
    graph.add_edge(START, "load_context")
    graph.add_edge("load_context", "call_model")
    graph.add_conditional_edges("call_model", after_model, ["run_tools", "persist"])
    graph.add_conditional_edges("run_tools", after_tools, ["call_model", "stop_at_step_limit"])
    graph.add_edge("stop_at_step_limit", "persist")
    graph.add_edge("persist", END)
    return graph.compile(checkpointer=checkpointer)
