"""Celery tasks of the turn: run it, resume it after an approval, reap runs whose worker died.

They take ids and call the runner. They sit beside the use cases, not above them,
because the use cases enqueue them (on commit): a task module in a layer above would
make every enqueue an upward import. ``config/celery.py`` discovers this module.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from agents.run_lifecycle import DATABASE_UNAVAILABLE_ERRORS, run_reap_stale
from usecases.turn import runner

# Both run tasks: the database unreachable (an outage, a restart, a busy pool) sent the run
# back to the queue, so try again later rather than drop the task and leave it queued. A
# retry is safe: only one claim goes through, and a resume continues from the staff decision.
_RUN_TASK_OPTIONS: dict[str, Any] = {
    "soft_time_limit": 240,
    "time_limit": 300,
    "autoretry_for": DATABASE_UNAVAILABLE_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "max_retries": 12,
}


@shared_task(name="agents.execute_run", **_RUN_TASK_OPTIONS)
def execute_run(run_id: str) -> None:
    """Run one chat turn. Safe to deliver twice: the claim lets only one through."""
    runner.run_execute(run_id=run_id)


@shared_task(name="agents.resume_run", **_RUN_TASK_OPTIONS)
def resume_run(run_id: str, decision: dict[str, Any]) -> None:
    """Continue a run after a staff decision. Safe to deliver twice: the run's state lets one through."""
    runner.run_resume(run_id=run_id, decision=decision)


@shared_task(name="agents.reap_stale_runs", soft_time_limit=60, time_limit=90)
def reap_stale_runs() -> dict[str, int]:
    """Periodic: give runs whose worker died back to the queue, or fail them."""
    result = run_reap_stale()
    for run_id in result["requeued_ids"]:
        execute_run.delay(run_id)
    return {"failed": result["failed"], "requeued": result["requeued"]}
