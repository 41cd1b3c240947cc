"""Writes on runs: submitting a turn, claiming, tracing, finishing, retrying, reaping."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from agents.models import Run, RunErrorCode, RunStatus, TraceEvent
from conversations.content import text_block
from conversations.models import Message, MessageRole, Thread
from conversations.services import message_append, messages_append, thread_autotitle
from liamemory.api import ApplicationError, Conflict
from memories.services import memory_touch_used

logger = logging.getLogger(__name__)


class RunNoLongerActive(Exception):
    """The run was cancelled, erased or taken over: its results must not be written."""


def _enqueue_run(run_id: str) -> None:
    from agents.tasks import execute_run

    transaction.on_commit(lambda: execute_run.delay(run_id))


def _check_content(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise ApplicationError("The message is empty.", {"field": "content"})
    if len(content) > settings.MESSAGE_MAX_CHARS:
        raise ApplicationError(
            f"The message is too long ({len(content)} characters; the limit is {settings.MESSAGE_MAX_CHARS}).",
            {"field": "content", "limit": settings.MESSAGE_MAX_CHARS},
        )
    return content


def _ensure_no_run_waiting(thread: Thread) -> None:
    busy = (
        Run.objects.filter(thread=thread, status__in=[RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.INTERRUPTED])
        .values_list("status", flat=True)
        .first()
    )
    if busy == RunStatus.INTERRUPTED:
        raise Conflict("This conversation is waiting for a staff approval; try again once it is decided.")
    if busy:
        raise Conflict("A reply is still being written for this conversation; wait for it or cancel it.")


def turn_submit(*, user, thread: Thread, content: str) -> tuple[Message, Run]:
    """Save the user's message and a queued run in one transaction; the worker does the rest.

    The message is committed before any model is called, so a model failure never loses
    it. The partial unique index on runs makes concurrent posts to one thread answer
    409 rather than start two runs.
    """
    content = _check_content(content)
    _ensure_no_run_waiting(thread)
    try:
        with transaction.atomic():
            message = message_append(thread=thread, role=MessageRole.USER, content=[text_block(content)])
            if not thread.title:
                thread_autotitle(thread=thread, text=content)
            run = _queue_run(thread=thread, user=user, request_message=message)
    except IntegrityError as exc:
        if "run_one_active_per_thread" in str(exc):
            raise Conflict("A reply is still being written for this conversation; wait for it or cancel it.") from exc
        raise
    return message, run


def _queue_run(*, thread: Thread, user, request_message: Message, retry_of: Run | None = None) -> Run:
    """A queued run for ``request_message``, enqueued once the transaction commits.

    The run records its model: Claude when an API key is configured, else the offline model.
    """
    run = Run.objects.create(
        thread=thread,
        user=user,
        request_message=request_message,
        agent=thread.agent,
        model=settings.CHAT_MODEL if settings.ANTHROPIC_API_KEY else "offline",
        retry_of=retry_of,
        expires_at=_run_expiry(thread),
    )
    _enqueue_run(str(run.id))
    return run


def _run_expiry(thread: Thread) -> datetime | None:
    from governance.retention import run_expires_at

    return run_expires_at(thread=thread, now=timezone.now())


def run_retry(*, run: Run) -> Run:
    """A new run for the same user message, after a failure or a cancel."""
    if run.status not in (RunStatus.FAILED, RunStatus.CANCELLED):
        raise Conflict(f"Only a failed or cancelled run can be retried; this one is {run.status}.")
    _ensure_no_run_waiting(run.thread)
    try:
        with transaction.atomic():
            new = _queue_run(thread=run.thread, user=run.user, request_message=run.request_message, retry_of=run)
    except IntegrityError as exc:
        raise Conflict("A reply is still being written for this conversation.") from exc
    return new


def run_cancel(*, run: Run) -> Run:
    """Stop a run: a worker still busy with it will find it cancelled and write nothing."""
    updated = Run.objects.filter(
        pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.INTERRUPTED]
    ).update(status=RunStatus.CANCELLED, finished_at=timezone.now())
    if not updated:
        run.refresh_from_db()
        raise Conflict(f"This run has already ended ({run.status}).")
    _notify_followers(run.pk)
    run.refresh_from_db()
    return run


def run_claim(*, run_id: str) -> bool:
    """Claim a queued run with one conditional UPDATE; False means someone else has it.

    A redelivered task therefore does nothing twice: only one UPDATE finds it queued.
    """
    return bool(
        Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING, started_at=timezone.now(), attempts=F("attempts") + 1
        )
    )


def trace_record(
    *,
    run_id: str,
    kind: str,
    name: str,
    payload: dict[str, Any],
    tokens_in: int = 0,
    tokens_out: int = 0,
    duration_ms: int = 0,
) -> None:
    """One trace event, written at once so a failed run still shows every step it took."""
    TraceEvent.objects.create(
        run_id=run_id,
        kind=kind,
        name=name,
        payload=payload,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=duration_ms,
    )


RUN_EVENTS_CHANNEL = "liamemory_run_events"


def run_stream_append(*, run_id: str, text: str = "", steps: list[dict[str, Any]] | None = None) -> bool:
    """Append to the reply being written and wake whoever follows the run; False when it is no longer running.

    One statement: the conditional UPDATE (only a ``running`` run takes text, so a
    cancelled or erased run stops streaming) and a ``pg_notify`` that PostgreSQL
    delivers when it commits. The notification carries only the run id: followers
    read what is new from the row, so a lost notification costs latency, never text.
    """
    table = Run._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH u AS (UPDATE {table} SET partial_text = partial_text || %s, "
            "partial_steps = partial_steps || %s::jsonb "
            "WHERE id = %s AND status = %s RETURNING id) "
            "SELECT pg_notify(%s, %s) FROM u",
            [text, json.dumps(steps or []), run_id, RunStatus.RUNNING, RUN_EVENTS_CHANNEL, str(run_id)],
        )
        return cursor.fetchone() is not None


def _notify_followers(run_id) -> None:
    """Wake the requests following this run (its status changed); inside a transaction, at its commit."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [RUN_EVENTS_CHANNEL, str(run_id)])


def _lock_active_run(run_id: str) -> Run:
    run = Run.objects.select_for_update().filter(pk=run_id).first()
    if run is None or run.status != RunStatus.RUNNING:
        raise RunNoLongerActive(run_id)
    if not Thread.objects.filter(pk=run.thread_id).exists():
        raise RunNoLongerActive(run_id)
    return run


def run_complete(
    *,
    run_id: str,
    new_messages: list[dict[str, Any]],
    usage: dict[str, int],
    model: str,
    latency_ms: int,
    context_info: dict[str, Any],
    tokens_sent: int,
    tokens_full_resend: int,
) -> Run:
    """Persist the turn's new messages and finish the run, in one atomic write.

    The run row is locked and must still be ``running``: a run cancelled or erased
    meanwhile writes nothing. Thread totals are bumped incrementally.
    """
    with transaction.atomic():
        run = _lock_active_run(run_id)
        thread = Thread.objects.get(pk=run.thread_id)
        messages_append(
            thread=thread,
            items=[{"role": m["role"], "content": m["content"], "agent": run.agent, "run": run} for m in new_messages],
        )
        Run.objects.filter(pk=run.pk).update(
            status=RunStatus.COMPLETED,
            finished_at=timezone.now(),
            model=model,
            tokens_in=usage.get("input_tokens", 0),
            tokens_out=usage.get("output_tokens", 0),
            tokens_cached=usage.get("cache_read_tokens", 0),
            tokens_cache_write=usage.get("cache_write_tokens", 0),
            tokens_full_resend=tokens_full_resend,
            latency_ms=latency_ms,
            # The streamed copy is redundant once the messages hold the reply.
            partial_text="",
            partial_steps=[],
            # Keep what earlier steps recorded (approval request, staff decision).
            context_info={**(run.context_info or {}), **context_info},
        )
        Thread.objects.filter(pk=thread.pk).update(
            tokens_sent=F("tokens_sent") + tokens_sent,
            tokens_full_resend=F("tokens_full_resend") + tokens_full_resend,
        )
        if context_info.get("memory_ids"):
            memory_touch_used(memory_ids=context_info["memory_ids"])
        _enqueue_summary(str(thread.pk), str(run.pk))
        _notify_followers(run.pk)
    run.refresh_from_db()
    return run


def _enqueue_summary(thread_id: str, run_id: str) -> None:
    if not settings.MEMORY_SUMMARY_ENABLED:
        return
    from conversations.tasks import summarize_thread

    transaction.on_commit(lambda: summarize_thread.delay(thread_id, run_id))


def run_fail(*, run_id: str, code: str, message: str, latency_ms: int | None = None) -> None:
    """Mark a running run failed with a machine-readable code; the user's message stays."""
    if Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
        status=RunStatus.FAILED,
        error_code=code,
        error_message=message[:2000],
        finished_at=timezone.now(),
        latency_ms=latency_ms,
    ):
        _notify_followers(run_id)


def run_interrupt(*, run_id: str, payload: dict[str, Any], context_info: dict[str, Any]) -> bool:
    """The run waits for a staff decision (its state is in the checkpoint)."""
    updated = Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
        status=RunStatus.INTERRUPTED, context_info={**context_info, "approval": payload}
    )
    if updated:
        _notify_followers(run_id)
    return bool(updated)


def run_reap_stale(*, now: datetime | None = None) -> dict[str, Any]:
    """Return runs stuck in ``running`` (their worker died) to ``queued``, or fail them.

    A run is stale when it has been running longer than ``RUN_STALE_AFTER``. It is put
    back in the queue until it has used ``RUN_MAX_ATTEMPTS`` attempts, then failed with
    ``worker_lost``. Each update is conditional on the row still being ``running`` and
    stale, so a reaper racing a worker that just finished changes nothing.
    """
    now = now or timezone.now()
    cutoff = now - settings.RUN_STALE_AFTER
    stale = Run.objects.filter(status=RunStatus.RUNNING, started_at__lt=cutoff)
    with transaction.atomic():
        failed = stale.filter(attempts__gte=settings.RUN_MAX_ATTEMPTS).update(
            status=RunStatus.FAILED,
            error_code=RunErrorCode.WORKER_LOST,
            error_message="The worker handling this run stopped too many times.",
            finished_at=now,
        )
        requeue_ids = list(
            stale.filter(attempts__lt=settings.RUN_MAX_ATTEMPTS)
            .select_for_update(skip_locked=True)
            .values_list("id", flat=True)
        )
        Run.objects.filter(id__in=requeue_ids, status=RunStatus.RUNNING).update(
            status=RunStatus.QUEUED, started_at=None
        )
        for run_id in requeue_ids:
            _enqueue_run(str(run_id))
    logger.info("reaper: %d requeued, %d failed", len(requeue_ids), failed)
    return {"failed": failed, "requeued": len(requeue_ids), "requeued_ids": [str(i) for i in requeue_ids]}


def run_approval_decide(*, run: Run, approved: bool, actor, note: str = "") -> Run:
    """Staff decide an interrupted run; it resumes from its checkpoint with the decision.

    The conditional UPDATE (interrupted → running) lets exactly one decision through.
    """
    with transaction.atomic():
        info = dict(run.context_info or {})
        info["decision"] = {
            "approved": approved,
            "by": getattr(actor, "pk", None),
            "note": note[:1000],
            "at": timezone.now().isoformat(),
        }
        updated = Run.objects.filter(pk=run.pk, status=RunStatus.INTERRUPTED).update(
            status=RunStatus.RUNNING, started_at=timezone.now(), context_info=info
        )
        if not updated:
            raise Conflict("This run is not waiting for an approval.")
        decision = {"approved": approved, "by": "staff", "note": note[:1000]}

        def _enqueue() -> None:
            from agents.tasks import resume_run

            resume_run.delay(str(run.pk), decision)

        transaction.on_commit(_enqueue)
    run.refresh_from_db()
    return run


def thread_fork(*, thread: Thread, checkpoint_id: str) -> Thread:
    """Time travel: a new thread holding the history as it stood at one checkpoint.

    The checkpoint names its run; the fork copies every message before that run's
    reply plus the turn's own messages that the checkpoint had produced so far.
    """
    from agents.checkpointer import shared_saver

    saver = shared_saver()
    tup = saver.get_tuple(
        {"configurable": {"thread_id": str(thread.pk), "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
    )
    if tup is None:
        raise ApplicationError("No such checkpoint in this thread.", {"checkpoint_id": checkpoint_id})
    run = Run.objects.filter(pk=tup.metadata.get("run_id"), thread=thread).select_related("request_message").first()
    if run is None or run.request_message is None:
        raise ApplicationError("This checkpoint belongs to no run of this thread.", {"checkpoint_id": checkpoint_id})
    pending = tup.checkpoint.get("channel_values", {}).get("new") or []
    with transaction.atomic():
        fork = Thread.objects.create(
            owner=thread.owner,
            agent=thread.agent,
            incognito=thread.incognito,
            title=f"{thread.title or 'Conversation'} (fork)"[:200],
            expires_at=thread.expires_at,
        )
        history = Message.objects.filter(thread=thread, sequence__lte=run.request_message.sequence).order_by("sequence")
        items = [{"role": m.role, "content": m.content, "agent": m.agent} for m in history]
        items += [{"role": m["role"], "content": m["content"], "agent": run.agent} for m in pending]
        messages_append(thread=fork, items=items)
    return fork
