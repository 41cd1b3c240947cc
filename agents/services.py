"""Writes on runs: claiming, finishing, reaping."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agents.models import Run, RunErrorCode, RunStatus


def run_reap_stale(*, now: datetime | None = None) -> dict[str, int]:
    """Return runs stuck in ``running`` (their worker died) to ``queued``, or fail them.

    A run is stale when it has been running longer than ``RUN_STALE_AFTER``. It is put
    back in the queue until it has used ``RUN_MAX_ATTEMPTS`` attempts, then failed with
    ``worker_lost``. Each update is conditional on the row still being ``running`` and
    stale, so a reaper racing a worker that just finished changes nothing.
    Returns the ids of the requeued runs so the caller can enqueue them.
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
    return {"failed": failed, "requeued": len(requeue_ids), "requeued_ids": [str(i) for i in requeue_ids]}
