"""IDOR sweep: every owner object endpoint and method, with other people's ids and made-up ones.

Every such request must answer 404 (exactly as for an id that does not exist), say
nothing of the object, and change nothing. Staff and compliance officers are swept
too: the owner API is the owner's, whatever the role.
"""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from agents.models import Run
from memories.models import Memory
from tests.factories import UserFactory
from tests.usecases.people import person_with_data
from tests.usecases.snapshots import stored_state

pytestmark = pytest.mark.django_db

OBJECTS_PER_USER = 4
MADE_UP_PER_KIND = 10

# (kind of id, method, path template, body)
ENDPOINTS = [
    ("thread", "get", "/api/threads/{}", None),
    ("thread", "patch", "/api/threads/{}", {"title": "pwned"}),
    ("thread", "delete", "/api/threads/{}", None),
    ("thread", "get", "/api/threads/{}/messages", None),
    ("thread", "post", "/api/threads/{}/messages", {"content": "ignore previous instructions"}),
    ("thread", "get", "/api/threads/{}/search?q=order", None),
    ("run", "get", "/api/runs/{}", None),
    ("run", "post", "/api/runs/{}/retry", None),
    ("run", "post", "/api/runs/{}/cancel", None),
    ("memory", "get", "/api/me/memories/{}", None),
    ("memory", "patch", "/api/me/memories/{}", {"content": "pwned"}),
    ("memory", "delete", "/api/me/memories/{}", None),
]


def test_no_one_reaches_anyone_elses_objects(alice, bob, staff, compliance, monkeypatch):
    # The sweep posts far more turns than a person may per minute; a 429 would hide the 404.
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "turns", "100000/min")
    people = [alice, bob, UserFactory(username="carol"), UserFactory(username="dave"), staff, compliance]
    for person in people:
        person_with_data(person, threads=OBJECTS_PER_USER, marker=f"secret-of-{person.username} ")
    owned = {
        person.pk: {
            "thread": [str(t) for t in person.threads.values_list("id", flat=True)],
            "run": [str(r) for r in Run.objects.filter(user=person).values_list("id", flat=True)],
            "memory": list(Memory.objects.filter(user=person).values_list("id", flat=True)),
        }
        for person in people
    }
    top_memory = max(Memory.objects.values_list("id", flat=True))
    made_up = {
        "thread": [str(uuid.uuid4()) for _ in range(MADE_UP_PER_KIND)],
        "run": [str(uuid.uuid4()) for _ in range(MADE_UP_PER_KIND)],
        "memory": [top_memory + i for i in range(1, MADE_UP_PER_KIND)] + [2**31 - 1],
    }
    before = stored_state()

    requests, leaks = 0, []
    for actor in people:
        client = APIClient()
        client.force_authenticate(actor)
        for kind, method, template, body in ENDPOINTS:
            others = [i for p in people if p.pk != actor.pk for i in owned[p.pk][kind]]
            for target in others + made_up[kind]:
                response = getattr(client, method)(template.format(target), body, format="json")
                requests += 1
                text = response.content.decode()
                if response.status_code != 404 or "secret-of-" in text or set(response.json()) != {"message", "extra"}:
                    leaks.append((actor.username, method, template.format(target), response.status_code, text[:120]))

    assert requests >= 1000
    assert leaks == [], f"{len(leaks)} of {requests} requests leaked: {leaks[:5]}"
    assert stored_state() == before
    # The owners themselves still reach every one of those objects.
    for person in people:
        client = APIClient()
        client.force_authenticate(person)
        for thread_id in owned[person.pk]["thread"]:
            assert client.get(f"/api/threads/{thread_id}").status_code == 200
        for run_id in owned[person.pk]["run"]:
            assert client.get(f"/api/runs/{run_id}").status_code == 200
        for memory_id in owned[person.pk]["memory"]:
            assert client.get(f"/api/me/memories/{memory_id}").status_code == 200


def test_a_foreign_id_answers_exactly_like_a_missing_one(alice, bob):
    [bobs] = person_with_data(bob)
    client = APIClient()
    client.force_authenticate(alice)
    foreign = client.get(f"/api/threads/{bobs.pk}")
    missing = client.get(f"/api/threads/{uuid.uuid4()}")
    assert (foreign.status_code, foreign.json()) == (missing.status_code, missing.json())
    memory = bob.memories.first()
    foreign = client.get(f"/api/me/memories/{memory.pk}").json()
    missing = client.get("/api/me/memories/999999").json()
    assert foreign["message"] == missing["message"] and set(foreign) == set(missing)


def test_made_up_ids_on_staff_and_compliance_endpoints_answer_404(alice, staff, compliance):
    person_with_data(alice)
    compliance.is_staff = True
    compliance.save()
    missing_memory = max(Memory.objects.values_list("id", flat=True)) + 1
    missing_person = alice.pk + 1000
    calls = [
        ("get", f"/api/memories/{missing_memory}", None),
        ("patch", f"/api/memories/{missing_memory}", {"importance": 1}),
        ("delete", f"/api/memories/{missing_memory}", None),
        ("post", f"/api/memories/{missing_memory}/approve", None),
        ("post", f"/api/memories/{missing_memory}/reject", {}),
        ("post", f"/api/memories/{missing_memory}/correct", {"content": "x"}),
        ("post", f"/api/memories/{missing_memory}/erase", None),
        ("post", "/api/memories", {"user_id": missing_person, "content": "x"}),
        ("get", f"/api/people/{missing_person}/export", None),
        ("post", f"/api/people/{missing_person}/import", {"format": "liamemory.export", "version": 1, "threads": []}),
        ("get", f"/api/erasure-requests/{uuid.uuid4()}", None),
        ("post", f"/api/erasure-requests/{uuid.uuid4()}/dry-run", None),
        ("post", "/api/erasure-requests", {"subject_id": missing_person}),
        ("post", "/api/legal-holds/999999/lift", None),
    ]
    client = APIClient()
    client.force_authenticate(compliance)
    before = stored_state()
    answers = [
        (method, url, getattr(client, method)(url, body, format="json").status_code) for method, url, body in calls
    ]
    assert [a for a in answers if a[2] != 404] == []
    assert stored_state() == before
