"""My memories over the API: list, correct (superseding), forget, and the on/off switch."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memories import recall
from memories.models import Memory, MemoryPreference
from memories.services import memory_remember
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_list_shows_only_my_memories_with_filters(alice, bob):
    mine = memory_remember(user=alice, content="prefers trains to planes").memory
    memory_remember(user=alice, content="team uses Jira", kind="team_policy")
    memory_remember(user=bob, content="bob likes planes")
    client = api(alice)
    body = client.get("/api/me/memories").json()
    assert {m["content"] for m in body["results"]} == {"prefers trains to planes", "team uses Jira"}
    facts = client.get("/api/me/memories?kind=fact").json()["results"]
    assert [m["id"] for m in facts] == [mine.pk]
    assert facts[0]["provenance"]["writer_type"] == "agent"
    pending = client.get("/api/me/memories?status=pending").json()["results"]
    assert [m["content"] for m in pending] == ["team uses Jira"]


@pytest.mark.parametrize(
    ("query", "field"), [("kind=feelings", "kind"), ("status=gone", "status"), ("limit=100000", "limit")]
)
def test_bad_filters_answer_400_naming_the_field(alice, query, field):
    response = api(alice).get(f"/api/me/memories?{query}")
    assert response.status_code == 400 and response.json()["message"].startswith(f"{field}:")


def test_list_costs_a_fixed_number_of_queries(alice, django_assert_num_queries):
    for _ in range(3):
        MemoryFactory(user=alice)
    with django_assert_num_queries(1):
        assert len(api(alice).get("/api/me/memories").json()["results"]) == 3
    for _ in range(30):
        MemoryFactory(user=alice)
    with django_assert_num_queries(1):
        assert len(api(alice).get("/api/me/memories").json()["results"]) == 33


def test_correcting_supersedes_the_old_text(alice):
    old = memory_remember(user=alice, content="my cat is called Tom").memory
    response = api(alice).patch(f"/api/me/memories/{old.pk}", {"content": "my cat is called Tim"}, format="json")
    assert response.status_code == 200
    new = response.json()
    assert new["content"] == "my cat is called Tim" and new["status"] == "active" and new["id"] != old.pk
    assert new["provenance"]["writer_type"] == "user"
    old.refresh_from_db()
    assert old.status == "superseded" and old.superseded_by_id == new["id"]
    assert old.history.first().history_user == alice
    again = api(alice).patch(f"/api/me/memories/{old.pk}", {"content": "again"}, format="json")
    assert again.status_code == 409 and again.json()["extra"]["successor_id"] == new["id"]
    empty = api(alice).patch(f"/api/me/memories/{new['id']}", {"content": "  "}, format="json")
    assert empty.status_code == 400
    assert Memory.objects.get(pk=new["id"]).content == "my cat is called Tim"


def test_forgetting_deletes_the_memory_and_the_versions_it_replaced(alice):
    old = memory_remember(user=alice, content="my locker is 12").memory
    new = api(alice).patch(f"/api/me/memories/{old.pk}", {"content": "my locker is 14"}, format="json").json()
    assert api(alice).delete(f"/api/me/memories/{new['id']}").status_code == 204
    assert not Memory.objects.filter(user=alice).exists()
    assert api(alice).delete(f"/api/me/memories/{new['id']}").status_code == 404


def test_memory_switch(alice):
    client = api(alice)
    assert client.get("/api/me/memory-settings").json() == {"long_term_enabled": True, "installation_enabled": True}
    off = client.put("/api/me/memory-settings", {"long_term_enabled": False}, format="json")
    assert off.status_code == 200 and off.json()["long_term_enabled"] is False
    assert MemoryPreference.objects.get(user=alice).long_term_enabled is False
    assert client.put("/api/me/memory-settings", {}, format="json").status_code == 400
    assert client.put("/api/me/memory-settings", {"long_term_enabled": "perhaps"}, format="json").status_code == 400
    assert client.get("/api/me/memory-settings").json()["long_term_enabled"] is False


def test_incognito_thread_over_the_api(alice):
    thread = api(alice).post("/api/threads", {"incognito": True}, format="json").json()
    assert thread["incognito"] is True


def test_correcting_a_pending_review_kind_memory_keeps_it_pending(alice, staff):
    """No review bypass: the owner's correction of a memory staff have not approved stays pending."""

    pending = memory_remember(user=alice, content="our CRM is HubSpot Starter", kind="client_setup").memory
    assert pending.status == "pending"
    response = api(alice).patch(
        f"/api/me/memories/{pending.pk}", {"content": "our CRM is Salesforce Enterprise"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "pending"
    assert not Memory.objects.filter(user=alice, status="active").exists()
    assert recall.search_memories(user=alice, query="which CRM Salesforce") == []
    # Staff approve the correction: only then do agents see it.
    approved = api(staff).post(f"/api/memories/{response.json()['id']}/approve")
    assert approved.status_code == 200 and approved.json()["status"] == "active"


def test_the_owner_correcting_an_active_review_kind_memory_needs_review_again(alice, staff):
    active = memory_remember(user=alice, content="team policy: refunds need two sign-offs", kind="team_policy").memory
    api(staff).post(f"/api/memories/{active.pk}/approve")
    response = api(alice).patch(f"/api/me/memories/{active.pk}", {"content": "refunds need no sign-off"}, format="json")
    assert response.json()["status"] == "pending"
    # Staff correcting it is the review itself.
    staff_fix = api(staff).post(f"/api/memories/{response.json()['id']}/correct", {"content": "refunds need one"})
    assert staff_fix.status_code in (200, 201), staff_fix.content
    assert staff_fix.json()["status"] == "active"
