"""The cap holds under concurrent writes: one user's writes are serialized on their row."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from memories.models import Memory
from memories.services import MemoryWriteRefused, memory_remember


@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_at_the_cap_store_only_one(alice, settings):
    settings.MEMORY_MAX_ACTIVE_PER_USER = 3
    memory_remember(user=alice, content="likes green tea")
    memory_remember(user=alice, content="lives in Torino")
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def write(content: str) -> None:
        try:
            barrier.wait()
            memory_remember(user=alice, content=content)
            outcomes.append("stored")
        except MemoryWriteRefused as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    contents = ["plays the violin", "has a cat called Miso", "works as a nurse", "collects stamps"]
    workers = [threading.Thread(target=write, args=(c,)) for c in contents]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=30)
    assert sorted(outcomes) == ["cap_reached", "cap_reached", "cap_reached", "stored"]
    assert Memory.objects.filter(user=alice).count() == 3


@pytest.mark.django_db(transaction=True)
def test_parallel_corrections_of_one_memory_make_one_successor(alice):
    """Six simultaneous PATCHes: one 200, five 409, one active memory (it used to fork into six)."""
    from rest_framework.test import APIClient

    memory = memory_remember(user=alice, content="my locker code is 4417").memory
    barrier = threading.Barrier(6)
    codes: list[int] = []

    def correct(n: int) -> None:
        client = APIClient()
        client.force_authenticate(alice)
        try:
            barrier.wait()
            response = client.patch(f"/api/me/memories/{memory.pk}", {"content": f"my locker code is 55{n}"}, "json")
            codes.append(response.status_code)
        finally:
            connection.close()

    workers = [threading.Thread(target=correct, args=(n,)) for n in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=30)
    assert sorted(codes) == [200, 409, 409, 409, 409, 409]
    assert Memory.objects.filter(user=alice, status="active").count() == 1
