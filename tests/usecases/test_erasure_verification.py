"""Erasure proves what it did: the strings it looks for are the person's own, chosen before
anything is deleted, kept with the request until it completes, and checked again on every
resume; a worker killed mid-erasure leaves a request the reaper finds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from conversations.models import Thread
from conversations.services import message_append, thread_create
from governance.models import ErasureRequest, PurgeRecord
from liamemory.models import StaffAccess, StaffAccessLog
from memories.models import Memory
from tests.factories import UserFactory
from tests.usecases.people import person_with_data
from usecases import erasure_execution, erasure_steps
from usecases.erasure import (
    erasure_dry_run,
    erasure_enqueue,
    erasure_execute,
    erasure_request_create,
    legal_hold_lift,
    legal_hold_place,
)
from usecases.tasks import reap_stale_erasures

pytestmark = pytest.mark.django_db

OWN = "alicepassport-X81K22"
MEMORY_ONLY = "lockercode-Q7Z991"  # not the username: that is checked anyway


def _say(user, text: str) -> None:
    thread = Thread.objects.filter(owner=user).first() or thread_create(owner=user, title="notes")
    message_append(thread=thread, role="user", content=[{"type": "text", "text": text}])


def test_a_colleague_s_e_mail_or_a_staff_name_in_the_person_s_words_does_not_fail_the_erasure(
    alice, bob, staff, compliance
):
    bob.email = "bob.colleague7@example.test"
    bob.save()
    staff.username = "reviewer.on.duty.2026"
    staff.save()
    StaffAccessLog.objects.create(subject=bob, viewer=staff, viewer_username=staff.username, what=StaffAccess.MEMORY)
    person_with_data(alice, marker="alicecanary-")
    _say(alice, f"cc {bob.email} and ask {staff.username}; my passport is {OWN}")

    request = erasure_request_create(subject=alice, requested_by=compliance)
    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    assert done.receipt.body["verification"]["needles_checked"] > 3


def test_a_resumed_erasure_checks_the_strings_chosen_before_the_first_deletion(alice, compliance, monkeypatch):
    person_with_data(alice, threads=2, marker="alicecanary-")
    _say(alice, f"my passport is {OWN}")
    Memory.objects.create(user=alice, content=f"{MEMORY_ONLY} is my locker code")
    real, calls = erasure_steps.threads_delete, {"n": 0}

    def failing_once(**kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("worker lost")
        return real(**kwargs)

    monkeypatch.setattr(erasure_steps, "threads_delete", failing_once)
    request = erasure_request_create(subject=alice, requested_by=compliance)
    first = erasure_execute(request_id=request.pk)
    assert first.status == "failed"
    assert first.executed_counts["memories"] > 0  # the first attempt deleted some of it
    chosen = first.verification
    assert OWN in chosen["strings"] and len(chosen["uuids"]) >= 4

    # A copy of words the first attempt already deleted (a memory's), somewhere no store
    # declares: a resume that chose its strings again, from what is left, would not see it.
    assert MEMORY_ONLY in chosen["strings"]
    copy = PurgeRecord.objects.create(counts={"note": f"copied {MEMORY_ONLY}"})
    found = erasure_execute(request_id=request.pk)
    assert found.status == "failed" and found.error_message == erasure_execution.NOT_VERIFIED
    copy.delete()

    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    assert done.receipt.body["verification"]["needles_checked"] == len(set(chosen["strings"]))
    assert done.verification == {}  # personal data itself: gone with the rest
    assert OWN not in str(ErasureRequest.objects.filter(pk=request.pk).values().get())


def test_the_reaper_finds_a_running_erasure_nobody_executes_and_leaves_a_live_one(alice, bob, compliance):
    person_with_data(alice)
    person_with_data(bob)
    dead = erasure_request_create(subject=alice, requested_by=compliance)
    live = erasure_request_create(subject=bob, requested_by=compliance)
    ErasureRequest.objects.filter(pk__in=[dead.pk, live.pk]).update(status="running", attempts=1)
    from django.db import connections

    holder = connections.create_connection("default")
    try:
        with holder.cursor() as cur:  # a worker still executing the live one holds its lock
            cur.execute("SELECT pg_advisory_lock(%s)", [erasure_execution.lock_key(live.pk)])
        result = reap_stale_erasures.run()
    finally:
        holder.close()

    assert result == {"interrupted": 1}
    dead.refresh_from_db()
    live.refresh_from_db()
    assert dead.status == "failed" and dead.error_message == erasure_execution.INTERRUPTED
    assert live.status == "running"
    # The reaper enqueued the resume on commit; the task's body completes it.
    assert erasure_execute(request_id=dead.pk).status == "completed"


def test_the_reaper_leaves_a_pending_erasure_nobody_asked_to_execute_and_one_just_asked(
    alice, bob, compliance, settings
):
    charlie = UserFactory(username="charlie")

    filed = erasure_request_create(subject=alice, requested_by=compliance)  # the officer has not executed it
    fresh = erasure_request_create(subject=bob, requested_by=compliance)
    erasure_enqueue(request=fresh)  # its task is on its way
    lost = erasure_request_create(subject=charlie, requested_by=compliance)
    erasure_enqueue(request=lost)
    settings.ERASURE_START_STALE_AFTER = timedelta(minutes=1)
    ErasureRequest.objects.filter(pk=lost.pk).update(execution_asked_at=timezone.now() - timedelta(minutes=2))

    assert reap_stale_erasures.run() == {"interrupted": 1}

    assert {r.pk: r.status for r in ErasureRequest.objects.all()} == {
        filed.pk: "pending",
        fresh.pk: "pending",
        lost.pk: "failed",
    }
    # Filed again after it failed, it waits for the officer again: not lost.
    ErasureRequest.objects.filter(pk=lost.pk).update(execution_asked_at=timezone.now() - timedelta(minutes=2))
    assert erasure_request_create(subject=charlie, requested_by=compliance).pk == lost.pk
    assert reap_stale_erasures.run() == {"interrupted": 0}


def test_the_verification_strings_are_chosen_before_any_deletion(alice, compliance, monkeypatch):
    _say(alice, f"my passport is {OWN}")
    seen: dict[str, object] = {}
    real = erasure_execution._delete_everything

    def spy(request):
        seen["stored"] = ErasureRequest.objects.get(pk=request.pk).verification
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM conversations_message")
            seen["messages"] = cur.fetchone()[0]
        return real(request)

    monkeypatch.setattr(erasure_execution, "_delete_everything", spy)
    request = erasure_request_create(subject=alice, requested_by=compliance)
    assert erasure_execute(request_id=request.pk).status == "completed"
    assert OWN in seen["stored"]["strings"] and seen["messages"] == 1


def test_the_dry_run_is_the_execution_rolled_back(alice, staff, compliance):

    person_with_data(alice, threads=2)
    StaffAccessLog.objects.create(subject=alice, viewer=staff, viewer_username=staff.username, what=StaffAccess.MEMORY)
    hold = legal_hold_place(user=alice, reason="audit", actor=compliance)
    request = erasure_request_create(subject=alice, requested_by=compliance, delete_account=True)
    before = {t: Thread.objects.filter(owner=alice).count() for t in ("threads",)}

    planned = erasure_dry_run(request=request)  # counted even while held: nothing is removed

    assert Thread.objects.filter(owner=alice).count() == before["threads"] == planned["threads"] == 2
    assert StaffAccessLog.objects.get(subject=alice).subject_ref == ""
    assert ErasureRequest.objects.get(pk=request.pk).executed_counts == {}
    legal_hold_lift(hold=hold, actor=compliance)
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    # The one difference: the hold, lifted since, goes with the rest.
    assert done.receipt.body["counts"] == {**planned, "legal_holds_lifted": 1}
