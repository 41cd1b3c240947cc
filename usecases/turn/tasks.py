"""Celery tasks of the turn: run it, resume it after an approval, reap runs whose worker died.

They take ids and call the runner. They sit beside the use cases, not above them,
because the use cases enqueue them (on commit): a task module in a layer above would
make every enqueue an upward import. ``config/celery.py`` discovers this module.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NoReturn

from celery import Task, shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings

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
    "retry_backoff_max": settings.RUN_RETRY_BACKOFF_MAX,
    "max_retries": 12,
}


@shared_task(name="agents.execute_run", bind=True, **_RUN_TASK_OPTIONS)
def execute_run(self: Task, run_id: str, left_running: str | None = None) -> None:
    """Run one chat turn. Safe to deliver twice: the claim lets only one through."""
    try:
        runner.run_execute(run_id=run_id, left_running=_when(left_running))
    except runner.RunLeftRunning as exc:
        _retry_taking_back(self, exc, run_id=run_id)


@shared_task(name="agents.resume_run", bind=True, **_RUN_TASK_OPTIONS)
def resume_run(self: Task, run_id: str, decision: dict[str, Any], left_running: str | None = None) -> None:
    """Continue a run after a staff decision. Safe to deliver twice: the run's state lets one through."""
    try:
        runner.run_resume(run_id=run_id, decision=decision, left_running=_when(left_running))
    except runner.RunLeftRunning as exc:
        _retry_taking_back(self, exc, run_id=run_id, decision=decision)


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _retry_taking_back(task: Task, exc: runner.RunLeftRunning, **kwargs: Any) -> NoReturn:
    """The retry of a task whose run the outage left ``running``: with the claim to give back
    (``left_running``), on the same backoff as ``autoretry_for``'s."""
    countdown = get_exponential_backoff_interval(
        factor=_RUN_TASK_OPTIONS["retry_backoff"],
        retries=task.request.retries,
        maximum=_RUN_TASK_OPTIONS["retry_backoff_max"],
        full_jitter=True,
    )
    cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
    raise task.retry(kwargs={**kwargs, "left_running": exc.claimed_at.isoformat()}, exc=cause, countdown=countdown)


@shared_task(name="agents.reap_stale_runs", soft_time_limit=60, time_limit=90)
def reap_stale_runs() -> dict[str, int]:
    """Periodic: give runs whose worker died back to the queue, or fail them."""
    result = run_reap_stale()
    for run_id in result["requeued_ids"]:
        execute_run.delay(run_id)
    return {"failed": result["failed"], "requeued": result["requeued"]}
