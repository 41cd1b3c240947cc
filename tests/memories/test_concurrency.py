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
