"""Import: validated first, idempotent, owner mapped explicitly; export → import → export round-trips."""

from __future__ import annotations

import copy
import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from agents.models import Run
from conversations import search as retrieval
from conversations.models import Message, Thread, ThreadSummary
from conversations.services import thread_create
from memories.models import Memory
from tests.factories import UserFactory
from tests.usecases.people import person_with_data
from usecases.export import person_export
from usecases.importer import ImportConflict, ImportInvalid, export_import
from usecases.turns import turn_submit

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def stored() -> tuple[int, int, int]:
    return Thread.objects.count(), Message.objects.count(), ThreadSummary.objects.count()


def empty_the_database() -> None:
    Memory.objects.all().delete()
    Run.objects.all().delete()
    Thread.objects.all().delete()
    assert stored() == (0, 0, 0)


def conversations(doc: dict) -> list[dict]:
    """The part of a document import loads: threads with messages and summaries, no runs."""
    threads = copy.deepcopy(doc["threads"])
    for t in threads:
        t.pop("runs")
        for m in t["messages"]:
            m["run_id"] = None
    return threads


def small_document(**thread_fields) -> dict:
    thread = {
        "id": str(uuid.uuid4()),
        "title": "Migrated",
        "agent": "assistant",
        "messages": [
            {"sequence": 1, "role": "user", "content": [{"type": "text", "text": "my locker code is 4417"}]},
            {"sequence": 2, "role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
        ],
        "summaries": [{"version": 1, "text": "Locker 4417.", "covers_through": 1}],
        **thread_fields,
    }
    return {"format": "liamemory.export", "version": 1, "threads": [thread]}


def test_export_import_export_gives_the_same_document(alice):
    person_with_data(alice, threads=3)
    thread_create(owner=alice, title="empty one", incognito=True)
    first = person_export(user=alice)
    empty_the_database()
    newcomer = UserFactory(username="alice_migrated")

    result = export_import(document=json.loads(json.dumps(first)), owner=newcomer)
    assert (result.threads_created, result.messages_created, result.summaries_created) == (4, 12, 3)
    second = person_export(user=newcomer)
    assert second["person"]["username"] == "alice_migrated"
    assert conversations(second) == conversations(first)

    # A document of conversations only (no runs) round-trips whole, owner and time aside.
    empty_the_database()
    third_owner = UserFactory(username="alice_third")
    export_import(document=second, owner=third_owner)
    third = person_export(user=third_owner)
    for doc in (second, third):
        doc.pop("person"), doc.pop("exported_at")
    assert third == second


def test_import_twice_adds_nothing_and_a_longer_file_adds_only_the_new_messages(alice):
    doc = small_document()
    first = export_import(document=doc, owner=alice)
    assert (first.threads_created, first.messages_created, first.summaries_created) == (1, 2, 1)
    before = stored()
    again = export_import(document=doc, owner=alice)
    assert again.created == 0
    assert (again.threads_skipped, again.messages_skipped, again.summaries_skipped) == (1, 2, 1)
    assert stored() == before

    doc["threads"][0]["messages"].append({"sequence": 3, "role": "user", "content": [{"type": "text", "text": "ok"}]})
    more = export_import(document=doc, owner=alice)
    assert (more.messages_created, more.messages_skipped) == (1, 2)
    thread = Thread.objects.get(pk=doc["threads"][0]["id"])
    # The next turn continues after the imported messages.
    message, _ = turn_submit(user=alice, thread=thread, content="and now?")
    assert message.sequence == 4
    assert thread.owner == alice and thread.title == "Migrated"


def test_imported_history_is_searchable_and_keeps_its_timestamps(alice):
    doc = small_document(created_at="2024-03-01T09:00:00+00:00", last_activity_at="2024-03-02T10:00:00+00:00")
    doc["threads"][0]["messages"][0]["created_at"] = "2024-03-01T09:00:00.123456+00:00"
    export_import(document=doc, owner=alice)
    [hit] = retrieval.search_threads(user=alice, query="locker code", limit=5)
    assert hit.sequence == 1 and "4417" in hit.excerpt
    assert hit.created_at.isoformat() == "2024-03-01T09:00:00.123456+00:00"
    thread = Thread.objects.get(pk=doc["threads"][0]["id"])
    assert thread.last_activity_at.isoformat() == "2024-03-02T10:00:00+00:00"
    # Retention runs from the import, so a migrated thread is not purged on arrival.
    assert thread.expires_at is not None and thread.expires_at > thread.created_at


def test_a_thread_of_another_person_is_refused_and_nothing_is_imported(alice, bob):
    [bobs] = person_with_data(bob)
    doc = small_document()
    doc["threads"].append({"id": str(bobs.id), "messages": [{"sequence": 9, "role": "user", "content": []}]})
    before = stored()
    with pytest.raises(ImportConflict) as refused:
        export_import(document=doc, owner=alice)
    assert refused.value.extra["path"] == "$.threads[1].id"
    assert stored() == before
    assert not Thread.objects.filter(owner=alice).exists()


def _bad(path_fn):
    doc = small_document()
    path_fn(doc)
    return doc


BAD_DOCUMENTS = {
    "wrong format": (lambda d: d.update(format="chatgpt"), "$.format"),
    "future version": (lambda d: d.update(version=2), "$.version"),
    "no threads": (lambda d: d.pop("threads"), "$"),
    "unknown role": (lambda d: d["threads"][0]["messages"][1].update(role="robot"), "$.threads[0].messages[1].role"),
    "content missing": (lambda d: d["threads"][0]["messages"][0].pop("content"), "$.threads[0].messages[0]"),
    "sequence 0": (lambda d: d["threads"][0]["messages"][0].update(sequence=0), "$.threads[0].messages[0].sequence"),
    "text block without text": (
        lambda d: d["threads"][0]["messages"][0].update(content=[{"type": "text"}]),
        "$.threads[0].messages[0].content[0]",
    ),
    "not a uuid": (lambda d: d["threads"][0].update(id="42"), "$.threads[0].id"),
    "typo in a field": (lambda d: d["threads"][0]["messages"][0].update(sequnce=3), "$.threads[0].messages[0]"),
    "sequence twice": (
        lambda d: d["threads"][0]["messages"][1].update(sequence=1),
        "$.threads[0].messages[1].sequence",
    ),
    "thread twice": (lambda d: d["threads"].append(copy.deepcopy(d["threads"][0])), "$.threads[1].id"),
    "unknown agent": (lambda d: d["threads"][0].update(agent="hal9000"), "$.threads[0].agent"),
    "impossible date": (
        lambda d: d["threads"][0]["messages"][0].update(created_at="2026-13-40T00:00:00Z"),
        "$.threads[0].messages[0].created_at",
    ),
    # Year 1 at +14:00 is year 0 in UTC: no Python datetime holds it, every page showing it would fail.
    "before year 1 in UTC": (
        lambda d: d["threads"][0].update(created_at="0001-01-01T00:00:00+14:00"),
        "$.threads[0].created_at",
    ),
    "after year 9999 in UTC": (
        lambda d: d["threads"][0]["messages"][1].update(created_at="9999-12-31T23:00:00-14:00"),
        "$.threads[0].messages[1].created_at",
    ),
    "summary date before year 1": (
        lambda d: d["threads"][0]["summaries"][0].update(created_at="0001-01-01T00:30:00+01:00"),
        "$.threads[0].summaries[0].created_at",
    ),
    # The schema's own maximum: the thread's next sequence would not fit in 32 bits.
    "sequence at the int32 maximum": (
        lambda d: d["threads"][0]["messages"][1].update(sequence=2147483647),
        "$.threads[0].messages[1].sequence",
    ),
    "summary version past int32": (
        lambda d: d["threads"][0]["summaries"][0].update(version=2**31),
        "$.threads[0].summaries[0].version",
    ),
    "covers_through past int32": (
        lambda d: d["threads"][0]["summaries"][0].update(covers_through=2**40),
        "$.threads[0].summaries[0].covers_through",
    ),
    "NUL byte in a message": (
        lambda d: d["threads"][0]["messages"][0]["content"][0].update(text="locker\x00code"),
        "$.threads[0].messages[0].content[0].text",
    ),
    "lone surrogate in a title": (lambda d: d["threads"][0].update(title="caf\ud800"), "$.threads[0].title"),
    "NUL byte in a summary": (
        lambda d: d["threads"][0]["summaries"][0].update(text="\x00"),
        "$.threads[0].summaries[0].text",
    ),
    "NUL byte in a key": (
        lambda d: d["threads"][0]["messages"][1].update(
            content=[{"type": "tool_use", "id": "t1", "name": "remember_fact", "input": {"a\x00": 1}}]
        ),
        "$.threads[0].messages[1].content[0].input",
    ),
    "infinite number in a tool input": (
        lambda d: d["threads"][0]["messages"][1].update(
            content=[{"type": "tool_use", "id": "t1", "name": "remember_fact", "input": {"n": float("inf")}}]
        ),
        "$.threads[0].messages[1].content[0].input.n",
    ),
}


@pytest.mark.parametrize("case", BAD_DOCUMENTS)
def test_a_bad_document_changes_nothing_and_says_where(alice, case):
    mutate, path = BAD_DOCUMENTS[case]
    export_import(document=small_document(), owner=alice)
    before = stored()
    with pytest.raises(ImportInvalid) as refused:
        export_import(document=_bad(mutate), owner=alice)
    assert refused.value.extra["errors"][0]["path"] == path
    assert path in refused.value.message and "Nothing was imported" in refused.value.message
    assert stored() == before


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ('"created_at": "0001-01-01T00:00:00+14:00"', "$.threads[0].created_at"),
        ('"title": "caf\\ud800"', "$.threads[0].title"),
        ('"title": "a\\u0000b"', "$.threads[0].title"),
    ],
)
def test_the_import_api_refuses_what_the_database_cannot_hold_naming_the_path(staff, alice, body, path):
    doc = json.dumps(small_document())
    raw = doc.replace('"title": "Migrated"', body)
    response = api(staff).post(f"/api/people/{alice.pk}/import", raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert path in response.json()["message"]
    assert stored() == (0, 0, 0)
    # The person's pages keep working (an accepted year-0 date broke them all).
    client = api(alice)
    assert client.get("/api/threads").status_code == 200
    assert client.get("/api/me/export").status_code == 200


def test_not_a_document_at_all_is_refused(alice):
    for junk in ([], "x", None, 3):
        with pytest.raises(ImportInvalid):
            export_import(document=junk, owner=alice)
    assert stored() == (0, 0, 0)


@pytest.mark.parametrize(("who", "expected"), [("staff", 201), ("compliance", 201), ("bob", 403), (None, 401)])
def test_import_api_roles(request, alice, who, expected):
    user = request.getfixturevalue(who) if who else None
    response = api(user).post(f"/api/people/{alice.pk}/import", small_document(), format="json")
    assert response.status_code == expected, response.content
    assert Thread.objects.filter(owner=alice).count() == (1 if expected == 201 else 0)


def test_import_api_answers(staff, alice, bob):
    client = api(staff)
    doc = small_document()
    created = client.post(f"/api/people/{alice.pk}/import", doc, format="json")
    assert created.status_code == 201 and created.json()["messages_created"] == 2
    again = client.post(f"/api/people/{alice.pk}/import", doc, format="json")
    assert again.status_code == 200 and again.json()["messages_skipped"] == 2

    conflict = client.post(f"/api/people/{bob.pk}/import", doc, format="json")
    assert conflict.status_code == 409 and conflict.json()["extra"]["path"] == "$.threads[0].id"

    bad = client.post(f"/api/people/{alice.pk}/import", {"format": "x", "version": 1, "threads": []}, format="json")
    assert bad.status_code == 400
    assert bad.json()["extra"]["errors"] == [{"path": "$.format", "message": "'liamemory.export' was expected"}]

    assert client.post("/api/people/999999/import", doc, format="json").status_code == 404

    dry = client.post(f"/api/people/{alice.pk}/import?dry_run=true", small_document(), format="json")
    assert dry.status_code == 200 and dry.json()["dry_run"] and dry.json()["threads_created"] == 1
    assert Thread.objects.filter(owner=alice).count() == 1


def test_import_api_takes_a_file_upload(staff, alice):
    client = api(staff)
    upload = SimpleUploadedFile("export.json", json.dumps(small_document()).encode(), "application/json")
    response = client.post(f"/api/people/{alice.pk}/import", {"file": upload}, format="multipart")
    assert response.status_code == 201, response.content
    junk = SimpleUploadedFile("export.json", b"{not json", "application/json")
    response = client.post(f"/api/people/{alice.pk}/import", {"file": junk}, format="multipart")
    assert response.status_code == 400 and "not JSON" in response.json()["message"]


def test_import_command(tmp_path, alice, capsys):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(small_document()))
    call_command("import_conversations", str(path), "--owner", "alice")
    assert "threads created: 1, threads skipped: 0, messages created: 2" in capsys.readouterr().out
    call_command("import_conversations", str(path), "--owner", "alice")
    assert "messages created: 0, messages skipped: 2" in capsys.readouterr().out

    path.write_text(json.dumps(_bad(BAD_DOCUMENTS["unknown role"][0])))
    with pytest.raises(CommandError, match=r"\$\.threads\[0\]\.messages\[1\]\.role"):
        call_command("import_conversations", str(path), "--owner", "alice")
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        call_command("import_conversations", str(path), "--owner", "nobody")
    path.write_text("{")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("import_conversations", str(path), "--owner", "alice")
    assert stored() == (1, 2, 1)
