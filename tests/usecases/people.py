"""A person with something stored at every level, built through the product's services."""

from __future__ import annotations

from agents import run_lifecycle
from agents.context_report import ContextReport
from conversations.models import Thread, ThreadSummary
from conversations.services import thread_create
from memories.services import memory_correct, memory_remember
from usecases import turns as run_services
from usecases.turn.writes import turn_complete


def person_with_data(user, *, threads: int = 1, marker: str = "") -> list[Thread]:
    """``threads`` conversations of one completed turn each (tool call included), a
    summary version, trace events, and memories with provenance and an audited correction."""
    made = []
    for i in range(threads):
        thread = thread_create(owner=user, title=f"{marker}trip {i}")
        message, run = run_services.turn_submit(
            user=user, thread=thread, content=f"{marker}remember my order number is AB-{i}42"
        )
        assert run_lifecycle.run_claim(run_id=str(run.id))
        run_lifecycle.trace_record(run_id=str(run.id), kind="context", name="build", payload={"window": [1, 1]})
        tool_use = {"type": "tool_use", "id": f"toolu_{i}", "name": "remember_fact", "input": {"content": "AB"}}
        turn_complete(
            run_id=str(run.id),
            new_messages=[
                {"role": "assistant", "content": [{"type": "text", "text": "Noting it."}, tool_use]},
                {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "ok"}]},
                {"role": "assistant", "content": [{"type": "text", "text": f"{marker}Remembered AB-{i}42."}]},
            ],
            usage={"input_tokens": 120, "output_tokens": 30},
            model="offline",
            report=ContextReport(),
            tokens_sent=120,
            tokens_full_resend=120,
        )
        ThreadSummary.objects.create(
            thread=thread, version=1, text=f"{marker}Order AB-{i}42.", covers_through=2, model="offline"
        )
        outcome = memory_remember(
            user=user,
            content=f"{marker}order number is AB-{i}42",
            source_thread=thread,
            source_message=message,
            source_run=run,
            writer_name="assistant",
        )
        memory_correct(actor=user, memory=outcome.memory, content=f"{marker}order number is AB-{i}43")
        made.append(thread)
    return made
