"""Constraints hold in the database, and model validation explains what is wrong."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from agents.models import Run
from conversations.models import Message, Thread
from memories.models import Memory
from tests.factories import MessageFactory, RunFactory, ThreadFactory


@pytest.mark.django_db
def test_thread_ids_are_random_uuids(alice):
    a, b = Thread.objects.create(owner=alice), Thread.objects.create(owner=alice)
    assert a.id.version == 4 and a.id != b.id


@pytest.mark.django_db
def test_sequence_is_unique_per_thread(alice):
    thread = ThreadFactory(owner=alice)
    MessageFactory(thread=thread, sequence=1)
    MessageFactory(thread=ThreadFactory(owner=alice), sequence=1)  # another thread: fine
    with pytest.raises(IntegrityError, match="message_thread_sequence_uniq"), transaction.atomic():
        MessageFactory(thread=thread, sequence=1)


@pytest.mark.django_db
def test_message_role_is_closed(alice):
    thread = ThreadFactory(owner=alice)
    msg = Message(thread=thread, sequence=1, role="wizard", content=[])
    with pytest.raises(ValidationError) as err:
        msg.full_clean()
    assert "role" in err.value.message_dict
    with pytest.raises(IntegrityError, match="message_role_valid"), transaction.atomic():
        msg.save()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "constraint"),
    [
        ("kind", "gossip", "memory_kind_valid"),
        ("status", "maybe", "memory_status_valid"),
        ("importance", 0, "memory_importance_1_5"),
        ("importance", 6, "memory_importance_1_5"),
        ("content", "", "memory_content_not_empty"),
    ],
)
def test_memory_fields_are_closed(alice, field, value, constraint):
    memory = Memory(user=alice, **{"content": "prefers short answers", field: value})
    with pytest.raises(ValidationError) as err:
        memory.full_clean()
    assert field in err.value.message_dict
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        memory.save()
    assert not Memory.objects.exists()


@pytest.mark.django_db
def test_memory_content_is_short(alice):
    with pytest.raises(ValidationError) as err:
        Memory(user=alice, content="x" * 181).full_clean()
    assert "at most 180 characters" in str(err.value.message_dict["content"])


@pytest.mark.django_db
def test_one_active_run_per_thread(alice):
    thread = ThreadFactory(owner=alice)
    RunFactory(thread=thread, status="queued")
    with pytest.raises(IntegrityError, match="run_one_active_per_thread"), transaction.atomic():
        RunFactory(thread=thread, status="running")
    RunFactory(thread=thread, status="completed")  # finished runs do not count
    assert Run.objects.filter(thread=thread).count() == 2


@pytest.mark.django_db
def test_querysets_scope_by_owner(alice, bob):
    ThreadFactory(owner=alice)
    ThreadFactory(owner=bob)
    Memory.objects.create(user=alice, content="alice likes tea")
    Memory.objects.create(user=bob, content="bob likes tea", status="pending")
    assert list(Thread.objects.for_user(alice).values_list("owner__username", flat=True)) == ["alice"]
    assert [m.content for m in Memory.objects.for_user(alice).active()] == ["alice likes tea"]
    assert not Memory.objects.for_user(bob).active().exists()


@pytest.mark.django_db
def test_window_returns_last_n_in_order(alice):
    thread = ThreadFactory(owner=alice)
    for i in range(1, 31):
        MessageFactory(thread=thread, sequence=i)
    window = Message.objects.last_n(thread, 20)
    assert [m.sequence for m in window] == list(range(11, 31))
