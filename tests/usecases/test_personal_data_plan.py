"""The one engine reads the map: a deletion's dry run counts what it deletes, nothing
declared under a deleted thread survives it, and the export carries the declared stores."""

from __future__ import annotations

import pytest
from django.apps import apps

from agents.models import Approval, Run
from conversations.models import Thread
from liamemory.personal_data import Event, OnParent, Parent
from memories.services import memory_preference_set
from tests.usecases.people import person_with_data
from usecases.erasure_steps import erasure_counts
from usecases.export import EXPORTED_STORES, person_export
from usecases.personal_data import STORES, exported_rows
from usecases.personal_data_plan import deletion_plan
from usecases.thread_deletion import threads_delete


def test_the_export_carries_every_store_declared_exported():
    assert {store.name for store in STORES if store.exported} == set(EXPORTED_STORES)


# Where the export document carries each exported store's rows (the person and their
# memory switch are one entry each, whatever the rows).
_IN_DOCUMENT = {
    "account": lambda doc: [doc["person"]],
    "memory_preferences": lambda doc: [doc["person"]["long_term_memory_enabled"]],
    "threads": lambda doc: doc["threads"],
    "messages": lambda doc: [m for t in doc["threads"] for m in t["messages"]],
    "summaries": lambda doc: [s for t in doc["threads"] for s in t["summaries"]],
    "runs": lambda doc: [r for t in doc["threads"] for r in t["runs"]],
    "trace_events": lambda doc: [e for t in doc["threads"] for r in t["runs"] for e in r["trace"]],
    "approvals": lambda doc: [a for t in doc["threads"] for r in t["runs"] for a in r["approvals"]],
    "memories": lambda doc: doc["memories"],
    "memory_history_scrubbed": lambda doc: doc["audit"],
}


@pytest.mark.django_db
def test_the_export_holds_every_row_the_map_finds_of_each_exported_store(alice, bob):
    """Not only the names: each exported store's rows of the person, found by the map,
    are all in the document (a store declared exported but left out of it fails here)."""
    threads = person_with_data(alice, threads=2)
    person_with_data(bob)
    memory_preference_set(user=alice, enabled=True)
    run = Run.objects.filter(thread=threads[0]).first()
    Approval.objects.create(run=run, action="request_approval", amount=900, checkpoint_id="cp")
    doc = person_export(user=alice)
    rows = exported_rows(user_id=alice.pk)
    assert set(_IN_DOCUMENT) == set(rows)
    for name, found in rows.items():
        expected = min(found.count(), 1) if name in ("account", "memory_preferences") else found.count()
        assert expected > 0 and len(_IN_DOCUMENT[name](doc)) == expected, name


@pytest.mark.django_db
@pytest.mark.parametrize("event", [Event.DELETE, Event.EXPIRE, Event.ERASE])
def test_a_thread_deletion_s_dry_run_counts_what_it_deletes(alice, event):
    [thread] = person_with_data(alice)
    plan = deletion_plan(event=event, parent=Parent.THREAD, ids=[thread.pk])
    planned = plan.preview()
    assert Thread.objects.filter(pk=thread.pk).exists()  # the dry run changed nothing
    assert planned["threads"] == 1 and planned["messages"] > 0 and planned["trace_events"] > 0
    assert threads_delete(thread_ids=[thread.pk], event=event) == planned


@pytest.mark.django_db
def test_nothing_declared_to_go_with_a_thread_outlives_it(alice, bob):
    [thread] = person_with_data(alice)
    [kept] = person_with_data(bob)
    runs = list(thread.runs.values_list("pk", flat=True))
    messages = list(thread.messages.values_list("pk", flat=True))
    threads_delete(thread_ids=[thread.pk], event=Event.DELETE)
    ids = {Parent.THREAD: [thread.pk], Parent.RUN: runs, Parent.MESSAGE: messages}
    for store in STORES:
        for key in store.keys:
            if (
                key.parent not in ids
                or not store.model
                or key.action(Event.DELETE)
                not in (
                    OnParent.DELETE,
                    OnParent.UNLINK,
                )
            ):
                continue
            model = apps.get_model(store.model)
            left = model._default_manager.filter(**{f"{key.field}__in": ids[key.parent]})
            assert not left.exists(), f"{store.name}.{key.field}"
    assert exported_rows(user_id=bob.pk)["messages"].filter(thread=kept).exists()


# Stores tied to a person that the erasure counts under another name.
COUNTED_ELSEWHERE = {
    "account_groups": "account",  # the account's links go with it (kept empty with a kept account)
    "account_permissions": "account",
    "erasure_requests": "references_cleared",  # requests the person filed name them no more
}


def test_the_erasure_counts_every_store_the_map_ties_to_a_person():
    missing = []
    for store in STORES:
        tied = any(k.parent is Parent.PERSON and k.action(Event.ERASE) is not OnParent.KEEP for k in store.keys)
        counted = COUNTED_ELSEWHERE.get(store.name, store.name)
        if tied and counted not in erasure_counts():
            missing.append(store.name)
    assert missing == []
