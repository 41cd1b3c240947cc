"""An erasure ends ``completed`` with its receipt: after a staff view, a date, a failed or
stuck first attempt or a double submission; the audit of staff reads survives under a
pseudonym; deleting a conversation while its run writes never fails. (Late writes of an
in-flight run: ``tests/agents/test_run_lock.py``, with a real worker.)"""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from agents import run_lifecycle
from agents.models import Run
from conversations.models import Thread
from conversations.services import message_append, thread_create
from governance.models import ErasureRequest
from liamemory.models import StaffAccessLog
from memories.models import Memory
from tests.usecases.people import person_with_data
from usecases import erasure_scan as scan
from usecases import erasure_steps
from usecases import turns as run_services
from usecases.erasure import erasure_execute, erasure_request_create

pytestmark = pytest.mark.django_db

TABLE_WORDS = ("memories_", "agents_", "conversations_", "governance_", "_id", "constraint")


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def plain(text: str) -> bool:
    """Words a person can read: no table or column names."""
    return not any(word in text for word in TABLE_WORDS)


def receipt_of(request_id) -> dict:
    return ErasureRequest.objects.get(pk=request_id).receipt.body


def test_an_erasure_after_staff_views_completes_and_the_access_log_survives_pseudonymously(alice, staff):
    person_with_data(alice)
    memory = Memory.objects.filter(user=alice, status="active").first()
    assert api(staff).get(f"/api/memories/{memory.pk}").status_code == 200
    admin = Client()
    admin.force_login(staff)
    assert admin.get(f"/admin/people/{alice.pk}/").status_code == 200
    logged = StaffAccessLog.objects.filter(subject=alice).count()
    assert logged >= 2

    response = api(alice).post("/api/me/erase", {"confirm": True}, format="json")
    assert response.status_code == 200, response.content
    done = response.json()
    assert done["status"] == "completed"
    ref = receipt_of(done["id"])["subject_ref"]
    # Every row of the access log is still there, naming nobody: the receipt's pseudonym instead.
    rows = StaffAccessLog.objects.filter(subject_ref=ref)
    assert rows.count() == logged
    assert not rows.exclude(subject=None).exists()
    assert set(rows.values_list("viewer_username", flat=True)) == {staff.username}


def test_deleting_the_account_keeps_the_access_log(alice, staff, compliance):
    person_with_data(alice)
    api(staff).get(f"/api/memories/{Memory.objects.filter(user=alice).first().pk}")
    request = erasure_request_create(subject=alice, requested_by=compliance, delete_account=True)
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    assert StaffAccessLog.objects.filter(subject_ref=done.subject_ref).count() == 1


def _said_the_date(user, date: str, word: str) -> None:
    """A turn in which the person asked the date (the tool's result in the trace and in a
    message), and a long common word also used by other people."""
    thread = thread_create(owner=user, title="what day")
    _message, run = run_services.turn_submit(user=user, thread=thread, content=f"what day is it? {word}")
    assert run_lifecycle.run_claim(run_id=str(run.id))
    result = {"ok": True, "date": date, "time_utc": "09:15", "weekday": "Thursday"}
    run_lifecycle.trace_record(
        run_id=str(run.id),
        kind="tool_call",
        name="get_current_date",
        payload={"arguments": {}, "result": result},
    )
    message_append(
        thread=thread,
        role="assistant",
        content=[{"type": "text", "text": f"Today is {date} ({date}T09:15:00+00:00), {word}."}],
    )


def test_a_date_a_number_or_a_word_shared_with_others_does_not_fail_the_erasure(alice, bob, compliance):
    word = "internationalisation"
    for person in (alice, bob):
        _said_the_date(person, "2026-12-03", word)
        message_append(
            thread=Thread.objects.filter(owner=person).first(),
            role="user",
            content=[{"type": "text", "text": "call me at 00390115551234 please"}],
        )
    person_with_data(alice, marker="alicecanary-")
    bob_rows = Thread.objects.filter(owner=bob).count()

    canaries = scan.canaries_sample(user_id=alice.pk)
    assert canaries, "the person's own distinctive strings are still sampled"
    assert not {c for c in canaries if "2026-12-03" in c or "00390115551234" in c or c == word}

    request = erasure_request_create(subject=alice, requested_by=compliance)
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    assert Thread.objects.filter(owner=bob).count() == bob_rows


def test_a_failed_erasure_says_so_in_plain_words_and_compliance_resumes_it(alice, compliance, monkeypatch):
    person_with_data(alice, threads=2)

    real = erasure_steps.threads_delete
    calls = {"n": 0}

    def failing_once(**kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("disk on fire")
        return real(**kwargs)

    monkeypatch.setattr(erasure_steps, "threads_delete", failing_once)
    request = erasure_request_create(subject=alice, requested_by=compliance)
    first = erasure_execute(request_id=request.pk)
    assert first.status == "failed"
    assert first.error_message and plain(first.error_message) and "disk on fire" not in first.error_message

    # A second request joins the first rather than making two that block each other.
    again = api(compliance).post("/api/erasure-requests", {"subject_id": alice.pk}, format="json")
    assert again.status_code == 200, again.content
    assert again.json()["id"] == str(request.pk)
    assert ErasureRequest.objects.count() == 1

    resumed = api(compliance).post(f"/api/erasure-requests/{request.pk}/execute")
    assert resumed.status_code in (200, 202)
    done = ErasureRequest.objects.get(pk=request.pk)
    if done.status != "completed":  # enqueued for the worker: run the task's body here
        done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    assert receipt_of(request.pk)["counts"]["threads"] == 2


def test_a_stuck_running_erasure_is_resumed_from_admin(alice, compliance):
    person_with_data(alice)
    request = erasure_request_create(subject=alice, requested_by=compliance)
    # A worker died mid-erasure: the row says running, and nobody holds its lock.
    ErasureRequest.objects.filter(pk=request.pk).update(status="running")
    admin = Client()
    admin.force_login(compliance)
    response = admin.post(
        "/admin/governance/erasurerequest/",
        {"action": "execute", "_selected_action": [str(request.pk)]},
    )
    assert response.status_code == 302
    done = ErasureRequest.objects.get(pk=request.pk)
    if done.status != "completed":
        done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message


def _running_run(user) -> Run:
    thread = thread_create(owner=user, title="in flight")
    _, run = run_services.turn_submit(user=user, thread=thread, content="remember my locker is 7781")
    assert run_lifecycle.run_claim(run_id=str(run.id))
    run.refresh_from_db()
    return run


@pytest.mark.django_db(transaction=True)
def test_a_double_submitted_self_erasure_answers_plainly_and_completes_once(alice):
    person_with_data(alice, threads=2)
    barrier = threading.Barrier(2)
    answers: list[tuple[int, dict]] = []

    def submit() -> None:
        client = APIClient()
        client.force_authenticate(alice)
        try:
            barrier.wait()
            response = client.post("/api/me/erase", {"confirm": True}, format="json")
            answers.append((response.status_code, response.json()))
        finally:
            connection.close()

    workers = [threading.Thread(target=submit) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert len(answers) == 2
    for code, body in answers:
        assert code in (200, 202, 409), body
        assert plain(str(body.get("message", ""))) and plain(str(body.get("error_message", ""))), body
    [request] = ErasureRequest.objects.all()
    if request.status != "completed":
        request = erasure_execute(request_id=request.pk)
    assert request.status == "completed"


@pytest.mark.django_db(transaction=True)
def test_deleting_a_conversation_while_its_run_writes_traces_never_fails(alice):
    """The run's trace writes race the delete: the delete answers 204, the run stops writing."""
    client = APIClient()
    client.force_authenticate(alice)
    for _ in range(8):
        run = _running_run(alice)
        stop = threading.Event()
        outcomes: list[str] = []

        def write_traces(run_id=str(run.pk), stop=stop, outcomes=outcomes) -> None:
            try:
                while not stop.is_set():
                    run_lifecycle.trace_record(run_id=run_id, kind="context", name="build", payload={"n": 1})
                outcomes.append("stopped")
            except run_lifecycle.RunNoLongerActive:
                outcomes.append("no longer active")
            finally:
                connection.close()

        writer = threading.Thread(target=write_traces)
        writer.start()
        response = client.delete(f"/api/threads/{run.thread_id}")
        stop.set()
        writer.join(timeout=30)
        assert response.status_code == 204, response.content
        assert not Thread.objects.filter(pk=run.thread_id).exists()
        assert outcomes and outcomes[0] in {"stopped", "no longer active"}
