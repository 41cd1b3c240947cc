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
from django.utils import timezone

from agents.run_lifecycle import DATABASE_UNAVAILABLE_ERRORS, run_reap_stale
from liamemory.task_sending import task_send
from usecases.turn import runner

# Both run tasks: the database unreachable (an outage, a restart, a busy pool) left the run
# queued, or running under this task's claim, so try again later rather than drop the task.
# A retry is safe: only one claim goes through, and a resume continues from the staff decision.
# The tries go on for as long as the outage lasts, up to the reaper's RUN_STALE_AFTER: a count
# of tries (twelve, until session 16) covered 2–4 minutes, and a longer outage left its runs to
# the reaper for 5 more.
_RUN_TASK_OPTIONS: dict[str, Any] = {"soft_time_limit": 240, "time_limit": 300, "max_retries": None}


@shared_task(name="agents.execute_run", bind=True, **_RUN_TASK_OPTIONS)
def execute_run(self: Task, run_id: str, left_running: str | None = None, outage_since: str | None = None) -> None:
    """Run one chat turn. Safe to deliver twice: the claim lets only one through."""
    try:
        runner.run_execute(run_id=run_id, left_running=_when(left_running))
    except (runner.RunLeftRunning, *DATABASE_UNAVAILABLE_ERRORS) as exc:
        _retry_in_outage(self, exc, run_id=run_id, left_running=left_running, outage_since=outage_since)


@shared_task(name="agents.resume_run", bind=True, **_RUN_TASK_OPTIONS)
def resume_run(
    self: Task,
    run_id: str,
    decision: dict[str, Any],
    left_running: str | None = None,
    outage_since: str | None = None,
) -> None:
    """Continue a run after a staff decision. Safe to deliver twice: the run's state lets one through."""
    try:
        runner.run_resume(run_id=run_id, decision=decision, left_running=_when(left_running))
    except (runner.RunLeftRunning, *DATABASE_UNAVAILABLE_ERRORS) as exc:
        _retry_in_outage(
            self, exc, run_id=run_id, decision=decision, left_running=left_running, outage_since=outage_since
        )


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _retry_in_outage(task: Task, exc: Exception, *, outage_since: str | None, **kwargs: Any) -> NoReturn:
    """Try the run again 1, 2, 4 … ``RUN_RETRY_BACKOFF_MAX`` s later (full jitter) while the
    database is away, with the claim to give back when the outage left the run ``running``
    (``left_running``). Past ``RUN_STALE_AFTER`` since the outage's first failure the task
    gives up, and the reaper (which sees the run stale by then) takes it over."""
    now = timezone.now()
    since = _when(outage_since) or now
    if isinstance(exc, runner.RunLeftRunning):
        kwargs["left_running"] = exc.claimed_at.isoformat()
    cause = exc.__cause__ if isinstance(exc, runner.RunLeftRunning) and isinstance(exc.__cause__, Exception) else exc
    if now - since >= settings.RUN_STALE_AFTER:
        raise cause
    countdown = get_exponential_backoff_interval(
        factor=1, retries=task.request.retries, maximum=settings.RUN_RETRY_BACKOFF_MAX, full_jitter=True
    )
    raise task.retry(kwargs={**kwargs, "outage_since": since.isoformat()}, exc=cause, countdown=countdown)


@shared_task(name="agents.reap_stale_runs", soft_time_limit=60, time_limit=90)
def reap_stale_runs() -> dict[str, int]:
    """Periodic: give runs whose worker died back to the queue, or fail them."""
    result = run_reap_stale()
    for run_id in result["requeued_ids"]:
        task_send(execute_run, run_id)
    return {"failed": result["failed"], "requeued": result["requeued"]}
