"""Human approval of actions: interrupt → staff decision → resume from the checkpoint."""

import json
from decimal import Decimal

import pytest

from agents.models import Approval, Run
from agents.selectors import thread_checkpoints
from conversations.models import Message, Thread
from conversations.services import thread_create
from liamemory.errors import Conflict
from tests.fake_anthropic import text_reply, tool_use_reply
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.export import person_export
from usecases.thread_deletion import thread_delete
from usecases.turn.runner import run_resume
from usecases.turns import approval_decide, run_cancel, thread_fork, turn_submit


def _interrupted_run(alice, fake_anthropic):
    thread = thread_create(owner=alice, agent="relationship")
    fake_anthropic.script(tool_use_reply("request_approval", {"reason": "12-month plan", "amount": 1200}))
    run = run_turn(alice, thread, "Can I pay 1200 euros over a year?")
    return thread, run


@pytest.mark.django_db
def test_interrupt_approve_resume_completes_from_checkpoint(alice, staff, fake_anthropic):
    thread, run = _interrupted_run(alice, fake_anthropic)
    assert run.status == "interrupted"
    [approval] = Approval.objects.waiting()
    assert approval.run_id == run.id and approval.action == "request_approval"
    assert approval.reason == "12-month plan" and approval.amount == Decimal("1200")
    assert approval.checkpoint_id and approval.decision == "pending" and approval.decided_by is None
    assert not Message.objects.filter(thread=thread, role="assistant").exists()
    # A new message cannot slip in while the thread waits.
    with pytest.raises(Conflict, match="waiting for a staff approval"):
        turn_submit(user=alice, thread=thread, content="hello?")

    fake_anthropic.script(text_reply("Approved: your 12-month plan is set."))
    approval_decide(approval=approval, approved=True, actor=staff, note="ok")
    approval.refresh_from_db()
    assert approval.decision == "approved" and approval.decided_by == staff and approval.decided_at
    run_resume(run_id=str(run.id), decision={"approved": True, "by": "staff", "note": "ok"})
    run.refresh_from_db()
    assert run.status == "completed"
    assert reply_text(run) == "Approved: your 12-month plan is set."
    resumed_request = fake_anthropic.message_requests()[-1]
    result = json.loads(resumed_request["messages"][-1]["content"][0]["content"])
    assert result["approved"] is True
    # The model was not called again for the first step: the run resumed, it did not restart.
    assert len(fake_anthropic.message_requests()) == 2


@pytest.mark.django_db
def test_reject_ends_the_run_with_its_reason(alice, staff, fake_anthropic):
    _thread, run = _interrupted_run(alice, fake_anthropic)
    fake_anthropic.script(text_reply("I'm sorry, that plan was not approved."))
    approval_decide(approval=Approval.objects.get(run=run), approved=False, actor=staff, note="amount too high")
    run_resume(run_id=str(run.id), decision={"approved": False, "by": "staff", "note": "amount too high"})
    run.refresh_from_db()
    approval = Approval.objects.get(run=run)
    assert run.status == "completed" and approval.decision == "rejected" and approval.note == "amount too high"
    [exported] = person_export(user=alice)["threads"][0]["runs"][0]["approvals"]
    assert (exported["decision"], exported["reason"], exported["amount"]) == ("rejected", "12-month plan", "1200.00")
    result = json.loads(fake_anthropic.message_requests()[-1]["messages"][-1]["content"][0]["content"])
    assert result == {"ok": True, "approved": False, "by": "staff", "note": "amount too high"}


@pytest.mark.django_db
def test_only_one_decision_goes_through(alice, staff, fake_anthropic):
    _thread, run = _interrupted_run(alice, fake_anthropic)
    approval_decide(approval=Approval.objects.get(run=run), approved=True, actor=staff)
    with pytest.raises(Conflict):
        approval_decide(approval=Approval.objects.get(run=run), approved=False, actor=staff)
    assert Approval.objects.get(run=run).decision == "approved"


@pytest.mark.django_db
def test_a_cancelled_run_withdraws_its_approval_and_cannot_be_decided(alice, staff, fake_anthropic):
    _thread, run = _interrupted_run(alice, fake_anthropic)
    run_cancel(run=run)
    approval = Approval.objects.get(run=run)
    assert approval.decision == "withdrawn" and approval.decided_at and not Approval.objects.waiting().exists()
    with pytest.raises(Conflict):
        approval_decide(approval=approval, approved=True, actor=staff)
    assert Run.objects.get(pk=run.pk).status == "cancelled"


@pytest.mark.django_db
def test_small_amounts_need_no_approval(alice, fake_anthropic):
    thread = thread_create(owner=alice, agent="relationship")
    fake_anthropic.script(tool_use_reply("request_approval", {"reason": "small", "amount": 50}), text_reply("Done."))
    run = run_turn(alice, thread, "50 euros discount?")
    assert run.status == "completed"


@pytest.mark.django_db
def test_time_travel_lists_checkpoints_and_forks(alice, fake_anthropic):
    thread = thread_create(owner=alice)
    fake_anthropic.script(text_reply("first answer"), text_reply("second answer"))
    first = run_turn(alice, thread, "first question")
    run_turn(alice, thread, "second question")
    checkpoints = thread_checkpoints(thread=thread)
    assert {c["run_id"] for c in checkpoints} == {str(r.id) for r in Run.objects.filter(thread=thread)}
    final_of_first = next(c for c in checkpoints if c["run_id"] == str(first.id) and c["new_messages"] == 1)
    fork = thread_fork(thread=thread, checkpoint_id=final_of_first["checkpoint_id"])
    assert [m.text for m in Message.objects.filter(thread=fork).order_by("sequence")] == [
        "first question",
        "first answer",
    ]
    assert fork.owner == alice and fork.id != thread.id


@pytest.mark.django_db
def test_staff_fork_a_thread_from_a_checkpoint_in_the_admin(alice, staff, fake_anthropic, client):
    thread = thread_create(owner=alice)
    fake_anthropic.script(text_reply("first answer"), text_reply("second answer"))
    first = run_turn(alice, thread, "first question")
    run_turn(alice, thread, "second question")
    client.force_login(alice)
    assert client.get(f"/admin/agents/run/{first.id}/checkpoints/").status_code == 302  # staff only
    client.force_login(staff)
    assert "checkpoints/" in client.get(f"/admin/agents/run/{first.id}/change/").content.decode()
    page = client.get(f"/admin/agents/run/{first.id}/checkpoints/")
    text = page.content.decode()
    assert page.status_code == 200 and "Fork from here" in text
    # Each checkpoint shows the message it follows; the run you came from is marked.
    assert "“first question”" in text and "“second question”" in text
    current = [c for c in page.context["checkpoints"] if c["is_current"]]
    assert current and {c["run_id"] for c in current} == {str(first.id)} and "this run" in text
    final_of_first = next(
        c for c in page.context["checkpoints"] if c["run_id"] == str(first.id) and c["new_messages"] == 1
    )
    response = client.post(
        f"/admin/agents/run/{first.id}/checkpoints/", {"checkpoint_id": final_of_first["checkpoint_id"]}
    )
    fork = Thread.objects.exclude(pk=thread.pk).get(owner=alice)
    assert response.status_code == 302 and response["Location"] == f"/admin/conversations/thread/{fork.pk}/change/"
    # It lands in alice's own list: labelled as made by staff, not passed off as hers.
    client.force_login(alice)
    assert "copy made by staff" in fork.title and "copy made by staff" in client.get("/").content.decode()
    assert [m.text for m in Message.objects.filter(thread=fork).order_by("sequence")] == [
        "first question",
        "first answer",
    ]


@pytest.mark.django_db
def test_staff_approve_from_the_admin_queue(alice, staff, fake_anthropic, client, django_capture_on_commit_callbacks):
    _thread, run = _interrupted_run(alice, fake_anthropic)
    client.force_login(staff)
    page = client.get("/admin/agents/approval/")
    assert page.status_code == 200 and "12-month plan" in page.content.decode()
    approval = Approval.objects.get(run=run)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            "/admin/agents/approval/", {"action": "approve", "_selected_action": [str(approval.pk)]}, follow=True
        )
    assert "1 action(s) approved" in response.content.decode()
    run.refresh_from_db()
    approval.refresh_from_db()
    assert run.status == "running" and approval.decision == "approved" and approval.decided_by == staff
    # Decided, it leaves the queue; the list of every decision still shows it.
    assert "12-month plan" not in client.get("/admin/agents/approval/").content.decode()
    assert "12-month plan" in client.get("/admin/agents/approval/", {"decision": "all"}).content.decode()
    assert len(callbacks) == 1  # the resume task is enqueued on commit


@pytest.mark.django_db
def test_end_user_cannot_open_the_approval_queue(alice, client):
    client.force_login(alice)
    assert client.get("/admin/agents/approval/").status_code == 302


@pytest.mark.django_db
def test_deleting_a_waiting_thread_deletes_its_approval(alice, fake_anthropic):
    thread, run = _interrupted_run(alice, fake_anthropic)
    counts = thread_delete(thread=thread, actor=alice)
    assert counts["approvals"] == 1 and not Approval.objects.exists() and not Run.objects.filter(pk=run.pk).exists()
