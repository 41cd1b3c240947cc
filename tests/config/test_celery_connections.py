"""A prefork worker with a connection pool keeps its database sessions from one task to the next.

Celery's Django fixup closed a prefork child's whole pool around every task, so each
summary and each vector opened new server sessions (bench.throughput counted 14 per turn).
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from tests.worker import WorkerProcess
from usecases.tasks import summarize_thread

QUEUE = "liamemory-test-connections"


def _worker_sessions() -> set[int]:
    """Server sessions on the test database other than this test's own: the worker's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return {row[0] for row in cursor.fetchall()}


def _run_tasks(worker: WorkerProcess, n: int) -> None:
    for _ in range(n):
        # A thread that does not exist: the task reads it once and ends ("gone").
        summarize_thread.apply_async((str(uuid.uuid4()),), queue=QUEUE)
    assert worker.wait_idle(quiet=1.0)


@pytest.mark.django_db(transaction=True)
def test_a_prefork_worker_with_a_pool_runs_its_tasks_on_the_sessions_it_opened(tmp_path):
    env = {"DB_POOL_MAX_SIZE": "2"}
    worker = WorkerProcess(
        tmp_path / "worker.log", extra_env=env, queues=QUEUE, pool=("-P", "prefork", "--concurrency", "1")
    ).start()
    try:
        _run_tasks(worker, 3)
        first = _worker_sessions()
        _run_tasks(worker, 3)
        assert first, worker.log()[-2000:]
        assert _worker_sessions() == first
        assert "succeeded" in worker.log()
    finally:
        worker.stop()
