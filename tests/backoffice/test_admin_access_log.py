"""Every admin list or page that shows people's data writes StaffAccessLog rows: one per
person on the page, in one INSERT."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agents.models import Approval, Run, TraceEvent
from conversations.models import ThreadSummary
from liamemory.admin_utils import AccessLoggedMixin
from liamemory.models import StaffAccessLog
from liamemory.personal_data import Parent
from tests.backoffice.test_admin import make_thread
from tests.factories import MemoryFactory, RunFactory
from usecases.personal_data import PARENT_MODELS, STORES

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def data(alice, bob):
    threads = {p.username: make_thread(p, 3) for p in (alice, bob)}
    for person, thread in ((alice, threads["alice"]), (bob, threads["bob"])):
        RunFactory(thread=thread, user=person, status="completed")
        MemoryFactory(user=person, content=f"{person.username} likes tea", status="active")
        MemoryFactory(user=person, content=f"{person.username} setup", kind="client_setup", status="pending")
    Run.objects.filter(thread=threads["alice"]).update(status="interrupted")
    for run in Run.objects.filter(thread=threads["alice"]):
        Approval.objects.create(run=run, action="request_approval", amount=900, checkpoint_id="cp")
    return threads


def _inserts(ctx) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if q["sql"].startswith('INSERT INTO "memories_staffaccesslog"')]


@pytest.mark.parametrize(
    ("url_name", "what", "people"),
    [
        ("admin:conversations_thread_changelist", "thread", {"alice", "bob"}),
        ("admin:conversations_message_changelist", "message", {"alice", "bob"}),
        ("admin:memories_memory_changelist", "memory", {"alice", "bob"}),
        ("admin:memories_pendingmemory_changelist", "memory", {"alice", "bob"}),
        ("admin:agents_run_changelist", "run", {"alice", "bob"}),
        ("admin:agents_approval_changelist", "run", {"alice"}),
    ],
)
def test_a_list_of_people_s_data_is_logged_once_per_person_in_one_insert(
    staff_client, data, alice, bob, url_name, what, people
):
    with CaptureQueriesContext(connection) as ctx:
        response = staff_client.get(reverse(url_name))
    assert response.status_code == 200
    assert len(_inserts(ctx)) == 1
    logged = StaffAccessLog.objects.filter(what=what)
    assert {row.subject.username for row in logged} == people
    assert all(row.viewer_username == "charlie_staff" and row.object_ref == "list" for row in logged)


@pytest.mark.parametrize(
    ("url_name", "what"),
    [("admin:conversations_message_changelist", "message"), ("admin:agents_run_changelist", "run")],
)
def test_a_list_filtered_by_thread_is_logged_against_its_owner(staff_client, data, alice, url_name, what):
    thread = data["alice"]
    response = staff_client.get(reverse(url_name), {"thread": thread.pk})
    assert response.status_code == 200
    [row] = StaffAccessLog.objects.filter(what=what)
    assert row.subject == alice and row.object_ref == f"list?thread={thread.pk}"


def test_the_memory_correct_page_is_logged(staff_client, alice):
    memory = MemoryFactory(user=alice, content="alice's locker is 7781")
    response = staff_client.get(reverse("admin:memories_memory_correct", args=[memory.pk]))
    assert response.status_code == 200 and "7781" in response.content.decode()
    [row] = StaffAccessLog.objects.all()
    assert row.subject == alice and row.what == "memory" and row.object_ref == str(memory.pk)


def test_an_empty_list_logs_nothing(staff_client):
    assert staff_client.get(reverse("admin:conversations_thread_changelist")).status_code == 200
    assert not StaffAccessLog.objects.exists()


def test_the_log_names_the_filter_never_the_search_words(staff_client, data, alice):
    response = staff_client.get(reverse("admin:memories_memory_changelist"), {"q": "alice likes tea"})
    assert response.status_code == 200
    refs = set(StaffAccessLog.objects.values_list("object_ref", flat=True))
    assert refs and not any("tea" in ref for ref in refs)


def _logged_admins():
    from django.contrib import admin

    return sorted(
        (model._meta.label_lower, model_admin)
        for model, model_admin in admin.site._registry.items()
        if isinstance(model_admin, AccessLoggedMixin)
    )


@pytest.mark.parametrize("label", [label for label, _ in _logged_admins()])
def test_every_history_page_of_a_person_s_data_is_logged(staff_client, data, alice, label):
    """The history pages name the object (a thread's title, a memory's text in each version)."""
    from django.contrib.admin.utils import quote

    thread = data["alice"]
    run = Run.objects.filter(thread=thread).first()
    TraceEvent.objects.create(run=run, kind="tool_call", name="recall_facts", payload={})
    ThreadSummary.objects.create(thread=thread, version=1, text="alice ships to Oslo", covers_through=2, model="x")
    model_admin = dict(_logged_admins())[label]
    mine = [o for o in model_admin.model._default_manager.all() if model_admin.access_subject_id(o) == alice.pk]
    assert mine, f"no object of alice's for {label}"
    obj = mine[0]
    url = reverse(f"admin:{model_admin.opts.app_label}_{model_admin.opts.model_name}_history", args=[quote(obj.pk)])
    response = staff_client.get(url, follow=True)
    assert response.status_code == 200
    rows = StaffAccessLog.objects.filter(subject=alice)
    assert rows.count() >= 1 and {r.what for r in rows} == {model_admin.access_what}


def test_a_memory_version_page_is_logged(staff_client, alice):
    memory = MemoryFactory(user=alice, content="alice's locker is 7781")
    memory.content = "alice's locker is 7790"
    memory.save()
    version = memory.history.order_by("history_id").first()
    response = staff_client.get(reverse("admin:memories_memory_simple_history", args=[memory.pk, version.history_id]))
    assert response.status_code == 200 and "7781" in response.content.decode()
    [row] = StaffAccessLog.objects.all()
    assert row.subject == alice and row.what == "memory"


def test_the_thread_history_page_writes_a_staff_access_row(staff_client, data, alice):
    """The issue's repro: the history page of a thread showed its title with no row."""
    thread = data["alice"]
    response = staff_client.get(reverse("admin:conversations_thread_history", args=[thread.pk]))
    assert response.status_code == 200 and thread.title in response.content.decode()
    row = StaffAccessLog.objects.get(subject=alice)
    assert row.what == "thread" and row.object_ref == f"{thread.pk} history" and row.viewer.is_staff


def test_every_admin_of_conversations_runs_or_memories_logs_staff_access():
    """So the history test above covers them all: a store of what people said or what was
    done for them (the map's threads, runs, messages, memories and what hangs off them),
    shown in admin, writes the access log."""
    from django.contrib import admin

    below_a_person = {Parent.THREAD, Parent.RUN, Parent.MESSAGE, Parent.MEMORY}
    parents = {PARENT_MODELS[p] for p in below_a_person}
    shown = []
    for store in STORES:
        model = apps.get_model(store.model) if store.model else None
        if model is None or model not in admin.site._registry or not store.content:
            continue
        if store.model in parents or any(k.parent in below_a_person for k in store.keys):
            shown.append((store.model, isinstance(admin.site._registry[model], AccessLoggedMixin)))
    assert len(shown) >= 6 and all(logged for _, logged in shown), shown
