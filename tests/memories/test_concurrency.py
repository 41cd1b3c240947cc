"""The cap holds under concurrent writes: one user's writes are serialized on their row."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from conversations.models import Message
from conversations.services import thread_create
from liamemory.errors import Conflict
from memories.models import Memory, MemoryStatus
from memories.services import MemoryWriteRefused, memory_remember
from tests.usecases.turn.helpers import run_turn
from usecases.memory_correction import memory_correct


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


def _race(calls) -> list[int]:
    """Run the calls at once, each in its own thread (its own database connection)."""
    from rest_framework.test import APIClient

    barrier = threading.Barrier(len(calls))
    codes: list[int] = []

    def go(user, method: str, url: str, body: dict) -> None:
        client = APIClient()
        client.force_authenticate(user)
        try:
            barrier.wait()
            codes.append(getattr(client, method)(url, body, "json").status_code)
        finally:
            connection.close()

    workers = [threading.Thread(target=go, args=call) for call in calls]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert len(codes) == len(calls), "a request never ended"
    return codes


@pytest.fixture
def told(alice):
    """Alice stated a locker code in a real turn and the offline model remembered it from her message."""

    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my locker code is 4417")
    memory = Memory.objects.get(user=alice, status="active")
    assert memory.source_message.sequence == 1
    return thread, memory


@pytest.mark.django_db(transaction=True)
def test_memory_and_message_corrections_racing_never_deadlock(alice, told):
    """A correction of a memory and one of the message it came from lock the same rows: in one order."""

    thread, memory = told
    message_url = f"/api/threads/{thread.pk}/messages/1/correct"
    calls = []
    for n in range(10):
        calls.append((alice, "patch", f"/api/me/memories/{memory.pk}", {"content": f"my locker code is 55{n}"}))
        calls.append((alice, "post", message_url, {"right_value": f"66{n}", "about": "my locker code"}))
    codes = _race(calls)
    assert 503 not in codes and 500 not in codes, codes
    assert set(codes) <= {200, 201, 409}, codes
    assert codes.count(201) == 1, codes  # one correction of the message wins
    assert Message.objects.filter(thread=thread, corrects__isnull=False).count() == 1
    assert Memory.objects.filter(user=alice, status="active").count() == 1


@pytest.mark.django_db(transaction=True)
def test_parallel_corrections_of_one_message_one_wins_the_others_409(alice, told):

    thread, _memory = told
    url = f"/api/threads/{thread.pk}/messages/1/correct"
    codes = _race([(alice, "post", url, {"right_value": f"77{n}"}) for n in range(6)])
    assert sorted(codes) == [201, 409, 409, 409, 409, 409]
    assert Message.objects.filter(thread=thread, corrects__isnull=False).count() == 1
    assert Memory.objects.filter(user=alice, status="active").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_remembered_change_racing_a_correction_of_the_memory_it_supersedes_never_deadlocks(alice):
    """The write that supersedes holds the person's row; the correction holds the memory and
    refers to the person: the person's lock must not block a row that merely refers to them."""
    from django.db import OperationalError

    memory = memory_remember(user=alice, content="my locker code is 4417").memory
    barrier = threading.Barrier(12)
    outcomes: list[str] = []

    def correct(n: int) -> None:
        try:
            barrier.wait()
            memory_correct(actor=alice, memory=memory, content=f"my locker code is 55{n}")
            outcomes.append("corrected")
        except Conflict:
            outcomes.append("conflict")
        except OperationalError as exc:
            outcomes.append(f"database error: {exc}")
        finally:
            connection.close()

    def remember(n: int) -> None:
        try:
            barrier.wait()
            outcomes.append(memory_remember(user=alice, content=f"my locker code is now 66{n}").action)
        except MemoryWriteRefused as exc:
            outcomes.append(exc.code)
        except OperationalError as exc:
            outcomes.append(f"database error: {exc}")
        finally:
            connection.close()

    workers = [threading.Thread(target=f, args=(n,)) for n in range(6) for f in (correct, remember)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert len(outcomes) == 12, outcomes
    assert not [o for o in outcomes if o.startswith("database error")], outcomes
    assert Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).exists()
