"""Erasure's fast paths: messages deleted in SQL, checkpoint tables scanned by thread."""

from __future__ import annotations

import pytest

from conversations.models import Message
from conversations.services import message_append, thread_create
from governance.models import ErasureReceipt
from memories.models import Memory
from tests.usecases.test_erasure import canary, put_checkpoint
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.erasure_scan import canaries_sample


@pytest.mark.django_db
def test_other_peoples_pointers_to_erased_messages_are_cleared_and_theirs_kept(alice, bob, compliance):
    thread = thread_create(owner=alice)
    message_append(thread=thread, role="user", content=[{"type": "text", "text": canary("said")}])
    said = Message.objects.get(thread=thread)
    bobs = Memory.objects.create(user=bob, content="bob likes tea", source_message=said)
    request = erasure_request_create(subject=alice, requested_by=compliance, delete_account=True)

    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    assert done.executed_counts["messages"] == 1
    bobs.refresh_from_db()
    assert bobs.content == "bob likes tea" and bobs.source_message_id is None


@pytest.mark.django_db
def test_receipt_says_checkpoint_tables_were_scanned_by_the_persons_threads(alice, compliance):
    thread = thread_create(owner=alice)
    put_checkpoint(thread, canary("cp"))
    request = erasure_request_create(subject=alice, requested_by=compliance)

    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    verification = ErasureReceipt.objects.get(request=done).body["verification"]
    scoped = verification["checkpoint_tables_scanned_by_thread"]
    assert scoped == ["checkpoint_blobs", "checkpoint_writes", "checkpoints"]
    assert verification["clean"] is True and verification["needles_checked"] > 0


def test_canaries_are_the_person_s_own_never_dates_numbers_or_words_others_wrote(alice, bob):

    shared, own = "internationalisation", "alicecode-77a1b2c3"
    for person, extra in ((alice, own), (bob, "")):
        thread = thread_create(owner=person, title="what day")
        text = f"today is 2026-12-03 (2026-12-03T09:15:00+00:00), call 00390115551234, {shared} {extra}"
        message_append(thread=thread, role="user", content=[{"type": "text", "text": text}])
    assert canaries_sample(user_id=alice.pk) == {own}
    assert canaries_sample(user_id=bob.pk) == set()
