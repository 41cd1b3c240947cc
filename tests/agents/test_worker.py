"""A real worker runs the project's tasks; its effect is visible in the database."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.models import Run
from tests.factories import RunFactory
from tests.utils import wait_for
from usecases.turn.tasks import reap_stale_runs


@pytest.mark.worker
def test_worker_reaper_fails_exhausted_runs_and_leaves_fresh_ones(worker, alice, settings):
    old = timezone.now() - settings.RUN_STALE_AFTER - timedelta(minutes=1)
    exhausted = RunFactory(thread__owner=alice, status="running", started_at=old, attempts=settings.RUN_MAX_ATTEMPTS)
    fresh = RunFactory(thread__owner=alice, status="running", started_at=timezone.now(), attempts=1)

    reap_stale_runs.delay()

    wait_for(lambda: Run.objects.get(pk=exhausted.pk).status == "failed", what="the reaper")
    assert Run.objects.get(pk=exhausted.pk).error_code == "worker_lost"
    assert Run.objects.get(pk=fresh.pk).status == "running"
