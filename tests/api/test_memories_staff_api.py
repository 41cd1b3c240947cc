"""/api/memories: staff list, search, add, edit, delete, approve, reject; compliance erases; all audited."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from liamemory.models import StaffAccessLog
from memories.models import Memory
from memories.services import memory_remember
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_staff_list_filters_and_search(staff, alice, bob):
    memory_remember(user=alice, content="allergic to peanuts")
    memory_remember(user=alice, content="team deploys on Tuesdays", kind="team_policy")
    memory_remember(user=bob, content="allergic to cats")
    client = api(staff)
    everything = client.get("/api/memories").json()["results"]
    assert len(everything) == 3 and {m["username"] for m in everything} == {"alice", "bob"}
    assert len(client.get(f"/api/memories?user_id={alice.pk}").json()["results"]) == 2
    assert [m["content"] for m in client.get("/api/memories?status=pending").json()["results"]] == [
        "team deploys on Tuesdays"
    ]
    assert len(client.get("/api/memories?kind=fact").json()["results"]) == 2
    found = client.get("/api/memories?q=allergic").json()["results"]
    assert {m["content"] for m in found} == {"allergic to peanuts", "allergic to cats"}
    assert [m["rank"] for m in found] == [1, 2]
    only_bob = client.get(f"/api/memories?q=allergic&user_id={bob.pk}").json()["results"]
    assert [m["content"] for m in only_bob] == ["allergic to cats"]
    for bad in ("kind=mood", "status=x", "user_id=abc", "limit=0", "limit=999999", "writer_type=robot"):
        assert client.get(f"/api/memories?{bad}").status_code == 400, bad


def test_staff_list_costs_a_fixed_number_of_queries(staff, alice, bob, django_assert_num_queries):
    for user in (alice, bob):
        MemoryFactory(user=user)
    # The page, and one INSERT logging which people's data it showed.
    with django_assert_num_queries(2):
        assert len(api(staff).get("/api/memories").json()["results"]) == 2
    for _ in range(20):
        MemoryFactory(user=alice)
        MemoryFactory(user=bob)
    with django_assert_num_queries(2):
        assert len(api(staff).get("/api/memories").json()["results"]) == 42
    logged = StaffAccessLog.objects.filter(viewer=staff, what="memory", object_ref="list")
    assert sorted(logged.values_list("subject_id", flat=True)) == sorted([alice.pk, bob.pk] * 2)


def test_staff_add_edit_approve_reject_delete_are_audited_with_who(staff, alice):
    client = api(staff)
    added = client.post(
        "/api/memories", {"user_id": alice.pk, "content": "VIP customer", "kind": "client_setup"}, format="json"
    )
    assert added.status_code == 201 and added.json()["action"] == "created"
    memory = Memory.objects.get(pk=added.json()["memory"]["id"])
    assert memory.writer_type == "staff" and memory.writer_name == "charlie_staff" and memory.status == "active"

    edited = client.patch(f"/api/memories/{memory.pk}", {"importance": 5, "content": "VIP customer since 2020"})
    assert edited.status_code == 200 and edited.json()["importance"] == 5
    before, after = memory.history.order_by("history_id")[0], memory.history.order_by("history_id")[1]
    assert (before.content, after.content) == ("VIP customer", "VIP customer since 2020")
    assert after.history_user == staff

    pending = memory_remember(user=alice, content="team works remotely", kind="team_policy").memory
    assert client.post(f"/api/memories/{pending.pk}/approve").json()["status"] == "active"
    assert client.post(f"/api/memories/{pending.pk}/approve").status_code == 409
    other = memory_remember(user=alice, content="team uses Slack", kind="team_policy").memory
    rejected = client.post(f"/api/memories/{other.pk}/reject", {"reason": "not verified"}, format="json")
    assert rejected.json()["status"] == "rejected"
    assert other.history.first().history_change_reason == "rejected: not verified"

    corrected = client.post(f"/api/memories/{memory.pk}/correct", {"content": "VIP since 2021"}, format="json")
    assert corrected.status_code == 201
    memory.refresh_from_db()
    assert memory.status == "superseded" and memory.superseded_by_id == corrected.json()["id"]

    assert client.delete(f"/api/memories/{pending.pk}").status_code == 204
    deleted = Memory.history.model.objects.filter(id=pending.pk, history_type="-").get()
    assert deleted.history_user == staff and deleted.content == "team works remotely"


def test_staff_refusals_are_explained(staff, alice):
    client = api(staff)
    too_long = client.post("/api/memories", {"user_id": alice.pk, "content": "x" * 500}, format="json")
    assert too_long.status_code == 400 and too_long.json()["extra"]["code"] == "too_long"
    bad_kind = client.post("/api/memories", {"user_id": alice.pk, "content": "x", "kind": "mood"}, format="json")
    assert bad_kind.status_code == 400 and bad_kind.json()["message"].startswith("kind:")
    assert client.post("/api/memories", {"user_id": 999999, "content": "x"}, format="json").status_code == 404
    memory = MemoryFactory(user=alice)
    assert client.patch(f"/api/memories/{memory.pk}", {}, format="json").status_code == 400
    assert client.patch(f"/api/memories/{memory.pk}", {"importance": 9}, format="json").status_code == 400
    memory.refresh_from_db()
    assert memory.importance == 3


def test_staff_reading_one_memory_is_logged(staff, alice):
    memory = MemoryFactory(user=alice)
    assert api(staff).get(f"/api/memories/{memory.pk}").status_code == 200
    log = StaffAccessLog.objects.get(subject=alice)
    assert (log.what, log.object_ref, log.viewer) == ("memory", str(memory.pk), staff)


def test_staff_cannot_erase_compliance_can_and_no_content_is_left(staff, compliance, alice):
    old = memory_remember(user=alice, content="my IBAN is DE44 5001 0517 5407 3249 31").memory
    new = api(alice).patch(f"/api/me/memories/{old.pk}", {"content": "IBAN DE44 5001 0517 5407 3249 32"}, format="json")
    new_id = new.json()["id"]
    assert api(staff).post(f"/api/memories/{new_id}/erase").status_code == 403
    assert Memory.objects.filter(user=alice).count() == 2
    assert api(compliance).post(f"/api/memories/{new_id}/erase").status_code == 204
    assert not Memory.objects.filter(user=alice).exists()
    audit = Memory.history.model.objects.filter(id__in=[old.pk, new_id])
    assert audit.exists() and not audit.exclude(content="").exists()
    assert api(compliance).post(f"/api/memories/{new_id}/erase").status_code == 404
