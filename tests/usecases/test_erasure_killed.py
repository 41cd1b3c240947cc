"""``kill -9`` of the worker at any point of an erasure: before its claim, inside it, after
it, mid-deletion and mid-verification. Whatever the point, the reaper's next round leaves
the request ``failed`` and resumable (and sends it again), and the resume checks the
strings chosen before the first deletion and ends ``completed`` with its receipt.

The worker is stopped at a point by a lock the test holds on what the erasure touches
next; once it waits there it is killed, and the lock released. Row locks are FOR NO KEY
UPDATE: they stop the row's own deletion, not the insert of a row that refers to it (a
history row naming the thread), which would stop the worker one step early."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import connection, connections

from config.celery import app as celery_app
from conversations.models import Thread
from governance.models import ErasureRequest, PurgeRecord
from memories.models import Memory
from tests.usecases.people import person_with_data
from tests.utils import wait_for
from tests.worker import WorkerProcess, database_url_for_tests
from usecases import erasure, tasks
from usecases.erasure import erasure_enqueue, erasure_execute, erasure_request_create
from usecases.erasure_execution import INTERRUPTED
from usecases.tasks import execute_erasure, reap_stale_erasures

# A worker of its own, on a queue of its own: the session's worker must not take these.
QUEUE = "liamemory-test-erasure-kill"
WORKER_APP = "liamemory-erasure-kill"
MEMORIES = 30


def _lock_requests(cur, requests) -> None:
    cur.execute("SELECT id FROM governance_erasurerequest WHERE id = ANY(%s) FOR UPDATE", [[r.pk for r in requests]])


def _lock_first_memory(cur, requests) -> None:
    first = Memory.objects.filter(user_id=requests[0].subject_id).order_by("id").values_list("id", flat=True)[0]
    cur.execute("SELECT id FROM memories_memory WHERE id = %s FOR NO KEY UPDATE", [first])


def _lock_second_thread(cur, requests) -> None:
    second = Thread.objects.filter(owner_id=requests[0].subject_id).order_by("id").values_list("id", flat=True)[1]
    cur.execute("SELECT id FROM conversations_thread WHERE id = %s FOR NO KEY UPDATE", [second])


def _lock_a_table_the_scan_reads(cur, requests) -> None:
    # Nothing of the person is there, so only the scan reads it.
    cur.execute(f"LOCK TABLE {PurgeRecord._meta.db_table} IN ACCESS EXCLUSIVE MODE")


# (the point, the requests, the lock that stops the worker there, what was done by then)
POINTS: list[tuple[str, int, Callable, Callable[[ErasureRequest], bool]]] = [
    # Two requests, both rows locked: the worker is inside the claim of one of them; the
    # other waits behind it, in the queue (a solo worker takes one message at a time).
    ("before and inside the claim", 2, _lock_requests, lambda r: r.status == "pending"),
    ("after the claim", 1, _lock_first_memory, lambda r: r.verification and r.executed_counts["memories"] == 0),
    ("mid-deletion", 1, _lock_second_thread, lambda r: r.executed_counts["threads"] == 1),
    ("mid-verification", 1, _lock_a_table_the_scan_reads, lambda r: r.executed_counts["threads"] == 2),
]


def _waiting_backends() -> list[int]:
    """The erasure worker's sessions waiting on a lock (by their application name: the
    session's own worker may wait on the test's lock too, for an embedding of the data)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT pid FROM pg_stat_activity WHERE datname = current_database()
               AND wait_event_type = 'Lock' AND application_name = %s""",
            [WORKER_APP],
        )
        return [row[0] for row in cur.fetchall()]


def _gone(pids: list[int]) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
        return cur.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("point", "people", "stop_there", "done_by_then"), POINTS, ids=[p[0] for p in POINTS])
def test_a_worker_killed_at_any_point_of_an_erasure_leaves_it_failed_resumable_and_a_resume_completes(
    point, people, stop_there, done_by_then, alice, bob, settings, monkeypatch, tmp_path
):
    requests = []
    for person in [alice, bob][:people]:
        person_with_data(person, threads=2, marker=f"{person.username}canary-")
        Memory.objects.bulk_create(
            [Memory(user=person, content=f"{person.username}killtest-{i:04d}") for i in range(MEMORIES)]
        )
        # Filed by the person (a transactional test has no compliance group: the flush took it).
        requests.append(erasure_request_create(subject=person, requested_by=person, self_service=True))
    memories = {r.pk: Memory.objects.filter(user_id=r.subject_id).count() for r in requests}
    # The real enqueue (it notes that execution was asked for), to the test's queue.
    to_queue = SimpleNamespace(
        name=execute_erasure.name, apply_async=lambda args: execute_erasure.apply_async(args=args, queue=QUEUE)
    )
    monkeypatch.setattr(erasure, "execute_erasure", to_queue)

    for request in requests:
        erasure_enqueue(request=request)

    holder = connections.create_connection("default")
    holder.set_autocommit(False)
    worker = WorkerProcess(
        tmp_path / "worker.log",
        extra_env={
            "ERASURE_BATCH_SIZE": "1",
            "DATABASE_URL": f"{database_url_for_tests()}?application_name={WORKER_APP}",
        },
        queues=QUEUE,
    )
    try:
        with holder.cursor() as cur:
            stop_there(cur, requests)
        worker.start()
        stuck = wait_for(_waiting_backends, timeout=60, what=f"the worker to wait {point}")
        worker.kill()
    finally:
        holder.rollback()
        holder.close()
        worker.stop()
    # What no worker took stays queued; the reaper below sends it again, so the next
    # worker on this queue must not find it.
    with celery_app.connection_for_write() as broker:
        broker.default_channel.queue_purge(QUEUE)
    # The killed worker's session ends when its statement returns to a closed socket.
    wait_for(lambda: _gone(stuck), what="the killed worker's session to end")

    killed = {r.pk: ErasureRequest.objects.get(pk=r.pk) for r in requests}
    assert all(r.status in ("pending", "running") and done_by_then(r) for r in killed.values()), [
        (r.status, r.executed_counts) for r in killed.values()
    ]
    assert not any(hasattr(r, "receipt") for r in killed.values())

    # The reaper's next round (execution asked for longer ago than the setting says). What
    # it sends again is kept here, not given to the session's worker: the test runs it.
    settings.ERASURE_START_STALE_AFTER = timedelta(0)
    sent: list[str] = []
    to_keep = SimpleNamespace(name=execute_erasure.name, apply_async=lambda args: sent.extend(args))
    monkeypatch.setattr(tasks, "execute_erasure", to_keep)
    assert reap_stale_erasures.run() == {"interrupted": people}
    assert sorted(sent) == sorted(str(r.pk) for r in requests)
    for request in requests:
        reaped = ErasureRequest.objects.get(pk=request.pk)
        assert reaped.status == "failed" and reaped.error_message == INTERRUPTED

        done = erasure_execute(request_id=request.pk)  # the resume the reaper sent

        assert done.status == "completed", done.error_message
        body = done.receipt.body
        assert body["counts"]["memories"] == memories[request.pk] and body["counts"]["threads"] == 2
        assert body["verification"]["clean"]
        chosen = killed[request.pk].verification
        if chosen:  # chosen before the kill: the resume checks those, not a sample of what is left
            assert body["verification"]["needles_checked"] == len(set(chosen["strings"]))
        assert not Memory.objects.filter(user_id=request.subject_id).exists()
