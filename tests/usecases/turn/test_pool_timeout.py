"""A turn worker's connection pool exhausted mid-turn (a burst): the run goes back to the
queue and ends, it is not left ``running`` for the reaper with its follower waiting.

A real pool of one connection with a short wait, on the test database; another thread
holds that connection while the turn needs it, as 32 worker threads held 12 in the burst.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection

from agents.models import Run, RunTransition
from conversations.services import thread_create
from usecases.turn import runner
from usecases.turns import turn_submit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def tiny_pool() -> Iterator[None]:
    """Django's psycopg pool for this test: one connection, handed out within 0.5 s or a PoolTimeout."""
    connection.close()
    options = connection.settings_dict["OPTIONS"]
    options["pool"] = {"min_size": 1, "max_size": 1, "timeout": 0.5}
    try:
        yield
    finally:
        connection.close()
        connection.close_pool()
        del options["pool"]


class PoolHog(threading.Thread):
    """Takes the pool's one connection and keeps it until released."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.holding, self.release = threading.Event(), threading.Event()

    def run(self) -> None:
        try:
            connection.ensure_connection()
            self.holding.set()
            self.release.wait(30)
        finally:
            connection.close()


def test_a_run_the_busy_pool_stopped_goes_back_to_the_queue_and_then_completes(alice, tiny_pool, monkeypatch):
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    hog = PoolHog()
    real_graph = runner._graph

    def graph_once_the_pool_is_taken():
        # As during a model call: the turn handed its connection back, another thread took it.
        graph = real_graph()
        connection.close()
        hog.start()
        assert hog.holding.wait(10)
        return graph

    monkeypatch.setattr(runner, "_graph", graph_once_the_pool_is_taken)
    # The task sees a database error, so Celery retries it (``execute_run``'s autoretry).
    with pytest.raises(OperationalError):
        runner.run_execute(run_id=str(run.pk))

    # With still no connection to be had from the pool, the run went back to the queue.
    assert hog.is_alive()
    hog.release.set()
    hog.join(10)
    assert Run.objects.filter(pk=run.pk).values_list("status", flat=True).get() == "queued"
    reasons = list(RunTransition.objects.filter(run=run).order_by("id").values_list("to_status", "reason"))
    assert reasons[-1] == ("queued", "database_unavailable")

    # The task's retry, once the pool has a connection again, writes the reply.
    monkeypatch.undo()
    runner.run_execute(run_id=str(run.pk))
    run.refresh_from_db()
    assert (run.status, run.error_code) == ("completed", "")
    assert run.thread.messages.filter(role="assistant").count() == 1
