"""Who may do what (docs/design.md): every action of the API × anonymous, end user, staff, compliance.

Each row acts on bob's data (or on the caller's own, for the /me and thread endpoints).
A refusal leaves everything stored as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from conversations.services import thread_create
from memories.services import memory_remember
from tests.factories import UserFactory
from tests.usecases.people import person_with_data
from tests.usecases.snapshots import stored_state
from usecases.erasure import erasure_request_create

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "user", "staff", "compliance")


@dataclass(frozen=True)
class Action:
    method: str
    url: str
    body: Any = None
    # Expected status for anonymous, end user, staff, compliance officer.
    expected: tuple[int, int, int, int] = (401, 200, 200, 200)


def small_document() -> dict:
    return {
        "format": "liamemory.export",
        "version": 1,
        "threads": [
            {
                "id": "2f1b6d5e-7c1a-4d8e-9a57-0c7a3e2b9f11",
                "messages": [{"sequence": 1, "role": "user", "content": [{"type": "text", "text": "hi"}]}],
            }
        ],
    }


ACTIONS = {
    # End users, on their own data (every role is an end user of its own data).
    "list my threads": Action("get", "/api/threads"),
    "start a thread": Action("post", "/api/threads", {"agent": "assistant"}, (401, 201, 201, 201)),
    "rename my thread": Action("patch", "/api/threads/{own_thread}", {"title": "renamed"}),
    "delete my thread": Action("delete", "/api/threads/{own_thread}", None, (401, 204, 204, 204)),
    "list my messages": Action("get", "/api/threads/{own_thread}/messages"),
    "post a turn": Action("post", "/api/threads/{own_thread}/messages", {"content": "hello"}, (401, 202, 202, 202)),
    "search my threads": Action("get", "/api/search?q=order"),
    "search one thread": Action("get", "/api/threads/{own_thread}/search?q=order"),
    "list my memories": Action("get", "/api/me/memories"),
    "correct my memory": Action("patch", "/api/me/memories/{own_memory}", {"content": "my dog is Rex"}),
    "forget my memory": Action("delete", "/api/me/memories/{own_memory}", None, (401, 204, 204, 204)),
    "memory switch": Action("put", "/api/me/memory-settings", {"long_term_enabled": False}),
    "export my data": Action("get", "/api/me/export"),
    "who am I": Action("get", "/api/me"),
    # Staff: inspect and correct anyone's memories, decide approvals; no erasure.
    "list all memories": Action("get", "/api/memories", None, (401, 403, 200, 200)),
    "search all memories": Action("get", "/api/memories?q=order", None, (401, 403, 200, 200)),
    "read a memory": Action("get", "/api/memories/{bob_memory}", None, (401, 403, 200, 200)),
    "add a memory": Action(
        "post", "/api/memories", {"user_id": "{bob}", "content": "prefers email"}, (401, 403, 201, 403)
    ),
    "edit a memory": Action("patch", "/api/memories/{bob_memory}", {"importance": 5}, (401, 403, 200, 403)),
    "correct a memory": Action(
        "post", "/api/memories/{bob_memory}/correct", {"content": "order AB-999"}, (401, 403, 201, 403)
    ),
    "approve a memory": Action("post", "/api/memories/{bob_pending}/approve", None, (401, 403, 200, 403)),
    "reject a memory": Action("post", "/api/memories/{bob_pending}/reject", {"reason": "no"}, (401, 403, 200, 403)),
    "delete a memory": Action("delete", "/api/memories/{bob_memory}", None, (401, 403, 204, 403)),
    "import for someone": Action("post", "/api/people/{bob}/import", "DOCUMENT", (401, 403, 201, 201)),
    # Compliance officers: erasure, legal holds, exports of anyone.
    "erase a memory": Action("post", "/api/memories/{bob_memory}/erase", None, (401, 403, 403, 204)),
    "export someone": Action("get", "/api/people/{bob}/export", None, (401, 403, 403, 200)),
    "list erasure requests": Action("get", "/api/erasure-requests", None, (401, 403, 403, 200)),
    "file an erasure request": Action("post", "/api/erasure-requests", {"subject_id": "{bob}"}, (401, 403, 403, 201)),
    "read an erasure request": Action("get", "/api/erasure-requests/{erasure}", None, (401, 403, 403, 200)),
    "dry-run an erasure": Action("post", "/api/erasure-requests/{erasure}/dry-run", None, (401, 403, 403, 200)),
    "place a legal hold": Action(
        "post", "/api/legal-holds", {"user_id": "{bob}", "reason": "court order"}, (401, 403, 403, 201)
    ),
}


def _fill(value: Any, ids: dict) -> Any:
    if value == "DOCUMENT":
        return small_document()
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids[value[1:-1]]
    return value


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", ACTIONS)
def test_role_matrix(request, name, role, alice, bob, staff, compliance):
    action = ACTIONS[name]
    caller = {"anonymous": None, "user": alice, "staff": staff, "compliance": compliance}[role]
    person_with_data(bob, marker="bob ")
    ids = {
        "bob": bob.pk,
        "bob_memory": bob.memories.filter(status="active").first().pk,
        "bob_pending": memory_remember(user=bob, content="team uses Slack", kind="team_policy").memory.pk,
        # Filed for someone else, so that bob can still get a new one.
        "erasure": str(erasure_request_create(subject=UserFactory(username="carol"), requested_by=compliance).pk),
    }
    if caller is not None:
        ids["own_thread"] = thread_create(owner=caller, title="mine").pk
        ids["own_memory"] = memory_remember(user=caller, content="my dog is Max").memory.pk
    else:
        ids["own_thread"], ids["own_memory"] = bob.threads.first().pk, ids["bob_memory"]
    client = APIClient()
    if caller is not None:
        client.force_authenticate(caller)
    before = stored_state()

    url = action.url.format(**ids)
    response = getattr(client, action.method)(url, _fill(action.body, ids), format="json")

    expected = action.expected[ROLES.index(role)]
    assert response.status_code == expected, f"{name} as {role}: {response.status_code} {response.content[:200]}"
    if expected >= 400:
        assert set(response.json()) == {"message", "extra"}
        assert stored_state() == before
