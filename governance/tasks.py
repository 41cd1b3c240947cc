"""Celery tasks of governance. They take ids (or nothing) and call services."""

from __future__ import annotations

from celery import shared_task

from governance import services
from governance.erasure_execution import AUTOMATIC_ATTEMPTS, erasure_execute, erasures_reap_interrupted
from governance.models import ErasureRequest


@shared_task(name="governance.execute_erasure", acks_late=True, soft_time_limit=1800, time_limit=1900)
def execute_erasure(request_id: str) -> dict[str, str]:
    """Run one erasure request. Idempotent and resumable, so late acks are safe:
    a redelivered task continues where the dead worker stopped, or does nothing."""
    request = erasure_execute(request_id=request_id)
    return {"request_id": str(request.pk), "status": request.status}


# Periodic (django-celery-beat, migration 0006).
@shared_task(name="governance.reap_stale_erasures", soft_time_limit=60, time_limit=90, ignore_result=True)
def reap_stale_erasures() -> dict[str, int]:
    """Find erasures a dead worker left ``running``: failed, and resumed in the worker
    unless they were already started a few times."""
    reaped = erasures_reap_interrupted()
    for request in ErasureRequest.objects.filter(pk__in=reaped, attempts__lt=AUTOMATIC_ATTEMPTS):
        execute_erasure.delay_on_commit(str(request.pk))
    return {"interrupted": len(reaped)}


# Periodic (django-celery-beat, see migration 0002). Late ack is safe: overlapping or
# repeated purges delete nothing twice.
@shared_task(name="governance.purge_expired", acks_late=True, soft_time_limit=900, time_limit=960, ignore_result=True)
def purge_expired() -> dict[str, int]:
    """Delete what expired (threads, runs, memories and what lives with them)."""
    record = services.purge_expired()
    return {**record.counts, "skipped_held_users": record.skipped_held_users}
