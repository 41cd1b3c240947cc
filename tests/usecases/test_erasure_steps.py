"""The erasure's steps are read from the map of personal data: declaring a store is the one
edit that makes an erasure take it, count it and put it on the receipt."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from conversations.models import Thread
from governance.models import LegalHold
from liamemory.models import StaffAccess, StaffAccessLog
from liamemory.personal_data import Event, OnParent, Parent
from tests.usecases.people import person_with_data
from usecases import personal_data
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.erasure_steps import erasure_counts, erasure_steps

pytestmark = pytest.mark.django_db
# The erasure's own record stays; a pointer to the person is cleared with the account.
_NO_STEP = (OnParent.KEEP, OnParent.UNLINK)


def test_a_store_is_erased_once_it_is_declared_and_not_before(alice, compliance, monkeypatch):
    person_with_data(alice)
    Token.objects.create(user=alice)
    undeclared = tuple(store for store in personal_data.STORES if store.name != "api_tokens")
    monkeypatch.setattr(personal_data, "STORES", undeclared)
    assert "api_tokens" not in erasure_counts()
    request = erasure_request_create(subject=alice, requested_by=compliance)

    # Not declared: not erased, and the scan fails the erasure on what it left.
    assert erasure_execute(request_id=request.pk).status == "failed"
    assert Token.objects.filter(user=alice).exists()

    monkeypatch.undo()  # declared again: nothing else changes
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    assert done.receipt.body["counts"]["api_tokens"] == 1 and not Token.objects.filter(user=alice).exists()


def test_everything_an_erasure_does_is_counted_on_its_receipt(alice, bob, staff, compliance):
    [thread] = person_with_data(alice)
    Token.objects.create(user=alice)
    Client().force_login(alice)
    # Found only through alice's thread (written by staff): taken while the thread exists.
    LogEntry.objects.create(
        user=staff,
        content_type=ContentType.objects.get_for_model(Thread),
        object_id=str(thread.pk),
        object_repr=thread.title,
        action_flag=CHANGE,
    )
    StaffAccessLog.objects.create(subject=alice, viewer=staff, viewer_username="staff", what=StaffAccess.THREAD)
    StaffAccessLog.objects.create(subject=bob, viewer=alice, viewer_username="alice", what=StaffAccess.THREAD)
    LegalHold.objects.create(user=alice, reason="old case", placed_by=compliance, lifted_at=timezone.now())
    LegalHold.objects.create(user=bob, reason="case", placed_by=alice)
    request = erasure_request_create(subject=alice, requested_by=compliance)

    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    counts = done.receipt.body["counts"]
    assert set(done.executed_counts) <= set(erasure_counts()) == set(counts)
    expected = {
        "admin_log_entries": 1,
        "api_tokens": 1,
        "sessions": 1,
        "legal_holds_lifted": 1,
        "references_cleared": 1,
        "staff_access_pseudonymized": 2,
    }
    assert {name: counts[name] for name in expected} == expected
    assert not LogEntry.objects.exists() and not Session.objects.exists()
    assert LegalHold.objects.get(user=bob).placed_by is None
    assert not StaffAccessLog.objects.filter(subject=alice).exists()
    assert StaffAccessLog.objects.get(subject=bob).viewer_username.startswith("erased person ")


def test_the_steps_follow_the_declared_keys_in_an_order_that_finds_every_row():
    steps = erasure_steps()
    order = [(step.store.name, step.action) for step in steps]
    first_parent = min(i for i, step in enumerate(steps) if step.store.model in personal_data.PARENT_MODELS.values())
    # Rows found through any object of the person come before those objects go ...
    assert order.index(("admin_log_entries", OnParent.DELETE)) < first_parent
    # ... a memory is only unlinked from a thread (taken first), a run goes with it (after).
    assert order.index(("memories", OnParent.DELETE)) < order.index(("threads", OnParent.DELETE))
    assert order.index(("threads", OnParent.DELETE)) < order.index(("runs", OnParent.DELETE))
    # Every store with a key to the person has a step, but the account's own (last, with the scan).
    person = personal_data.PARENT_MODELS[Parent.PERSON]
    tied = {
        store.name
        for store in personal_data.STORES
        if store.model != person
        and not store.goes_with
        and any(k.parent is Parent.PERSON and k.action(Event.ERASE) not in _NO_STEP for k in store.keys)
    }
    assert tied <= {step.store.name for step in steps}


def test_a_pseudonymizing_key_empties_its_own_column_so_its_batches_end():
    for store in personal_data.STORES:
        for key in store.keys:
            if key.parent is Parent.PERSON and OnParent.PSEUDONYMIZE in {key.on_parent, *dict(key.on).values()}:
                assert key.field in key.scrubs, f"{store.name}.{key.field}"
        if any(k.parent is Parent.PERSON and k.on_parent is OnParent.SCRUB_HISTORY for k in store.keys):
            assert store.scrub_with is not None, store.name
