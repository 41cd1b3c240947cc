"""The staff admin: what staff can see and do, with bounded cost on big tables."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agents.models import RunTransition, TraceEvent
from conversations.models import Message, MessageRole, Thread, ThreadSummary
from liamemory.models import StaffAccessLog
from memories.models import Memory, MemoryStatus
from memories.services import memory_remember
from tests.factories import MemoryFactory, RunFactory, ThreadFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, staff):
    assert not staff.is_superuser
    client.force_login(staff)
    return client


def make_thread(owner, n_messages: int) -> Thread:
    thread = ThreadFactory(owner=owner, next_sequence=n_messages + 1)
    Message.objects.bulk_create(
        Message(
            thread=thread,
            sequence=i,
            role=MessageRole.USER if i % 2 else MessageRole.ASSISTANT,
            text=f"message {i} about shipping",
            content=[{"type": "text", "text": f"message {i} about shipping"}],
        )
        for i in range(1, n_messages + 1)
    )
    return thread


@pytest.fixture
def busy(alice, bob):
    """Many rows everywhere, so that a per-row query would show in the counts."""
    threads = [make_thread(alice if i % 2 else bob, 30) for i in range(8)]
    for thread in threads:
        ThreadSummary.objects.create(thread=thread, version=1, text="so far", covers_through=10, model="offline")
        run = RunFactory(thread=thread, status="completed", context_report={"memory_ids": []})
        TraceEvent.objects.bulk_create(TraceEvent(run=run, kind="model_call", name="m") for _ in range(20))
    for i in range(60):
        MemoryFactory(user=alice if i % 2 else bob, content=f"fact number {i}", status="pending" if i % 5 else "active")
    return threads


@pytest.mark.parametrize(
    "url_name",
    [
        "admin:conversations_thread_changelist",
        "admin:conversations_message_changelist",
        "admin:conversations_threadsummary_changelist",
        "admin:agents_run_changelist",
        "admin:agents_traceevent_changelist",
        "admin:memories_memory_changelist",
        "admin:memories_pendingmemory_changelist",
        "admin:liamemory_staffaccesslog_changelist",
    ],
)
def test_staff_open_changelists_with_bounded_queries(staff_client, busy, url_name, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        response = staff_client.get(reverse(url_name))
    assert response.status_code == 200


@pytest.mark.parametrize(
    "url_name",
    ["admin:conversations_message_changelist", "admin:agents_traceevent_changelist", "admin:agents_run_changelist"],
)
def test_big_tables_are_never_counted(staff_client, busy, url_name):
    with CaptureQueriesContext(connection) as ctx:
        response = staff_client.get(reverse(url_name), {"p": 2})
    assert response.status_code == 200
    assert not [q["sql"] for q in ctx.captured_queries if "COUNT(" in q["sql"].upper()]
    assert b"not counted" in response.content


def test_thread_page_shows_the_last_200_messages_and_links_the_rest(staff_client, alice, django_assert_max_num_queries):
    thread = make_thread(alice, 260)
    ThreadSummary.objects.create(thread=thread, version=1, text="first summary", covers_through=100, model="offline")
    ThreadSummary.objects.create(thread=thread, version=2, text="second summary", covers_through=200, model="offline")
    with django_assert_max_num_queries(15):
        response = staff_client.get(reverse("admin:conversations_thread_change", args=[thread.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "message 260 about shipping" in html and "message 61 about shipping" in html
    assert "message 60 about shipping" not in html
    assert html.index("message 61 about") < html.index("message 260 about")
    assert f"?thread={thread.pk}" in html and "all 260 messages" in html
    assert "first summary" in html and "second summary" in html
    # The full list, filtered by thread, in conversation order.
    response = staff_client.get(reverse("admin:conversations_message_changelist"), {"thread": thread.pk})
    assert response.status_code == 200
    assert [m.sequence for m in response.context["cl"].result_list][:3] == [1, 2, 3]
    assert StaffAccessLog.objects.filter(subject=alice, what="thread").count() == 1


def test_thread_list_shows_message_counts_without_per_row_queries(staff_client, alice):
    make_thread(alice, 7)
    response = staff_client.get(reverse("admin:conversations_thread_changelist"))
    assert [t.message_total for t in response.context["cl"].result_list] == [7]


def test_run_page_shows_what_went_into_the_prompt(staff_client, alice, django_assert_max_num_queries):
    thread = make_thread(alice, 30)
    ThreadSummary.objects.create(thread=thread, version=3, text="s", covers_through=9, model="offline")
    memory = MemoryFactory(user=alice, content="prefers shipping to the office")
    quoted = Message.objects.get(thread=thread, sequence=4)
    run = RunFactory(
        thread=thread,
        status="completed",
        # A row written before the report had a version: read as version 1.
        context_report={
            "summary_version": 3,
            "summary_covers_through": 9,
            "memory_ids": [memory.pk, 999_999],
            "window_first_sequence": 11,
            "window_last_sequence": 30,
            "window_messages": 20,
            "dropped_for_budget": 0,
            "uncovered_messages": 1,
            "excerpts": [{"message_id": quoted.pk, "sequence": quoted.sequence}, {"message_id": -1, "sequence": 2}],
            "excerpt_tokens": 42,
        },
    )
    TraceEvent.objects.bulk_create(
        TraceEvent(run=run, kind="retrieval", name=f"step {i}", payload={"i": i}) for i in range(40)
    )
    RunTransition.objects.create(
        run=run, from_status="queued", to_status="running", reason="claimed", at=run.created_at
    )
    RunTransition.objects.create(run=run, from_status="running", to_status="completed", at=run.created_at)
    with django_assert_max_num_queries(15):
        response = staff_client.get(reverse("admin:agents_run_change", args=[run.pk]))
    html = response.content.decode()
    assert "what went into this prompt" in html.lower()
    assert reverse("admin:memories_memory_change", args=[memory.pk]) in html
    assert "prefers shipping to the office" in html and "#999999 (since deleted)" in html
    assert "v3 (covers messages 1–9)" in html and "sequence__gte=11&amp;sequence__lte=30" in html
    assert "step 39" in html
    assert "run transitions" in html.lower() and "claimed" in html
    assert "Older excerpts" in html and "2 (42 tokens)" in html
    assert reverse("admin:conversations_message_change", args=[quoted.pk]) in html and "#2 (since deleted)" in html


def test_memory_list_filters_and_search(staff_client, alice, bob):
    thread = ThreadFactory(owner=alice)
    from_chat = memory_remember(user=alice, content="prefers shipping to the office", source_thread=thread).memory
    staff_written = MemoryFactory(user=bob, content="plays the violin", writer_type="staff")
    url = reverse("admin:memories_memory_changelist")

    def ids(**params):
        response = staff_client.get(url, params)
        assert response.status_code == 200
        return {m.pk for m in response.context["cl"].result_list}

    assert ids(user_id=alice.pk) == {from_chat.pk}
    assert ids(user_id="nonsense") == set()
    assert ids(source="conversation") == {from_chat.pk}
    assert ids(source="none") == {staff_written.pk}
    assert ids(writer_type__exact="staff") == {staff_written.pk}
    assert ids(q="shipping office") == {from_chat.pk}
    html = staff_client.get(url).content.decode()
    assert reverse("admin-person", args=[alice.pk]) in html


def test_memory_page_links_provenance_and_logs_the_view(staff_client, alice, django_assert_max_num_queries):
    thread = make_thread(alice, 2)
    message = thread.messages.get(sequence=1)
    run = RunFactory(thread=thread)
    memory = memory_remember(
        user=alice, content="order A-7781", source_thread=thread, source_message=message, source_run=run
    ).memory
    with django_assert_max_num_queries(15):
        response = staff_client.get(reverse("admin:memories_memory_change", args=[memory.pk]))
    html = response.content.decode()
    assert reverse("admin:conversations_message_change", args=[message.pk]) in html
    assert reverse("admin:agents_run_change", args=[run.pk]) in html
    assert reverse("admin:conversations_thread_change", args=[thread.pk]) in html
    log = StaffAccessLog.objects.get(what="memory")
    assert (log.subject, log.viewer_username, log.object_ref) == (alice, "charlie_staff", str(memory.pk))
    history = staff_client.get(reverse("admin:memories_memory_history", args=[memory.pk]))
    assert history.status_code == 200


def run_action(client, action, memories, url_name="admin:memories_memory_changelist"):
    return client.post(
        reverse(url_name),
        {"action": action, "_selected_action": [m.pk for m in memories]},
        follow=True,
    )


def test_approve_and_reject_from_the_review_queue(staff_client, staff, alice):
    first, second, active = (
        MemoryFactory(user=alice, status="pending"),
        MemoryFactory(user=alice, status="pending"),
        MemoryFactory(user=alice),
    )
    queue = staff_client.get(reverse("admin:memories_pendingmemory_changelist"))
    assert {m.pk for m in queue.context["cl"].result_list} == {first.pk, second.pk}
    run_action(staff_client, "approve_selected", [first, active], "admin:memories_pendingmemory_changelist")
    confirm = run_action(staff_client, "reject_selected", [second], "admin:memories_pendingmemory_changelist")
    assert "Reject these memories?" in confirm.content.decode()
    second.refresh_from_db()
    assert second.status == "pending"  # nothing happens before the reason page is submitted
    staff_client.post(
        reverse("admin:memories_pendingmemory_changelist"),
        {"action": "reject_selected", "_selected_action": [second.pk], "apply": "1", "reason": "not a policy"},
    )
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == ("active", "rejected")
    assert first.history.first().history_user == staff
    assert first.history.first().history_change_reason == "approved"
    assert second.history.first().history_change_reason == "rejected: not a policy"
    response = run_action(staff_client, "approve_selected", [active])
    assert "only pending memories" in response.content.decode()


def test_expire_now_action(staff_client, alice):
    memory = MemoryFactory(user=alice)
    run_action(staff_client, "expire_selected", [memory])
    memory.refresh_from_db()
    assert memory.expires_at is not None
    assert not Memory.objects.active().filter(pk=memory.pk).exists()


def test_supersede_with_a_corrected_text(staff_client, staff, alice):
    memory = MemoryFactory(user=alice, content="lives in Torino")
    response = run_action(staff_client, "supersede_selected", [memory])
    assert response.status_code == 200 and "Supersede with this text" in response.content.decode()
    correct_url = reverse("admin:memories_memory_correct", args=[memory.pk])
    assert response.redirect_chain[-1][0] == correct_url
    too_long = staff_client.post(correct_url, {"content": "x" * 181})
    assert too_long.status_code == 200 and Memory.objects.count() == 1
    response = staff_client.post(correct_url, {"content": "lives in Milano"})
    new = Memory.objects.get(content="lives in Milano")
    assert response.status_code == 302 and response.url == reverse("admin:memories_memory_change", args=[new.pk])
    memory.refresh_from_db()
    assert (memory.status, memory.superseded_by_id) == (MemoryStatus.SUPERSEDED, new.pk)
    assert (new.writer_type, new.history.first().history_user) == ("staff", staff)


def test_add_and_edit_go_through_services(staff_client, staff, alice, settings):
    add_url = reverse("admin:memories_memory_add")
    response = staff_client.post(
        add_url, {"user": alice.pk, "content": " likes green tea ", "kind": "fact", "importance": 3}
    )
    assert response.status_code == 302
    memory = Memory.objects.get(user=alice)
    assert (memory.content, memory.writer_type, memory.writer_name) == ("likes green tea", "staff", "charlie_staff")
    change_url = reverse("admin:memories_memory_change", args=[memory.pk])
    response = staff_client.post(change_url, {"content": "likes jasmine tea", "kind": "fact", "importance": 4})
    assert response.status_code == 302
    newest = memory.history.first()
    assert newest.history_user == staff and newest.content == "likes jasmine tea"
    # A refused write says why and stores nothing.
    settings.MEMORY_MAX_ACTIVE_PER_USER = 1
    response = staff_client.post(
        add_url, {"user": alice.pk, "content": "plays chess", "kind": "fact", "importance": 3}, follow=True
    )
    assert "Not saved" in response.content.decode() and "Forget one" in response.content.decode()
    assert Memory.objects.filter(user=alice).count() == 1
    # Delete goes through the service and is audited.
    staff_client.post(reverse("admin:memories_memory_delete", args=[memory.pk]), {"post": "yes"})
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert Memory.history.filter(id=memory.pk, history_type="-").get().history_user == staff


def test_history_is_read_only(staff_client, alice):
    memory = MemoryFactory(user=alice, content="before")
    memory.content = "after"
    memory.save()
    old = memory.history.last()
    url = reverse("admin:memories_memory_simple_history", args=[memory.pk, old.history_id])
    staff_client.post(url, {"content": "before", "kind": "fact", "importance": 3})
    memory.refresh_from_db()
    assert memory.content == "after"


def test_messages_and_runs_cannot_be_edited_in_admin(staff_client, alice):
    thread = make_thread(alice, 1)
    message = thread.messages.get()
    response = staff_client.post(reverse("admin:conversations_message_change", args=[message.pk]), {"text": "forged"})
    assert response.status_code == 403
    message.refresh_from_db()
    assert message.text == "message 1 about shipping"
    assert (
        staff_client.post(reverse("admin:conversations_thread_delete", args=[thread.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert Thread.objects.filter(pk=thread.pk).exists()


def test_person_page_shows_counts_and_newest_items(staff_client, alice, bob, django_assert_max_num_queries):
    for _ in range(3):
        thread = make_thread(alice, 5)
        ThreadSummary.objects.create(thread=thread, version=1, text="s", covers_through=2, model="offline")
        run = RunFactory(thread=thread)
        TraceEvent.objects.bulk_create(TraceEvent(run=run, kind="model_call", name="m") for _ in range(4))
    make_thread(bob, 50)
    MemoryFactory(user=alice, content="likes green tea")
    MemoryFactory(user=alice, status="pending")
    MemoryFactory(user=bob, content="bob's secret")
    url = reverse("admin-person", args=[alice.pk])
    assert url == f"/admin/people/{alice.pk}/"
    with django_assert_max_num_queries(18):
        response = staff_client.get(url)
    assert response.status_code == 200
    counts = dict(response.context["counts"])
    assert counts["Threads"] == 3 and counts["Messages"] == 15 and counts["Summaries"] == 3
    assert counts["Runs"] == 3 and counts["Trace events"] == 12
    assert counts["Memories active"] == 1 and counts["Memories pending review"] == 1
    html = response.content.decode()
    assert "likes green tea" in html and "bob&#x27;s secret" not in html and "bob's secret" not in html
    assert "Export: compliance officers only" in html
    assert StaffAccessLog.objects.filter(subject=alice, what="person", viewer_username="charlie_staff").count() == 1
    assert staff_client.get(reverse("admin-person", args=[999_999])).status_code == 404


@pytest.mark.parametrize("who", ["alice", "compliance", "anonymous"])
def test_non_staff_are_sent_to_the_admin_login(client, who, request, alice):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    memory = MemoryFactory(user=alice)
    for url in (
        reverse("admin:index"),
        reverse("admin-person", args=[alice.pk]),
        reverse("admin:memories_memory_change", args=[memory.pk]),
        reverse("admin:conversations_message_changelist"),
    ):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith(reverse("admin:login"))
    assert not StaffAccessLog.objects.exists()


def test_staff_see_every_section_on_the_admin_index(staff_client):
    html = staff_client.get(reverse("admin:index")).content.decode()
    for name in ("Threads", "Messages", "Runs", "Trace events", "Memories", "Pending memories"):
        assert name in html
    assert "Add" not in html.split("Messages")[1].split("</tr>")[0]


def test_superuser_demo_staff_can_use_the_admin_too(client):
    admin_user = UserFactory(username="admin", is_staff=True, is_superuser=True)
    client.force_login(admin_user)
    assert client.get(reverse("admin:memories_pendingmemory_changelist")).status_code == 200


@pytest.mark.parametrize("q", ["hello", "00000000-0000-0000-0000-000000000000", "alice"])
def test_thread_search_accepts_any_text(staff_client, alice, q):
    thread = make_thread(alice, 1)
    response = staff_client.get(reverse("admin:conversations_thread_changelist"), {"q": q})
    assert response.status_code == 200
    found = [t.pk for t in response.context["cl"].result_list]
    assert found == ([thread.pk] if q == "alice" else [])


def test_person_page_links_open_that_persons_lists(staff_client, alice, bob):
    mine, theirs = make_thread(alice, 1), make_thread(bob, 1)
    run = RunFactory(thread=mine)
    RunFactory(thread=theirs)
    memory = MemoryFactory(user=alice)
    MemoryFactory(user=bob)
    html = staff_client.get(reverse("admin-person", args=[alice.pk])).content.decode()
    expected = {
        f"{reverse('admin:conversations_thread_changelist')}?owner={alice.pk}": mine.pk,
        f"{reverse('admin:agents_run_changelist')}?user={alice.pk}": run.pk,
        f"{reverse('admin:memories_memory_changelist')}?user_id={alice.pk}": memory.pk,
    }
    for url, pk in expected.items():
        assert url in html
        response = staff_client.get(url)
        assert [o.pk for o in response.context["cl"].result_list] == [pk]


def test_every_change_page_of_a_persons_data_is_logged(staff_client, alice):
    thread = make_thread(alice, 1)
    summary = ThreadSummary.objects.create(thread=thread, version=1, text="s", covers_through=1, model="offline")
    run = RunFactory(thread=thread)
    event = TraceEvent.objects.create(run=run, kind="model_call", name="m")
    pages = {
        "thread": ("admin:conversations_thread_change", thread.pk),
        "message": ("admin:conversations_message_change", thread.messages.get().pk),
        "summary": ("admin:conversations_threadsummary_change", summary.pk),
        "run": ("admin:agents_run_change", run.pk),
        "trace": ("admin:agents_traceevent_change", event.pk),
    }
    for what, (name, pk) in pages.items():
        assert staff_client.get(reverse(name, args=[pk])).status_code == 200
        log = StaffAccessLog.objects.get(what=what)
        assert (log.subject_id, log.object_ref) == (alice.pk, str(pk))


def test_a_long_unbroken_message_wraps_on_the_admin_pages(staff_client, alice):
    thread = ThreadFactory(owner=alice, next_sequence=2)
    Message.objects.create(thread=thread, sequence=1, role=MessageRole.USER, text="x" * 32_000)
    html = staff_client.get(reverse("admin:conversations_thread_change", args=[thread.pk])).content.decode()
    assert "/static/liamemory/admin.css" in html
    css = b"".join(staff_client.get("/static/liamemory/admin.css").streaming_content).decode()
    assert "overflow-wrap: anywhere" in css and "#content td" in css


def test_admin_says_thread_summaries(staff_client):
    html = staff_client.get(reverse("admin:index")).content.decode()
    assert "Thread summaries" in html and "Thread summarys" not in html


@pytest.mark.parametrize(("who", "landing"), [("staff", "/admin/"), ("alice", "/")])
def test_signing_in_lands_staff_on_the_admin(client, request, who, landing):
    user = request.getfixturevalue(who)
    user.set_password("a-long-test-password")
    user.save()
    response = client.post("/accounts/login/", {"username": user.username, "password": "a-long-test-password"})
    assert response.status_code == 302 and response["Location"] == landing
    client.logout()
    response = client.post(
        "/accounts/login/?next=/memory/", {"username": user.username, "password": "a-long-test-password"}
    )
    assert response["Location"] == "/memory/"  # an explicit next still wins


@pytest.mark.django_db
def test_deleting_a_person_in_admin_leads_to_an_erasure_request(staff_client, alice):
    ThreadFactory(owner=alice)
    response = staff_client.get(reverse("admin:auth_user_delete", args=[alice.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('admin:governance_erasurerequest_add')}?subject={alice.pk}"
    assert staff_client.post(reverse("admin:auth_user_delete", args=[alice.pk]), {"post": "yes"}).status_code == 302
    assert Thread.objects.filter(owner=alice).exists()  # nothing was deleted by the plain path
    changelist = staff_client.get(reverse("admin:auth_user_changelist"))
    assert "delete_selected" not in changelist.content.decode()
