"""Explicit corrections of what was said: the note, the context, the memory, who may."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from agents.models import Run
from conversations.models import Message, MessageRole
from conversations.services import thread_create
from memories.models import Memory, MemoryStatus
from tests.factories import UserFactory
from tests.usecases.turn.helpers import run_turn
from usecases.export import person_export
from usecases.importer import ImportInvalid, export_import
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent
from usecases.turn.tools import ToolContext, execute

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(thread, sequence, staff=False):
    return f"/api/{'staff/' if staff else ''}threads/{thread.pk}/messages/{sequence}/correct"


@pytest.fixture
def told(alice):
    """Alice stated an order number and the assistant remembered it (the offline model, a real turn)."""
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my order number is A-7781")
    return thread


def test_the_note_follows_the_statement_which_stays_and_the_memory_is_superseded(alice, told):
    wrong = Message.objects.get(thread=told, sequence=1)
    old = Memory.objects.get(user=alice, status="active")
    assert old.source_message_id == wrong.pk
    last = Message.objects.filter(thread=told).order_by("-sequence").first().sequence

    answer = api(alice).post(url(told, 1), {"right_value": "B-1200", "about": "my order number"}, format="json")

    assert answer.status_code == 201, answer.content
    note = Message.objects.get(pk=answer.json()["note"]["id"])
    assert (note.sequence, note.role, note.corrects_id) == (last + 1, MessageRole.SYSTEM, wrong.pk)
    assert "A-7781" in note.text and "the right value is: B-1200" in note.text
    assert "said there about my order number is wrong" in note.text and "Ignore the earlier statement" in note.text
    assert Message.objects.get(pk=wrong.pk).text == wrong.text  # the statement itself stays
    old.refresh_from_db()
    new = Memory.objects.get(user=alice, status="active")
    assert (old.status, old.superseded_by_id) == (MemoryStatus.SUPERSEDED, new.pk)
    assert new.content == "my order number is B-1200" and new.source_message_id == note.pk
    assert answer.json()["memories"][0]["superseded_content"] == old.content


def test_the_note_is_in_the_context_wherever_the_statement_is(alice, told):
    api(alice).post(url(told, 1), {"right_value": "B-1200"}, format="json")
    told.refresh_from_db()
    agent = get_agent(told.agent)
    request = Message.objects.get(thread=told, sequence=1)
    # Even a context for the corrected turn itself (a retry) carries the note, right after it.
    ctx = build_context(thread=told, agent=agent, user=alice, request_message=request)
    first_turn = " ".join(b.get("text", "") for b in ctx.messages[0]["content"])
    assert first_turn.index("A-7781") < first_turn.index("the right value is: B-1200")
    # And the next turn's.
    run = run_turn(alice, told, "what is my order number?")
    ctx = build_context(thread=told, agent=agent, user=alice, request_message=run.request_message)
    assert "the right value is: B-1200" in str(ctx.messages)
    # An excerpt of the statement found by search_history carries its correction (a tool
    # runs only inside a running run).
    Run.objects.filter(pk=run.pk).update(status="running")
    tool_ctx = ToolContext(user=alice, thread=told, agent=agent, run=run, memory_allowed=True, window_first_sequence=99)
    result = execute("search_history", {"query": "order number A-7781"}, tool_ctx)
    hit = next(e for e in result["excerpts"] if e["sequence"] == 1)
    assert "the right value is: B-1200" in hit["corrected_by"][0]


def test_another_user_gets_404_and_nothing_changes(alice, bob, told):
    count = Message.objects.filter(thread=told).count()
    answer = api(bob).post(url(told, 1), {"right_value": "B-1200"}, format="json")
    assert answer.status_code == 404 and set(answer.json()) == {"message", "extra"}
    assert api(bob).post(url(told, 1, staff=True), {"right_value": "B-1200"}, format="json").status_code == 403
    assert api(alice).post(url(told, 999), {"right_value": "B-1200"}, format="json").status_code == 404
    assert Message.objects.filter(thread=told).count() == count
    assert Memory.objects.get(user=alice).status == "active"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "right_value"),
        ({"right_value": ""}, "right_value"),
        ({"right_value": "x" * 501}, "right_value"),
        ({"right_value": "B-1200", "about": "y" * 101}, "about"),
    ],
)
def test_bad_input_is_400_with_a_message(alice, told, body, words):
    answer = api(alice).post(url(told, 1), body, format="json")
    assert answer.status_code == 400 and words in answer.json()["message"]
    assert not Message.objects.filter(thread=told, role="system").exists()


def test_only_what_was_said_can_be_corrected(alice, told):
    api(alice).post(url(told, 1), {"right_value": "B-1200"}, format="json")
    note = Message.objects.get(thread=told, role="system")
    answer = api(alice).post(url(told, note.sequence), {"right_value": "C-1"}, format="json")
    assert answer.status_code == 400 and "only what the user or the assistant said" in answer.json()["message"]


def test_staff_correct_anyones_statement_and_the_access_is_logged(alice, staff, told):
    answer = api(staff).post(url(told, 1, staff=True), {"right_value": "my order number is B-1200"}, format="json")
    assert answer.status_code == 201
    assert "Correction by staff" in answer.json()["note"]["text"]
    assert Memory.objects.get(user=alice, status="active").writer_type == "staff"
    assert staff.staff_views_made.filter(subject=alice, what="message").exists()


def test_the_remember_tool_says_what_it_superseded(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that I live in Rome")
    run = run_turn(alice, thread, "remember that I moved to Milan")
    tool_result = Message.objects.filter(run=run, role="tool").first().content[0]["content"]
    assert "I live in Rome" in tool_result and "superseded" in tool_result


def test_correct_on_a_reply_in_the_web_chat(client, alice, bob, told):
    reply = Message.objects.filter(thread=told, role="assistant").order_by("sequence").last()
    client.force_login(alice)
    page = client.get(f"/c/{told.pk}/").content.decode()
    action = f"/c/{told.pk}/m/{reply.sequence}/correct"
    assert f'action="{action}"' in page and "<script>" not in page
    refused = client.post(action, {"right_value": ""})
    assert refused.status_code == 400 and 'class="form-error"' in refused.content.decode()
    done = client.post(action, {"right_value": "B-1200", "about": "the order number"})
    note = Message.objects.get(thread=told, role="system")
    assert done.status_code == 302 and done.url.endswith(f"#msg-{reply.pk}")  # opens at the corrected reply
    assert note.corrects_id == reply.pk and "the assistant said" in note.text
    client.force_login(bob)
    assert client.post(action, {"right_value": "C-1"}).status_code == 404


def _article(page: str, message_id: int) -> str:
    """The HTML of one message on the chat page."""
    match = re.search(rf'<article class="([^"]*)" id="msg-{message_id}">(.*?)</article>', page, re.DOTALL)
    assert match, f"message {message_id} is not on the page"
    return match[1] + match[2]


def test_a_correction_shows_at_the_message_it_corrects_in_my_words(client, alice, told):
    wrong = Message.objects.get(thread=told, sequence=1)
    client.force_login(alice)
    client.post(f"/c/{told.pk}/m/1/correct", {"right_value": "  my order number is   B-1200", "about": "my order"})
    note = Message.objects.get(thread=told, role="system")

    page = client.get(f"/c/{told.pk}/").content.decode()
    statement = _article(page, wrong.pk)
    assert "msg-corrected" in statement and "A-7781" in statement  # what was said stays, marked
    assert "Corrected by you:" in statement and "“my order number is B-1200”" in statement
    assert "(my order)" in statement and f'id="msg-{note.pk}"' in statement  # older links to the note land here
    assert "Ignore the earlier statement" not in page and "msg-system" not in page  # no note at the bottom
    others = [m.pk for m in Message.objects.filter(thread=told, role="assistant") if f'id="msg-{m.pk}"' in page]
    assert others and all("msg-corrected" not in _article(page, pk) for pk in others)


def test_the_same_correction_twice_is_refused(client, alice, told):
    first = api(alice).post(url(told, 1), {"right_value": "B-1200", "about": "my order number"}, format="json")
    assert first.status_code == 201
    again = api(alice).post(url(told, 1), {"right_value": " b-1200 "}, format="json")
    assert again.status_code == 409
    assert again.json()["message"] == "This correction is already saved: “B-1200”. Nothing was changed."
    note = Message.objects.get(thread=told, role="system")
    assert again.json()["extra"] == {"sequence": 1, "note_sequence": note.sequence, "right_value": "B-1200"}
    other = api(alice).post(url(told, 1), {"right_value": "C-3300"}, format="json")
    assert other.status_code == 409
    assert other.json()["message"].startswith("This message was already corrected to “B-1200”")
    client.force_login(alice)
    page = client.post(f"/c/{told.pk}/m/1/correct", {"right_value": "B-1200"})
    statement = _article(page.content.decode(), Message.objects.get(thread=told, sequence=1).pk)
    assert page.status_code == 409 and "This correction is already saved: “B-1200”." in statement
    assert Message.objects.filter(thread=told, role="system").count() == 1
    assert Memory.objects.get(user=alice, status="active").content == "my order number is B-1200"


def test_the_api_lists_a_correction_at_the_message_it_corrects(alice, told, django_assert_num_queries):
    api(alice).post(url(told, 1), {"right_value": "my order number is  B-1200", "about": "my order"}, format="json")
    client = api(alice)
    with django_assert_num_queries(2):  # the thread (ownership), the page of messages
        listed = client.get(f"/api/threads/{told.pk}/messages").json()["results"]
    statement = next(m for m in listed if m["sequence"] == 1)
    note = next(m for m in listed if m["role"] == "system")
    assert statement["corrected"] is True and statement["corrects_id"] is None and statement["correction"] is None
    assert note["corrects_id"] == statement["id"]
    assert note["correction"] == {"right_value": "my order number is B-1200", "about": "my order", "by": "the user"}
    assert [m["sequence"] for m in listed if m["corrected"]] == [1]


def test_a_corrected_message_offers_no_second_correction(client, alice, told):
    client.force_login(alice)
    client.post(f"/c/{told.pk}/m/1/correct", {"right_value": "B-1200"})
    page = client.get(f"/c/{told.pk}/").content.decode()
    statement = _article(page, Message.objects.get(thread=told, sequence=1).pk)
    last = Message.objects.filter(thread=told, role="assistant").last()
    assert "Corrected by you:" in statement and "Save correction" not in statement
    assert f'action="/c/{told.pk}/m/{last.sequence}/correct"' in _article(page, last.pk)  # the others still can be


def test_staff_correct_a_message_from_the_admin(client, alice, staff, told):
    staff.is_superuser = False
    staff.save()
    client.force_login(staff)
    wrong = Message.objects.get(thread=told, sequence=1)
    change = client.get(f"/admin/conversations/message/{wrong.pk}/change/").content.decode()
    assert f"/admin/messages/{wrong.pk}/correct/" in change
    changelist = client.post(
        "/admin/conversations/message/", {"action": "correct_selected", "_selected_action": [wrong.pk]}
    )
    assert changelist.status_code == 302 and changelist.url == f"/admin/messages/{wrong.pk}/correct/"
    assert client.get(changelist.url).status_code == 200
    done = client.post(changelist.url, {"right_value": "B-1200", "about": "the order number"})
    assert done.status_code == 302
    note = Message.objects.get(thread=told, role="system")
    assert note.corrects_id == wrong.pk and "Correction by staff" in note.text
    assert Memory.objects.get(user=alice, status="active").content == "my order number is B-1200"
    client.force_login(alice)
    assert client.get(changelist.url).status_code in (302, 403)


def test_correcting_a_reply_supersedes_what_its_run_remembered(alice, told):
    reply = Message.objects.filter(thread=told, role="assistant").order_by("sequence").last()
    answer = api(alice).post(url(told, reply.sequence), {"right_value": "my order number is B-1200"}, format="json")
    assert answer.status_code == 201
    assert Memory.objects.get(user=alice, status="active").content == "my order number is B-1200"


def test_a_correction_survives_export_and_import(alice, told):
    import json

    api(alice).post(url(told, 1), {"right_value": "B-1200"}, format="json")
    document = person_export(user=alice)
    [exported] = [m for m in document["threads"][0]["messages"] if m["role"] == "system"]
    assert exported["corrects_sequence"] == 1
    Memory.objects.all().delete()
    Run.objects.all().delete()
    told.delete()
    export_import(document=json.loads(json.dumps(document)), owner=UserFactory(username="alice_migrated"))
    note = Message.objects.get(role="system")
    assert note.corrects.sequence == 1 and note.corrects.thread_id == note.thread_id
    exported["corrects_sequence"] = 99
    exported["sequence"] += 100
    with pytest.raises(ImportInvalid) as err:
        export_import(document=document, owner=UserFactory(username="alice_third"))
    assert any(e["path"].endswith("corrects_sequence") for e in err.value.extra["errors"])
