"""Celery tasks of the use cases: the turn (run, resume, reap), the erasure and the purge.

They take ids (or nothing) and call a use case. They sit beside the use cases, not above
them, because the use cases enqueue them (on commit): a task module in a layer above
would make every enqueue an upward import.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from agents.run_lifecycle import DATABASE_UNAVAILABLE_ERRORS, run_reap_stale
from usecases import purge
from usecases.erasure_execution import erasure_execute
from usecases.turn import runner


@shared_task(
    name="agents.execute_run",
    soft_time_limit=240,
    time_limit=300,
    # The database unreachable (an outage, a restart): try again later rather than drop
    # the task and leave the run queued. A retry is safe: only one claim goes through.
    autoretry_for=DATABASE_UNAVAILABLE_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=12,
)
def execute_run(run_id: str) -> None:
    """Run one chat turn. Safe to deliver twice: the claim lets only one through."""
    runner.run_execute(run_id=run_id)


@shared_task(name="agents.resume_run", soft_time_limit=240, time_limit=300)
def resume_run(run_id: str, decision: dict[str, Any]) -> None:
    runner.run_resume(run_id=run_id, decision=decision)


@shared_task(name="agents.reap_stale_runs", soft_time_limit=60, time_limit=90)
def reap_stale_runs() -> dict[str, int]:
    """Periodic: give runs whose worker died back to the queue, or fail them."""
    result = run_reap_stale()
    for run_id in result["requeued_ids"]:
        execute_run.delay(run_id)
    return {"failed": result["failed"], "requeued": result["requeued"]}


@shared_task(name="governance.execute_erasure", acks_late=True, soft_time_limit=1800, time_limit=1900)
def execute_erasure(request_id: str) -> dict[str, str]:
    """Run one erasure request. Idempotent and resumable, so late acks are safe:
    a redelivered task continues where the dead worker stopped, or does nothing."""
    request = erasure_execute(request_id=request_id)
    return {"request_id": str(request.pk), "status": request.status}


# Periodic (django-celery-beat, see migration 0002). Late ack is safe: overlapping or
# repeated purges delete nothing twice.
@shared_task(name="governance.purge_expired", acks_late=True, soft_time_limit=900, time_limit=960, ignore_result=True)
def purge_expired() -> dict[str, int]:
    """Delete what expired (threads, runs, memories and what lives with them)."""
    record = purge.purge_expired()
    return {**record.counts, "skipped_held_users": record.skipped_held_users}
