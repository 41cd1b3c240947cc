"""``/api/approvals``: the staff's queue of actions runs asked for, and their decisions."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.models import Approval
from conversations.services import thread_create
from liamemory.models import StaffAccessLog
from tests.fake_anthropic import tool_use_reply
from tests.usecases.turn.helpers import run_turn

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def waiting(alice, fake_anthropic) -> Approval:
    thread = thread_create(owner=alice, agent="relationship")
    fake_anthropic.script(tool_use_reply("request_approval", {"reason": "12-month plan", "amount": 1200}))
    run_turn(alice, thread, "Can I pay 1200 euros over a year?")
    return Approval.objects.get(run__thread=thread)


def test_staff_read_the_queue_and_the_read_is_logged(staff, alice, waiting):
    response = api(staff).get("/api/approvals")
    assert response.status_code == 200
    [item] = response.json()["results"]
    assert item["id"] == waiting.pk and item["run_id"] == str(waiting.run_id) and item["user_id"] == alice.pk
    assert item["reason"] == "12-month plan" and item["amount"] == "1200.00" and item["decision"] == "pending"
    assert StaffAccessLog.objects.filter(subject=alice, what="run", object_ref="approvals").count() == 1


def test_end_users_and_strangers_cannot_see_or_decide(alice, bob, waiting):
    assert api().get("/api/approvals").status_code == 401
    assert api(alice).get("/api/approvals").status_code == 403
    assert api(bob).post(f"/api/approvals/{waiting.pk}/approve").status_code == 403
    assert Approval.objects.get(pk=waiting.pk).decision == "pending"


def test_staff_approve_once_and_the_run_resumes(staff, waiting, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api(staff).post(f"/api/approvals/{waiting.pk}/approve", {"note": "fine"}, format="json")
    assert response.status_code == 200
    assert response.json()["decision"] == "approved" and response.json()["decided_by_id"] == staff.pk
    assert len(callbacks) == 1  # the resume task, at commit
    waiting.run.refresh_from_db()
    assert waiting.run.status == "running"
    assert api(staff).get("/api/approvals").json()["results"] == []
    again = api(staff).post(f"/api/approvals/{waiting.pk}/reject", {"note": "no"}, format="json")
    assert again.status_code == 409
    assert Approval.objects.get(pk=waiting.pk).decision == "approved"


def test_an_unknown_approval_is_404(staff):
    assert api(staff).post("/api/approvals/999999/reject").status_code == 404
