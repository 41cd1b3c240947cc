"""The worker's side of a run: claim it, trace its steps, then complete, fail or interrupt it.

Called by the runner and the graph while a run executes (``usecases/turn/runner.py``); the
turn's submission, retry and cancel are ``usecases/turns.py``. Every write after the
claim locks the run row and checks that it is still running (``run_lock_active``),
so a run cancelled or erased meanwhile writes nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from django.conf import settings
from django.contrib.auth.models import User
from django.db import (
    DEFAULT_DB_ALIAS,
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.db.models import F
from django.utils import timezone

from agents.context_report import ContextReport
from agents.models import Approval, ApprovalDecision, Run, RunErrorCode, RunStatus, TraceEvent
from agents.state_machine import RUN_EVENTS_CHANNEL, run_move, runs_move
from liamemory.database import pool_timed_out

logger = logging.getLogger(__name__)

# Runs are named by their UUID, as an object or as text (task arguments).
RunId = uuid.UUID | str


class RunNoLongerActive(Exception):
    """The run was cancelled, erased or taken over: its results must not be written."""


# The database unreachable, through Django or straight from the driver (the checkpointer's
# pool, a pool timeout): transient, so a run meeting one goes back to the queue.
DATABASE_UNAVAILABLE_ERRORS = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)

T = TypeVar("T")


@contextlib.contextmanager
def _connection_outside_pool() -> Iterator[None]:
    """This thread's queries go through a connection of its own, not the process's pool, until the end."""
    pooled = connections[DEFAULT_DB_ALIAS]
    own_settings = {**pooled.settings_dict, "OPTIONS": dict(pooled.settings_dict["OPTIONS"])}
    own_settings["OPTIONS"].pop("pool", None)
    own = type(pooled)(own_settings, DEFAULT_DB_ALIAS)
    connections[DEFAULT_DB_ALIAS] = own
    try:
        yield
    finally:
        own.close()
        connections[DEFAULT_DB_ALIAS] = pooled


def despite_busy_pool(move: Callable[[], T]) -> T:
    """``move`` through the pool; if the pool has no connection for it in its wait, through one of its own.

    A run's last move (failed, back to the queue) must not hang on that pool: in a burst
    it was still exhausted, the move failed too and the run stayed ``running`` (its
    followers waiting) until the reaper. During an outage the connection of its own fails
    as well, and the error goes up as before. The worker's clean-up after a run (the
    orphaned checkpoints of a thread deleted meanwhile) goes through it too.
    """
    try:
        return move()
    except DATABASE_UNAVAILABLE_ERRORS as exc:
        if not pool_timed_out(exc):
            raise
        logger.warning("the connection pool stayed busy: the run's move takes a connection of its own")
    with _connection_outside_pool():
        return move()


def run_claim(*, run_id: RunId) -> datetime | None:
    """Claim a queued run with one conditional UPDATE: the claim's start time, or None
    when someone else has it.

    A redelivered task therefore does nothing twice: only one UPDATE finds it queued. The
    start time names this claim (``run_requeue_claim``).
    """
    started_at = timezone.now()
    moved = run_move(
        run_id=run_id,
        to=RunStatus.RUNNING,
        only_from=frozenset({RunStatus.QUEUED}),
        reason="claimed",
        started_at=started_at,
        attempts=F("attempts") + 1,
    )
    return started_at if moved else None


@dataclass(frozen=True)
class Trace:
    """One trace event of a run, as ``traces_record`` writes it."""

    kind: str
    name: str
    payload: dict[str, Any]
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int = 0


def trace_record(
    *,
    run_id: RunId,
    kind: str,
    name: str,
    payload: dict[str, Any],
    tokens_in: int = 0,
    tokens_out: int = 0,
    duration_ms: int = 0,
) -> None:
    """One trace event, written at once so a failed run still shows every step it took (``traces_record``)."""
    traces_record(
        run_id=run_id,
        traces=[Trace(kind, name, payload, tokens_in=tokens_in, tokens_out=tokens_out, duration_ms=duration_ms)],
    )


def traces_record(*, run_id: RunId, traces: list[Trace]) -> None:
    """A step's trace events in one INSERT, written at once so a failed run still shows every step it took.

    The run's thread may be deleted meanwhile (by its owner, the purge or an erasure):
    the foreign key then refuses the rows, and the run is over (``RunNoLongerActive``).
    """
    if not traces:
        return
    # Outside a transaction (the graph's nodes) the INSERT commits by itself: no BEGIN and
    # COMMIT around it (``bulk_create`` would add both). Inside a caller's (a tool's write),
    # a savepoint keeps that one usable.
    scope = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
    try:
        with scope, connection.cursor() as cursor:
            cursor.execute(
                _TRACES_SQL,
                {
                    "run": str(run_id),
                    "kinds": [t.kind for t in traces],
                    "names": [t.name for t in traces],
                    "payloads": [json.dumps(t.payload) for t in traces],
                    "tokens_in": [t.tokens_in for t in traces],
                    "tokens_out": [t.tokens_out for t in traces],
                    "durations": [t.duration_ms for t in traces],
                },
            )
    except IntegrityError as exc:
        raise RunNoLongerActive(str(run_id)) from exc


# Several events of one step, in their order (ids follow it), one statement.
_TRACES_SQL = f"""
INSERT INTO {TraceEvent._meta.db_table} (run_id, kind, name, payload, tokens_in, tokens_out, duration_ms, created_at)
SELECT %(run)s::uuid, t.kind, t.name, t.payload, t.tokens_in, t.tokens_out, t.duration_ms, clock_timestamp()
FROM unnest(%(kinds)s::text[], %(names)s::text[], %(payloads)s::jsonb[], %(tokens_in)s::int[],
            %(tokens_out)s::int[], %(durations)s::int[])
     WITH ORDINALITY AS t(kind, name, payload, tokens_in, tokens_out, duration_ms, position)
ORDER BY t.position
"""


def run_stream_append(*, run_id: RunId, text: str = "", steps: list[dict[str, Any]] | None = None) -> bool:
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


def run_cancel(*, run_id: RunId) -> str | None:
    """Cancel a queued, running or waiting run; the text it had streamed, or None if it had already ended.

    The row is locked first: a worker appending text waits for this transaction and
    then finds the run cancelled (``run_stream_append`` wants ``running``), so the text
    returned is all that was written, and what followers were shown. The streamed copy
    is cleared: the caller keeps the text as a message.
    """
    run = Run.objects.select_for_update().filter(pk=run_id).only("status", "partial_text").first()
    if run is None:
        return None
    now = timezone.now()
    moved = run_move(
        run_id=run_id,
        to=RunStatus.CANCELLED,
        reason="cancelled",
        finished_at=now,
        partial_text="",
        partial_steps=[],
    )
    if moved == RunStatus.INTERRUPTED:
        Approval.objects.filter(run_id=run_id, decision=ApprovalDecision.PENDING).update(
            decision=ApprovalDecision.WITHDRAWN, decided_at=now
        )
    return run.partial_text if moved else None


def run_lock_active(*, run_id: RunId) -> Run:
    """Lock the run's row and check it still runs, until the transaction ends.

    Every write of a running turn takes it (``usecases/turn/writes.py``): a cancel, an
    erasure or a thread deletion updates or deletes that row, so it either waits for the
    write to commit (and then removes what it wrote) or the write finds the run ended
    and does nothing. The run comes with its thread (only the run is locked): a run
    whose thread is gone is not found, and the turn's writes need the thread.
    """
    run = Run.objects.select_for_update(of=("self",)).select_related("thread").filter(pk=run_id).first()
    if run is None or run.status != RunStatus.RUNNING:
        raise RunNoLongerActive(run_id)
    return run


def run_finish(
    *,
    run: Run,
    usage: dict[str, int],
    model: str,
    report: ContextReport | None,
    tokens_full_resend: int,
    error_code: str = "",
    error_message: str = "",
) -> None:
    """End a locked, running run: ``completed``, or ``failed`` with ``error_code`` (the step cap).

    Called inside the transaction that holds ``run_lock_active`` and writes the turn's
    messages (``usecases/turn/writes.py:turn_complete``); followers are woken at commit.
    The run's latency is its own duration, from the claim to now (the model calls' own
    times are in its trace events).
    """
    now = timezone.now()
    # A resumed run whose checkpoint held no report keeps the one recorded at its interrupt.
    recorded: dict[str, Any] = {"context_report": report.as_json()} if report else {}
    run_move(
        run_id=run.pk,
        to=RunStatus.FAILED if error_code else RunStatus.COMPLETED,
        only_from=frozenset({RunStatus.RUNNING}),
        reason=error_code,
        error_code=error_code,
        error_message=error_message[:2000],
        finished_at=now,
        model=model,
        tokens_in=usage.get("input_tokens", 0),
        tokens_out=usage.get("output_tokens", 0),
        tokens_cached=usage.get("cache_read_tokens", 0),
        tokens_cache_write=usage.get("cache_write_tokens", 0),
        tokens_full_resend=tokens_full_resend,
        latency_ms=elapsed_ms(run.started_at, now),
        # The streamed copy stays (it goes with the run): a follower that fell behind reads
        # the reply's last words from it after the end, as one that joins late reads it all.
        **recorded,
    )


def elapsed_ms(started_at: datetime | None, finished_at: datetime) -> int | None:
    """Milliseconds from a run's claim to its end; None for a run never claimed."""
    if started_at is None:
        return None
    return max(0, int((finished_at - started_at).total_seconds() * 1000))


def run_fail(*, run_id: RunId, code: str, message: str, latency_ms: int | None = None) -> None:
    """Mark a running run failed with a machine-readable code; the user's message stays.

    It gets past a busy pool (``despite_busy_pool``): the model's error arrives while the
    other turns hold every connection, and a failure that could not be recorded left the
    run ``running``, its follower open, until the reaper ran the model again.
    """
    despite_busy_pool(lambda: _fail(run_id, code, message, latency_ms))


def _fail(run_id: RunId, code: str, message: str, latency_ms: int | None) -> None:
    now = timezone.now()
    if latency_ms is None:
        started = Run.objects.filter(pk=run_id).values_list("started_at", flat=True).first()
        latency_ms = elapsed_ms(started, now)
    run_move(
        run_id=run_id,
        to=RunStatus.FAILED,
        only_from=frozenset({RunStatus.RUNNING}),
        reason=code,
        error_code=code,
        error_message=message[:2000],
        finished_at=now,
        latency_ms=latency_ms,
    )


def run_requeue(*, run_id: RunId) -> bool:
    """A running run goes back to ``queued`` to start over (the database failed it mid-turn).

    What it streamed so far is dropped: the next attempt writes the reply again (a run
    resumed after a staff decision continues from that decision: ``usecases/turn/runner.py``).
    It gets past a busy pool (``despite_busy_pool``), so the run does not stay ``running``.
    """
    return despite_busy_pool(lambda: _requeue(run_id))


# A run back in the queue starts over: never claimed, what it streamed written again.
_STARTS_OVER: dict[str, Any] = {"started_at": None, "redelivered": False, "partial_text": "", "partial_steps": []}


def _requeue(run_id: RunId) -> bool:
    requeued = run_move(
        run_id=run_id, to=RunStatus.QUEUED, reason="database_unavailable", queued_at=timezone.now(), **_STARTS_OVER
    )
    return requeued is not None


def run_requeue_claim(*, run_id: RunId, started_at: datetime) -> bool:
    """The run goes back to the queue if it is still running under the claim that started
    at ``started_at``; False when it moved meanwhile (ended, or given back and claimed again).

    The task whose requeue failed in an outage (its connection of its own failed too)
    calls this on its retry, as soon as the database answers, instead of leaving the run
    ``running`` for the reaper (``RUN_STALE_AFTER``). Naming the claim makes it safe: a
    run the reaper gave to another worker meanwhile has another start time.
    """
    moved = runs_move(
        Run.objects.filter(pk=run_id, started_at=started_at),
        to=RunStatus.QUEUED,
        only_from=frozenset({RunStatus.RUNNING}),
        reason="database_unavailable",
        queued_at=timezone.now(),
        **_STARTS_OVER,
    )
    return bool(moved)


@dataclass(frozen=True)
class ApprovalRequest:
    """What a run asks staff to allow: the tool that asked, why, and the amount (euros) if any."""

    action: str
    reason: str = ""
    amount: Decimal | None = None

    @classmethod
    def from_payload(cls, payload: Any) -> ApprovalRequest:
        """The graph's interrupt value (``usecases/turn/tools.py:ApprovalRequired``), a plain dict."""
        data = payload if isinstance(payload, dict) else {}
        amount = data.get("amount")
        number = isinstance(amount, int | float) and not isinstance(amount, bool)
        return cls(
            action=str(data.get("tool") or "request_approval"),
            reason=str(data.get("reason") or ""),
            amount=Decimal(str(amount)) if number else None,
        )


def run_interrupt(*, run_id: RunId, request: ApprovalRequest, checkpoint_id: str, report: ContextReport | None) -> bool:
    """The run waits for a staff decision on ``request``: an ``Approval`` row, and the run
    interrupted, in one transaction (its state is in the checkpoint ``checkpoint_id``)."""
    recorded: dict[str, Any] = {"context_report": report.as_json()} if report else {}
    with transaction.atomic():
        moved = run_move(run_id=run_id, to=RunStatus.INTERRUPTED, reason="approval_requested", **recorded)
        if moved is None:
            return False
        Approval.objects.create(
            run_id=run_id,
            action=request.action[:64],
            reason=request.reason,
            amount=request.amount,
            checkpoint_id=checkpoint_id,
        )
    return True


def approval_resume_value(approval: Approval) -> dict[str, Any]:
    """What the run's interrupted tool gets back when it resumes: the staff decision."""
    return {"approved": approval.decision == ApprovalDecision.APPROVED, "by": "staff", "note": approval.note}


def approval_decide(*, approval: Approval, approved: bool, actor: User, note: str = "") -> bool:
    """Record the staff decision and move the run interrupted → running; False when either
    was already decided, cancelled or moved (nothing is written then).

    Two conditional UPDATEs in one transaction (the approval still pending, the run still
    interrupted: ``run_move``), so of two racing decisions exactly one goes through.
    """
    now = timezone.now()
    with transaction.atomic():
        decided = Approval.objects.filter(pk=approval.pk, decision=ApprovalDecision.PENDING).update(
            decision=ApprovalDecision.APPROVED if approved else ApprovalDecision.REJECTED,
            decided_by=actor,
            decided_at=now,
            note=note[:1000],
        )
        if not decided:
            return False
        moved = run_move(
            run_id=approval.run_id,
            to=RunStatus.RUNNING,
            only_from=frozenset({RunStatus.INTERRUPTED}),
            reason="approved" if approved else "rejected",
            started_at=now,
        )
        if moved is None:
            transaction.set_rollback(True)
            return False
    approval.refresh_from_db()
    return True


NEVER_STARTED_MESSAGE = (
    "No worker started this reply: it waited in the queue too long, also after being sent again "
    "(the database or the queue was unavailable). Retry to send it again."
)


def run_reap_stale(*, now: datetime | None = None) -> dict[str, Any]:
    """Give back runs whose worker died, and runs no worker took; fail the hopeless ones.

    A run is stale when it has been running longer than ``RUN_STALE_AFTER``. It is put
    back in the queue (the caller enqueues ``requeued_ids``: ``usecases.tasks``) until it
    has used ``RUN_MAX_ATTEMPTS`` attempts, then failed with ``worker_lost``.

    A run still queued after ``RUN_QUEUED_STALE_AFTER`` was never claimed: its task was
    lost (a worker dropped it during a database outage, a broker lost it). It is sent once
    more (in ``requeued_ids`` too; the claim makes a duplicate harmless), and failed with
    ``never_started`` if it is still queued that long after. Each update is conditional on
    the row still being in the state it was found in, so a reaper racing a worker that
    just claimed or finished the run changes nothing.
    """
    now = now or timezone.now()
    cutoff = now - settings.RUN_STALE_AFTER
    stale = Run.objects.filter(status=RunStatus.RUNNING, started_at__lt=cutoff)
    queued_cutoff = now - settings.RUN_QUEUED_STALE_AFTER
    left_queued = Run.objects.filter(status=RunStatus.QUEUED, queued_at__lt=queued_cutoff)
    with transaction.atomic():
        failed = runs_move(
            stale.filter(attempts__gte=settings.RUN_MAX_ATTEMPTS),
            to=RunStatus.FAILED,
            only_from=frozenset({RunStatus.RUNNING}),
            reason=RunErrorCode.WORKER_LOST,
            skip_locked=True,
            error_code=RunErrorCode.WORKER_LOST,
            error_message="The worker handling this run stopped too many times.",
            finished_at=now,
        )
        never_started = runs_move(
            left_queued.filter(redelivered=True),
            to=RunStatus.FAILED,
            only_from=frozenset({RunStatus.QUEUED}),
            reason=RunErrorCode.NEVER_STARTED,
            skip_locked=True,
            error_code=RunErrorCode.NEVER_STARTED,
            error_message=NEVER_STARTED_MESSAGE,
            finished_at=now,
        )
        requeued = runs_move(
            stale.filter(attempts__lt=settings.RUN_MAX_ATTEMPTS),
            to=RunStatus.QUEUED,
            only_from=frozenset({RunStatus.RUNNING}),
            reason="worker_lost",
            skip_locked=True,
            started_at=None,
            queued_at=now,
            redelivered=False,
            # It starts over: the text streamed by the dead attempt is written again.
            partial_text="",
            partial_steps=[],
        )
        requeue_ids = [pk for pk, _ in requeued]
        redeliver_ids = list(
            left_queued.filter(redelivered=False).select_for_update(skip_locked=True).values_list("id", flat=True)
        )
        Run.objects.filter(id__in=redeliver_ids, status=RunStatus.QUEUED).update(queued_at=now, redelivered=True)
    logger.info(
        "reaper: %d requeued, %d failed, %d sent again, %d never started",
        len(requeue_ids),
        len(failed),
        len(redeliver_ids),
        len(never_started),
    )
    return {
        "failed": len(failed) + len(never_started),
        "requeued": len(requeue_ids) + len(redeliver_ids),
        "requeued_ids": [str(i) for i in (*requeue_ids, *redeliver_ids)],
    }
