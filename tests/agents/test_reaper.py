"""The run reaper: runs a dead worker left running, and runs no worker ever took."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from agents.models import Run
from agents.run_lifecycle import run_reap_stale
from conversations.services import thread_create
from tests.factories import RunFactory
from usecases.turn import runner
from usecases.turn.tasks import _retry_in_outage, execute_run
from usecases.turns import turn_submit

pytestmark = pytest.mark.django_db


def test_a_run_left_queued_is_sent_once_more_then_failed_saying_why(alice, settings):
    now = timezone.now()
    lost = RunFactory(thread__owner=alice, status="queued")
    Run.objects.filter(pk=lost.pk).update(queued_at=now - settings.RUN_QUEUED_STALE_AFTER - timedelta(seconds=1))
    waiting = RunFactory(thread__owner=alice, status="queued")  # queued just now: a worker will take it
    Run.objects.filter(pk=waiting.pk).update(queued_at=now)  # "just now" whatever the machine's load

    first = run_reap_stale(now=now)
    assert first["requeued_ids"] == [str(lost.pk)]
    lost.refresh_from_db()
    assert (lost.status, lost.redelivered, lost.queued_at) == ("queued", True, now)

    # Sent again and still not taken a whole period later: failed, in plain words.
    later = now + settings.RUN_QUEUED_STALE_AFTER + timedelta(seconds=1)
    second = run_reap_stale(now=later)
    lost.refresh_from_db()
    assert (lost.status, lost.error_code) == ("failed", "never_started")
    assert "Retry" in lost.error_message and lost.finished_at == later
    assert second["failed"] == 1 and str(lost.pk) not in second["requeued_ids"]
    # The run queued later was taken meanwhile in real life; here it is simply sent once more.
    assert str(waiting.pk) in second["requeued_ids"]


def test_a_run_given_back_by_the_reaper_gets_a_fresh_queue_period(alice, settings):
    now = timezone.now()
    old = now - settings.RUN_STALE_AFTER - timedelta(minutes=1)
    stuck = RunFactory(thread__owner=alice, status="running", started_at=old, attempts=1)
    Run.objects.filter(pk=stuck.pk).update(
        queued_at=old - timedelta(hours=1), redelivered=True, partial_text="half a repl"
    )

    assert run_reap_stale(now=now)["requeued_ids"] == [str(stuck.pk)]
    stuck.refresh_from_db()
    assert (stuck.status, stuck.queued_at, stuck.redelivered, stuck.partial_text) == ("queued", now, False, "")
    # Not failed as "never started" on the next pass: its queue period starts now.
    run_reap_stale(now=now + timedelta(seconds=1))
    stuck.refresh_from_db()
    assert stuck.status == "queued"


def test_a_run_the_database_failed_mid_turn_goes_back_to_the_queue(alice, monkeypatch):
    """The checkpointer's pool timing out (the server just restarted) is no internal error of the run."""
    from psycopg_pool import PoolTimeout

    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")

    def pool_timeout(*args, **kwargs):
        raise PoolTimeout("couldn't get a connection after 2.00 sec")

    monkeypatch.setattr(runner, "_graph", pool_timeout)
    with pytest.raises(PoolTimeout):
        runner.run_execute(run_id=str(run.pk))
    run.refresh_from_db()
    assert (run.status, run.error_code, run.started_at) == ("queued", "", None)

    monkeypatch.undo()
    runner.run_execute(run_id=str(run.pk))
    run.refresh_from_db()
    assert run.status == "completed"


def test_the_turn_task_gives_up_to_the_reaper_only_past_its_window(settings):
    """Retried for as long as the outage lasts (no count of tries), until RUN_STALE_AFTER: the
    retry itself is shown by a real worker in ``test_database_outage.py``."""
    assert execute_run.max_retries is None
    started = timezone.now() - settings.RUN_STALE_AFTER
    with pytest.raises(OperationalError, match="still down"):
        _retry_in_outage(execute_run, OperationalError("still down"), outage_since=started.isoformat(), run_id="r")
