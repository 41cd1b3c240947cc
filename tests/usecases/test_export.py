"""Export: one JSON document per person, valid against the committed schema, owner or compliance only."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from rest_framework.test import APIClient

from governance.models import ErasureRequest
from liamemory.models import StaffAccessLog
from memories.models import Memory
from memories.services import memory_correct, memory_forget
from tests.usecases.people import person_with_data
from usecases.export import export_schema, person_export

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_the_committed_schema_is_valid_draft_2020_12():
    schema = export_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_export_holds_every_level_and_validates(alice, bob):
    [thread] = person_with_data(alice)
    person_with_data(bob, marker="bobsecret ")
    doc = person_export(user=alice)
    Draft202012Validator(export_schema()).validate(doc)

    assert doc["format"] == "liamemory.export" and doc["version"] == 1
    assert doc["person"]["username"] == "alice"
    [t] = doc["threads"]
    assert t["id"] == str(thread.id)
    assert [m["role"] for m in t["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert [m["sequence"] for m in t["messages"]] == [1, 2, 3, 4]
    assert t["messages"][1]["content"][1]["type"] == "tool_use"
    assert t["summaries"][0]["covers_through"] == 2
    [run] = t["runs"]
    assert run["status"] == "completed" and run["request_message_sequence"] == 1
    assert run["trace"][0]["kind"] == "context"
    assert [m["run_id"] for m in t["messages"]] == [None, run["id"], run["id"], run["id"]]

    by_status = {m["status"]: m for m in doc["memories"]}
    assert by_status["superseded"]["superseded_by"] == by_status["active"]["id"]
    provenance = by_status["superseded"]["provenance"]
    assert provenance["thread_id"] == str(thread.id) and provenance["message_sequence"] == 1
    assert provenance["run_id"] == run["id"] and provenance["writer_type"] == "agent"
    changes = [(a["change"], a["actor"]) for a in doc["audit"]]
    assert ("created", None) in changes and ("created", "alice") in changes and ("changed", "alice") in changes
    assert "bobsecret" not in json.dumps(doc)


def test_export_costs_the_same_queries_however_much_is_stored(alice, django_assert_num_queries):
    person_with_data(alice)
    with django_assert_num_queries(9):
        person_export(user=alice)
    person_with_data(alice, threads=4)
    with django_assert_num_queries(9):
        doc = person_export(user=alice)
    assert len(doc["threads"]) == 5


def test_owner_downloads_their_export_as_an_attachment(alice, bob):
    person_with_data(alice)
    person_with_data(bob, marker="bobsecret ")
    response = api(alice).get("/api/me/export")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="liamemory-export-')
    doc = response.json()
    assert doc["person"]["id"] == alice.pk and len(doc["threads"]) == 1
    assert "bobsecret" not in response.content.decode()
    Draft202012Validator(export_schema()).validate(doc)


@pytest.mark.parametrize(
    ("who", "expected"), [("alice", 403), ("bob", 403), ("staff", 403), ("compliance", 200), (None, 401)]
)
def test_only_compliance_exports_anyone(request, alice, who, expected):
    person_with_data(alice)
    user = request.getfixturevalue(who) if who else None
    response = api(user).get(f"/api/people/{alice.pk}/export")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["person"]["id"] == alice.pk
    else:
        assert set(response.json()) == {"message", "extra"}
    logged = StaffAccessLog.objects.filter(subject=alice, object_ref="export")
    assert logged.count() == (1 if expected == 200 else 0)


def test_compliance_export_of_a_missing_person_is_404(compliance):
    response = api(compliance).get("/api/people/999999/export")
    assert response.status_code == 404 and response.json()["message"] == "No such person."


def test_admin_person_page_offers_export_to_compliance_officers_only(client, alice, staff, compliance):
    client.force_login(staff)
    assert f"/api/people/{alice.pk}/export" not in client.get(f"/admin/people/{alice.pk}/").content.decode()
    compliance.is_staff = True
    compliance.save()
    client.force_login(compliance)
    html = client.get(f"/admin/people/{alice.pk}/").content.decode()
    assert f'href="/api/people/{alice.pk}/export"' in html
    assert client.get(f"/api/people/{alice.pk}/export").status_code == 200


def test_a_forgotten_memory_leaves_no_text_in_my_export(alice):

    old = Memory.objects.create(user=alice, content="my locker code is QX-4412-LK")
    new = memory_correct(actor=alice, memory=old, content="my locker code is QX-5523-LK")
    kept = Memory.objects.create(user=alice, content="I like green tea")
    assert memory_forget(user=alice, memory_id=new.pk)

    doc = api(alice).get("/api/me/export").json()
    Draft202012Validator(export_schema()).validate(doc)
    text = json.dumps(doc)
    assert "QX-4412" not in text and "QX-5523" not in text
    # The audit still says what happened to those memories (when, by whom), without the text.
    forgotten = [a for a in doc["audit"] if a["memory_id"] in {old.pk, new.pk}]
    assert {a["change"] for a in forgotten} >= {"created", "deleted"}
    assert all(not a["content"] for a in forgotten)
    assert any(a["content"] == "I like green tea" for a in doc["audit"] if a["memory_id"] == kept.pk)


def test_admin_person_page_offers_erase_this_person_to_compliance_officers(client, alice, staff, compliance):
    client.force_login(staff)
    assert "Erase this person" not in client.get(f"/admin/people/{alice.pk}/").content.decode()
    compliance.is_staff = True
    compliance.save()
    client.force_login(compliance)
    html = client.get(f"/admin/people/{alice.pk}/").content.decode()
    assert "Erase this person" in html
    url = f"/admin/governance/erasurerequest/add/?subject={alice.pk}"
    assert f'href="{url}"' in html
    form = client.get(url)
    assert form.status_code == 200
    # The request form opens with the person chosen, named, not a blank id box.
    page = form.content.decode()
    assert f'value="{alice.username}"' in page
    # Typing a username picks the person too.
    created = client.post("/admin/governance/erasurerequest/add/", {"subject": alice.username, "reason": "ticket 9"})
    assert created.status_code == 302

    assert ErasureRequest.objects.filter(subject=alice, reason="ticket 9").exists()
    unknown = client.post("/admin/governance/erasurerequest/add/", {"subject": "nobody-such", "reason": "x"})
    assert unknown.status_code == 200 and "No person with this username or id." in unknown.content.decode()
