"""Celery tasks of the agent runner. They take ids and call services."""

from __future__ import annotations

from celery import shared_task

from agents import services


@shared_task(name="agents.reap_stale_runs", soft_time_limit=60, time_limit=90)
def reap_stale_runs() -> dict[str, int]:
    """Periodic: give runs whose worker died back to the queue, or fail them."""
    result = services.run_reap_stale()
    return {"failed": result["failed"], "requeued": result["requeued"]}
