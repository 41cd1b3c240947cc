"""A thread's rolling summary, brought up to date after a turn and traced on the turn's run."""

from __future__ import annotations

import contextlib
import uuid

from agents.models import TraceKind
from agents.run_lifecycle import RunNoLongerActive, trace_record
from agents.selectors import run_get_by_id
from conversations.summary_services import SummaryOutcome, thread_summary_update
from memories.matching.change import statement_changes


def thread_summarize(
    *,
    thread_id: uuid.UUID | str,
    run_id: uuid.UUID | str | None = None,
    force: bool = False,
    use_model: bool | None = None,
    claim: str | None = None,
) -> SummaryOutcome:
    """A new summary version when it pays (``conversations.summary_services``), and a
    ``summary`` trace event on the run that triggered the job, if it still exists.

    The newest statement wins in it: a statement that the memories' change test
    (``statement_changes``) finds changed by a newer one leaves the summary.

    ``claim``: the task id, so that a redelivered job takes over its own claim.
    Raises ``liamemory.llm.ModelError`` when the fast model fails; nothing is written.
    """
    outcome = thread_summary_update(
        thread_id=thread_id, change_judge=statement_changes, force=force, use_model=use_model, claim=claim
    )
    if run_id and outcome.trace is not None and run_get_by_id(run_id=run_id) is not None:
        with contextlib.suppress(RunNoLongerActive):  # deleted with its thread meanwhile
            trace_record(
                run_id=run_id,
                kind=TraceKind.SUMMARY,
                name="summarize_thread",
                payload=outcome.trace.payload,
                tokens_in=outcome.trace.tokens_in,
                tokens_out=outcome.trace.tokens_out,
                duration_ms=outcome.trace.duration_ms,
            )
    return outcome
