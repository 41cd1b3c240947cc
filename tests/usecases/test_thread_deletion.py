"""Deleting one thread or message takes what was derived from it, and nothing else."""

from __future__ import annotations

import pytest
from django.db import connection

from conversations.models import Thread
from conversations.services import message_append, thread_create
from memories.models import Memory
from tests.usecases.test_erasure import put_checkpoint
from usecases.thread_deletion import DeletionForbidden, thread_delete


def checkpoint_rows(thread: Thread) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", [str(thread.pk)])
        return cur.fetchone()[0]


def text(s: str) -> list[dict]:
    return [{"type": "text", "text": s}]


@pytest.mark.django_db
def test_thread_delete_takes_memories_whose_only_source_it_was(alice):
    doomed = thread_create(owner=alice)
    kept = thread_create(owner=alice)
    message = message_append(thread=doomed, role="user", content=text("I live in Turin"))
    from_thread = Memory.objects.create(user=alice, content="lives in Turin", source_thread=doomed)
    from_message = Memory.objects.create(user=alice, content="said Turin", source_message=message)
    elsewhere = Memory.objects.create(user=alice, content="likes tea", source_thread=kept)
    written_by_hand = Memory.objects.create(user=alice, content="prefers email", writer_type="user")
    put_checkpoint(doomed, "doomed")
    put_checkpoint(kept, "kept")

    counts = thread_delete(thread=doomed, actor=alice)

    assert counts["threads"] == 1 and counts["messages"] == 1 and counts["memories"] == 2
    assert not Memory.objects.filter(pk__in=[from_thread.pk, from_message.pk]).exists()
    assert set(Memory.objects.filter(user=alice)) == {elsewhere, written_by_hand}
    assert checkpoint_rows(doomed) == 0 and checkpoint_rows(kept) == 1
    # The audit history records who deleted the memories.
    deleted = Memory.history.model.objects.filter(id=from_thread.pk, history_type="-").get()
    assert deleted.history_user_id == alice.pk


@pytest.mark.django_db
def test_thread_delete_by_owner_or_staff_only(alice, bob, staff):
    thread = thread_create(owner=alice)
    with pytest.raises(DeletionForbidden):
        thread_delete(thread=thread, actor=bob)
    assert Thread.objects.filter(pk=thread.pk).exists()
    thread_delete(thread=thread, actor=staff)
    assert not Thread.objects.filter(pk=thread.pk).exists()
