"""What a running turn writes besides its trace: the lock its writes hold, and its end.

``turn_complete`` is the one atomic write of a finished turn, each step a line: the
messages and the thread's token totals (``conversations``, which schedules their
vectors), the run's end (``agents``), the memories the context used (``memories``), and
the summary job, enqueued at commit.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from agents.context_report import ContextReport
from agents.models import Run
from agents.run_lifecycle import RunId, run_finish, run_lock_active
from conversations.services import messages_append
from liamemory.task_sending import task_send_on_commit
from memories.services import memory_touch_used
from usecases.tasks import check_message_changes, summarize_thread


def turn_lock(*, run_id: RunId) -> Run:
    """Lock the run's row, check it still runs and its thread exists (the run is read with
    its thread: a deleted thread finds no run), until the transaction ends.

    Every write of a running turn takes it (``turn_complete``, each tool call): a cancel,
    an erasure or a thread deletion updates or deletes those rows, so it either waits for
    the write to commit (and then removes what it wrote) or the write finds the run ended
    and does nothing.
    """
    return run_lock_active(run_id=run_id)


def turn_complete(
    *,
    run_id: RunId,
    new_messages: list[dict[str, Any]],
    usage: dict[str, int],
    model: str,
    report: ContextReport | None,
    tokens_sent: int,
    tokens_full_resend: int,
    error_code: str = "",
    error_message: str = "",
    memory_allowed: bool = False,
) -> None:
    """Persist the turn's new messages and finish the run, in one atomic write.

    The run row is locked and must still be ``running``: a run cancelled or erased
    meanwhile writes nothing. Thread totals are bumped incrementally. With an
    ``error_code`` (the step cap) the run ends ``failed`` with its messages kept, so
    the conversation has no tool call left without its answer. With ``memory_allowed`` the person's
    message is then put to the change check (``usecases.memory_changes``), at commit.
    """
    with transaction.atomic():
        run = turn_lock(run_id=run_id)
        messages_append(
            thread=run.thread,
            items=[{"role": m["role"], "content": m["content"], "agent": run.agent, "run": run} for m in new_messages],
            tokens_sent=tokens_sent,
            tokens_full_resend=tokens_full_resend,
        )
        run_finish(
            run=run,
            usage=usage,
            model=model,
            report=report,
            tokens_full_resend=tokens_full_resend,
            error_code=error_code,
            error_message=error_message,
        )
        if report and report.memory_ids:
            memory_touch_used(memory_ids=list(report.memory_ids))
        if memory_allowed and not error_code and run.request_message_id is not None:
            task_send_on_commit(check_message_changes, run.request_message_id)
        if settings.MEMORY_SUMMARY_ENABLED:
            task_send_on_commit(summarize_thread, str(run.thread_id), str(run.pk))
