"""The run's states and the one way a run moves between them.

``TRANSITIONS`` says which moves exist; ``runs_move`` makes one (or the same one for many
runs): it locks the rows still in a state the move may leave, updates them, appends a
``RunTransition`` per run and wakes whoever follows them. Every status change of a run
goes through it, so the run's life is its transition rows, as healthchecks' flips are.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from agents.models import Run, RunStatus, RunTransition

QUEUED, RUNNING, INTERRUPTED = RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.INTERRUPTED
COMPLETED, FAILED, CANCELLED = RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED

# from → the states it may go to. A finished run never moves again (a retry is a new run).
TRANSITIONS: dict[RunStatus, frozenset[RunStatus]] = {
    # claimed by a worker; never claimed (the reaper); cancelled (owner, erasure)
    QUEUED: frozenset({RUNNING, FAILED, CANCELLED}),
    # done; failed (model error, step cap, worker lost); waits for staff; given back to
    # the queue (its worker died, the database failed it); cancelled
    RUNNING: frozenset({COMPLETED, FAILED, INTERRUPTED, QUEUED, CANCELLED}),
    # staff decided (it resumes either way); cancelled
    INTERRUPTED: frozenset({RUNNING, CANCELLED}),
    COMPLETED: frozenset(),
    FAILED: frozenset(),
    CANCELLED: frozenset(),
}

# Queued or running: a worker holds it or will. One per thread (the database's partial
# unique index ``run_one_active_per_thread``), followed live, kept from the purge.
WORKING: frozenset[RunStatus] = frozenset({QUEUED, RUNNING})
# Not over yet, a staff decision included: it blocks a new turn and can be cancelled.
UNFINISHED: frozenset[RunStatus] = WORKING | {INTERRUPTED}
# Over for good: only a failed or cancelled one can be retried.
FINISHED: frozenset[RunStatus] = frozenset(s for s, targets in TRANSITIONS.items() if not targets)
RETRYABLE: frozenset[RunStatus] = frozenset({FAILED, CANCELLED})

RUN_EVENTS_CHANNEL = "liamemory_run_events"


def sources_of(to: RunStatus) -> frozenset[RunStatus]:
    """The states a run may leave for ``to``."""
    return frozenset(s for s, targets in TRANSITIONS.items() if to in targets)


def notify_followers(run_id: uuid.UUID | str) -> None:
    """Wake the requests following this run; inside a transaction, at its commit."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [RUN_EVENTS_CHANNEL, str(run_id)])


def runs_move(
    runs: QuerySet[Run],
    *,
    to: RunStatus,
    only_from: frozenset[RunStatus] | None = None,
    reason: str = "",
    skip_locked: bool = False,
    **changes: Any,
) -> list[tuple[uuid.UUID, RunStatus]]:
    """Move the runs of ``runs`` that may go to ``to`` there; the (id, from) of those moved.

    ``only_from`` narrows the states moved from (the reaper fails only running runs);
    ``changes`` are the other columns the move sets. The rows are locked first (or skipped
    when another transaction holds them, ``skip_locked``) and each UPDATE is still
    conditional on the state found, checking its row count, so two racing moves of one run
    (a redelivered task, a cancel during a claim) let exactly one through.
    """
    allowed = _allowed(to, only_from)
    moved: list[tuple[uuid.UUID, RunStatus]] = []
    with transaction.atomic(savepoint=False):
        found = list(
            runs.filter(status__in=allowed)
            .select_for_update(skip_locked=skip_locked, of=("self",))
            .order_by("pk")
            .values_list("pk", "status")
        )
        for status in sorted(allowed):
            ids = [pk for pk, s in found if s == status]
            if ids and Run.objects.filter(pk__in=ids, status=status).update(status=to, **changes) != len(ids):
                raise RuntimeError("A locked run changed state under its lock.")
            moved += [(pk, RunStatus(status)) for pk in ids]
        _record(moved, to=to, reason=reason)
    return moved


def run_move(
    *,
    run_id: uuid.UUID | str,
    to: RunStatus,
    only_from: frozenset[RunStatus] | None = None,
    reason: str = "",
    **changes: Any,
) -> RunStatus | None:
    """Move one run (``runs_move``); the state it left, or None when it may not move.

    With one state to leave, the lock is the conditional UPDATE itself (its row count
    says whether the run moved): the claim and the finish of every turn cost two
    statements, as they did before they left a row.
    """
    allowed = _allowed(to, only_from)
    if len(allowed) > 1:
        moved = runs_move(Run.objects.filter(pk=run_id), to=to, only_from=allowed, reason=reason, **changes)
        return moved[0][1] if moved else None
    (source,) = allowed
    with transaction.atomic(savepoint=False):
        if not Run.objects.filter(pk=run_id, status=source).update(status=to, **changes):
            return None
        _record([(run_id, source)], to=to, reason=reason)
    return source


def _allowed(to: RunStatus, only_from: frozenset[RunStatus] | None) -> frozenset[RunStatus]:
    allowed = sources_of(to) if only_from is None else sources_of(to) & only_from
    if not allowed:
        raise ValueError(f"No run may move from {sorted(only_from or ())} to {to}.")
    return allowed


def _record(moved: Sequence[tuple[uuid.UUID | str, RunStatus]], *, to: RunStatus, reason: str) -> None:
    """Append the transitions and wake the runs' followers (at commit), in one statement."""
    if not moved:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH t AS (INSERT INTO {RunTransition._meta.db_table} (run_id, from_status, to_status, reason, at) "
            "SELECT unnest(%s::uuid[]), unnest(%s::text[]), %s, %s, %s RETURNING run_id) "
            "SELECT pg_notify(%s, run_id::text) FROM t",
            [
                [str(pk) for pk, _ in moved],
                [str(src) for _, src in moved],
                str(to),
                reason[:32],
                timezone.now(),
                RUN_EVENTS_CHANNEL,
            ],
        )


def run_created(*, run: Run, reason: str = "") -> None:
    """The first row of a run's life: it was made, queued."""
    RunTransition.objects.create(run=run, from_status="", to_status=run.status, reason=reason[:32], at=run.created_at)
