"""``kill -9`` of the worker in the middle of an erasure: the reaper finds the request
nobody executes, and the resumed erasure checks the strings chosen before the first
deletion and ends ``completed`` with its receipt."""

from __future__ import annotations

import pytest

from governance.models import ErasureRequest
from memories.models import Memory
from tests.usecases.people import person_with_data
from tests.utils import wait_for
from tests.worker import WorkerProcess
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.erasure_execution import INTERRUPTED
from usecases.tasks import execute_erasure, reap_stale_erasures

QUEUE = "liamemory-test-erasure-kill"


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_erasure_leaves_a_request_the_reaper_finds_and_a_resume_completes(alice, tmp_path):
    person_with_data(alice, threads=2, marker="alicecanary-")
    Memory.objects.bulk_create([Memory(user=alice, content=f"alicekilltest-{i:04d} fact") for i in range(400)])
    memories = Memory.objects.filter(user=alice).count()
    # Filed by the person (a transactional test has no compliance group: the flush took it).
    request = erasure_request_create(subject=alice, requested_by=alice, self_service=True)
    # A worker of its own, on a queue of its own, deleting one row per transaction.
    worker = WorkerProcess(tmp_path / "worker.log", extra_env={"ERASURE_BATCH_SIZE": "1"}, queues=QUEUE).start()
    try:
        execute_erasure.apply_async(args=[str(request.pk)], queue=QUEUE)

        def deleting() -> bool:
            row = ErasureRequest.objects.get(pk=request.pk)
            return row.status == "running" and row.executed_counts.get("memories", 0) > 20

        wait_for(deleting, timeout=60, what="the erasure to be deleting")
        worker.kill()
    finally:
        worker.stop()

    stuck = ErasureRequest.objects.get(pk=request.pk)
    assert stuck.status == "running" and stuck.executed_counts["memories"] < memories  # killed midway
    chosen = stuck.verification
    assert chosen["strings"] and chosen["uuids"]

    assert reap_stale_erasures.run() == {"interrupted": 1}
    reaped = ErasureRequest.objects.get(pk=request.pk)
    assert reaped.status == "failed" and reaped.error_message == INTERRUPTED

    done = erasure_execute(request_id=request.pk)  # the resume the reaper enqueued, run here
    if done.status == "running":  # another worker of the session took it first
        done = wait_for(lambda: ErasureRequest.objects.get(pk=request.pk).status == "completed", what="the resume")
        done = ErasureRequest.objects.get(pk=request.pk)
    assert done.status == "completed", done.error_message
    body = done.receipt.body
    assert body["counts"]["memories"] == memories and body["verification"]["clean"]
    assert body["verification"]["needles_checked"] == len(set(chosen["strings"]))
    assert not Memory.objects.filter(user_id=alice.pk).exists()
