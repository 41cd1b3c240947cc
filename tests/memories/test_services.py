"""What may be remembered, and how a memory changes, as a user or staff would notice."""

from __future__ import annotations

import pytest

from memories.models import Memory, MemoryKind, MemoryStatus
from memories.recall import search_memories
from memories.selectors import (
    MemoryNotFound,
    long_term_enabled_for,
    memory_get_for_user,
    memory_list_for_staff,
    pinned_memories,
)
from memories.services import (
    MemoryWriteRefused,
    memory_approve,
    memory_correct,
    memory_delete,
    memory_expire_now,
    memory_forget,
    memory_preference_set,
    memory_reject,
    memory_remember,
    memory_touch_used,
    memory_update,
)
from tests.factories import MessageFactory, RunFactory, ThreadFactory

pytestmark = pytest.mark.django_db


def remember(user, content, **kw):
    return memory_remember(user=user, content=content, writer_name="assistant", **kw)


def test_a_fact_is_stored_with_its_provenance(alice):
    thread = ThreadFactory(owner=alice)
    message = MessageFactory(thread=thread, sequence=1, text="remember that my order is A-7781")
    run = RunFactory(thread=thread)
    out = remember(
        alice, "  The user's order number is A-7781  ", source_thread=thread, source_message=message, source_run=run
    )
    assert out.action == "created"
    m = Memory.objects.get(pk=out.memory.pk)
    assert m.content == "The user's order number is A-7781"
    assert (m.status, m.kind, m.importance, m.writer_type, m.writer_name) == ("active", "fact", 3, "agent", "assistant")
    assert (m.source_thread_id, m.source_thread_ref, m.source_message_id, m.source_run_id) == (
        thread.pk,
        thread.pk,
        message.pk,
        run.pk,
    )
    assert [h.memory.pk for h in search_memories(user=alice, query="what is my order number?")] == [m.pk]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"content": "   "}, "empty"),
        ({"content": "x" * 181}, "too_long"),
        ({"content": "ok", "kind": "secret"}, "bad_kind"),
        ({"content": "ok", "kind": "rule", "allowed_kinds": ("fact",)}, "bad_kind"),
        ({"content": "ok", "importance": 9}, "bad_importance"),
        ({"content": "ok", "importance": True}, "bad_importance"),
    ],
)
def test_bad_writes_are_refused_with_how_to_fix(alice, kwargs, code):
    with pytest.raises(MemoryWriteRefused) as err:
        memory_remember(user=alice, **kwargs)
    exc = err.value
    assert exc.code == code
    assert exc.error and exc.how_to_fix and exc.extra["how_to_fix"] == exc.how_to_fix
    assert exc.as_tool_result() == {"ok": False, "error": exc.error, "how_to_fix": exc.how_to_fix}
    assert not Memory.objects.exists()


def test_exactly_180_characters_is_allowed(alice):
    assert remember(alice, "y" * 180).action == "created"


def test_the_cap_refuses_and_says_how_to_fix(alice, bob, settings):
    settings.MEMORY_MAX_ACTIVE_PER_USER = 3
    for content in ("likes green tea", "lives in Torino", "works as a nurse"):
        remember(alice, content)
    with pytest.raises(MemoryWriteRefused) as err:
        remember(alice, "has a cat called Miso")
    assert err.value.code == "cap_reached"
    assert "forget_fact" in err.value.how_to_fix
    assert Memory.objects.filter(user=alice).count() == 3
    # The cap is per user, and restating an existing memory still works at the cap.
    assert remember(bob, "has a cat called Miso").action == "created"
    assert remember(alice, "the user likes green tea").action == "updated"
    # Forgetting one makes room.
    assert memory_forget(user=alice, memory_id=Memory.objects.get(user=alice, content__contains="nurse").pk)
    assert remember(alice, "has a cat called Miso").action == "created"


def test_expired_memories_do_not_count_towards_the_cap(alice, settings):
    settings.MEMORY_MAX_ACTIVE_PER_USER = 1
    memory_expire_now(actor=alice, memory=remember(alice, "likes green tea").memory)
    assert remember(alice, "lives in Torino").action == "created"


def test_a_near_duplicate_updates_instead_of_inserting(alice):
    first = remember(alice, "The user prefers shipping to the office", importance=2).memory
    out = remember(alice, "the user prefers shipping to the office.", importance=4)
    assert out.action == "updated" and out.memory.pk == first.pk and out.previous_id == first.pk
    first.refresh_from_db()
    assert first.content == "the user prefers shipping to the office." and first.importance == 4
    assert Memory.objects.filter(user=alice).count() == 1
    # Another kind is another memory.
    assert remember(alice, "the user prefers shipping to the office", kind="platform").action == "created"


def test_a_contradiction_supersedes_and_links_the_old_memory(alice):
    old = remember(alice, "my order number is A-7781").memory
    out = remember(alice, "my order number is B-1200")
    assert out.action == "superseded" and out.previous_id == old.pk
    old.refresh_from_db()
    assert old.status == MemoryStatus.SUPERSEDED and old.superseded_by_id == out.memory.pk
    hits = search_memories(user=alice, query="what is my order number")
    assert [h.memory.content for h in hits] == ["my order number is B-1200"]


def test_a_flipped_negation_supersedes(alice):
    old = remember(alice, "I like coffee in the morning").memory
    out = remember(alice, "I don't like coffee in the morning")
    assert out.action == "superseded"
    old.refresh_from_db()
    assert old.superseded_by_id == out.memory.pk


def test_a_different_subject_with_a_number_is_a_new_memory(alice):
    remember(alice, "my order number is A-7781")
    out = remember(alice, "my phone number is 555-0134")
    assert out.action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 2


def test_review_kinds_stay_pending_and_invisible_until_approved(alice, staff, settings):
    settings.MEMORY_REVIEW_KINDS = ("rule",)
    out = remember(alice, "always answer in Italian", kind="rule")
    assert out.action == "pending" and out.memory.status == MemoryStatus.PENDING
    assert search_memories(user=alice, query="answer in Italian") == []
    assert pinned_memories(user=alice) == []
    assert list(Memory.objects.filter(status=MemoryStatus.PENDING)) == [out.memory]
    memory_approve(actor=staff, memory=out.memory)
    assert [h.memory.pk for h in search_memories(user=alice, query="answer in Italian")] == [out.memory.pk]
    assert pinned_memories(user=alice) == [out.memory]
    assert list(Memory.objects.filter(status=MemoryStatus.PENDING)) == []


def test_staff_writes_of_review_kinds_are_active_at_once(alice, staff):
    out = memory_remember(
        user=alice, content="billing contact is Marta", kind=MemoryKind.CLIENT_SETUP, writer_type="staff", actor=staff
    )
    assert out.action == "created" and out.memory.status == MemoryStatus.ACTIVE


def test_rejected_memories_never_reach_a_context(alice, staff):
    out = remember(alice, "team policy: refunds up to 50 EUR", kind=MemoryKind.TEAM_POLICY)
    memory_reject(actor=staff, memory=out.memory, reason="not a real policy")
    assert out.memory.status == MemoryStatus.REJECTED
    assert search_memories(user=alice, query="refunds policy") == []
    record = out.memory.history.first()
    assert record.history_user == staff and record.history_change_reason == "rejected: not a real policy"
    with pytest.raises(Exception, match="only pending"):
        memory_approve(actor=staff, memory=out.memory)


def test_memory_off_refuses_and_hides(alice, bob):
    remember(alice, "likes green tea")
    memory_preference_set(user=alice, enabled=False)
    assert not long_term_enabled_for(user=alice) and long_term_enabled_for(user=bob)
    with pytest.raises(MemoryWriteRefused) as err:
        remember(alice, "lives in Torino")
    assert err.value.code == "memory_off" and "Do not retry" in err.value.how_to_fix
    memory_preference_set(user=alice, enabled=True)
    assert remember(alice, "lives in Torino").action == "created"


def test_memory_switched_off_globally_refuses(alice, settings):
    settings.LONG_TERM_MEMORY_ENABLED = False
    with pytest.raises(MemoryWriteRefused) as err:
        remember(alice, "lives in Torino")
    assert err.value.code == "memory_disabled"
    assert not long_term_enabled_for(user=alice)


def test_incognito_threads_write_nothing(alice):
    thread = ThreadFactory(owner=alice, incognito=True)
    with pytest.raises(MemoryWriteRefused) as err:
        remember(alice, "lives in Torino", source_thread=thread)
    assert err.value.code == "incognito"
    assert not Memory.objects.exists()


def test_forget_only_reaches_the_callers_own(alice, bob):
    bobs = remember(bob, "bob's secret is 1234").memory
    assert memory_forget(user=alice, memory_id=bobs.pk) is False
    assert memory_forget(user=alice, memory_id=999_999) is False
    assert memory_forget(user=alice, memory_id="not-a-number") is False
    assert Memory.objects.filter(pk=bobs.pk).exists()
    with pytest.raises(MemoryNotFound):
        memory_get_for_user(user=alice, memory_id=bobs.pk)
    assert memory_get_for_user(user=bob, memory_id=bobs.pk) == bobs


def test_forget_removes_the_superseded_versions_too(alice):
    remember(alice, "my order number is A-7781")
    newest = remember(alice, "my order number is B-1200").memory
    assert memory_forget(user=alice, memory_id=newest.pk)
    assert not Memory.objects.filter(user=alice).exists()
    deleted = newest.history.filter(history_type="-").first()
    assert deleted.history_user == alice and deleted.history_change_reason == "forgotten by the user"


def test_correction_supersedes_and_records_who(alice, staff):
    old = remember(alice, "lives in Torino").memory
    new = memory_correct(actor=staff, memory=old, content="lives in Milano")
    old.refresh_from_db()
    assert (old.status, old.superseded_by_id) == ("superseded", new.pk)
    assert (new.status, new.writer_type, new.writer_name) == ("active", "staff", staff.username)
    assert new.history.first().history_user == staff
    own = memory_correct(actor=alice, memory=new, content="lives in Milano, near the station")
    assert own.writer_type == "user"
    with pytest.raises(Exception, match="superseded"):
        memory_correct(actor=staff, memory=old, content="again")


def test_history_records_actor_before_and_after(alice, staff):
    memory = remember(alice, "likes green tea").memory
    memory_update(actor=staff, memory=memory, content="likes jasmine tea", importance=5)
    newest, previous = memory.history.all()[:2]
    assert previous.history_user is None and previous.history_change_reason == "agent:assistant"
    assert newest.history_user == staff and newest.history_change_reason == "staff edit"
    delta = newest.diff_against(previous)
    changes = {c.field: (c.old, c.new) for c in delta.changes}
    assert changes["content"] == ("likes green tea", "likes jasmine tea")
    assert changes["importance"] == (3, 5)
    with pytest.raises(Exception, match="status"):
        memory_update(actor=staff, memory=memory, status="active")


def test_expire_and_delete(alice, staff):
    memory = remember(alice, "likes green tea").memory
    memory_expire_now(actor=staff, memory=memory)
    assert search_memories(user=alice, query="green tea") == []
    assert memory.history.first().history_change_reason == "expired now"
    memory_id = memory.pk
    memory_delete(actor=staff, memory=memory)
    assert not Memory.objects.exists()
    assert Memory.history.filter(id=memory_id, history_type="-").get().history_user == staff


def test_touch_used_sets_last_used_without_history(alice):
    memory = remember(alice, "likes green tea").memory
    assert memory_touch_used(memory_ids=[memory.pk]) == 1
    memory.refresh_from_db()
    assert memory.last_used_at is not None and memory.history.count() == 1


def test_staff_search_ranks_by_similarity(alice, bob):
    remember(alice, "likes green tea")
    remember(bob, "plays the violin")
    remember(bob, "drinks green tea every morning")
    found = [m.content for m in memory_list_for_staff(q="green tea")]
    assert set(found) == {"likes green tea", "drinks green tea every morning"}
    assert [m.content for m in memory_list_for_staff(user_id=bob.pk, q="tea")] == ["drinks green tea every morning"]
    assert memory_list_for_staff(status="pending").count() == 0


def test_remember_result_tells_the_model_what_happened(alice, settings):
    settings.MEMORY_REVIEW_KINDS = ("team_policy",)
    created = remember(alice, "my order number is A-7781")
    assert created.as_tool_result() == {
        "ok": True,
        "memory_id": created.memory.pk,
        "action": "created",
        "status": "active",
        "note": "Remembered.",
    }
    superseding = remember(alice, "my order number is B-1200").as_tool_result()
    assert f"replaces memory #{created.memory.pk}" in superseding["note"]
    pending = remember(alice, "refunds need a receipt", kind="team_policy").as_tool_result()
    assert pending["status"] == "pending" and "review" in pending["note"]


def test_a_memory_cannot_claim_another_users_conversation(alice, bob):
    with pytest.raises(MemoryWriteRefused) as err:
        remember(alice, "lives in Torino", source_thread=ThreadFactory(owner=bob))
    assert err.value.code == "foreign_source"
    assert not Memory.objects.exists()
