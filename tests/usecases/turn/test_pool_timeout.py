"""A turn worker's connection pools exhausted (a burst): every move of a run ends in a state
the person sees. It goes back to the queue and ends on the task's retry, or it fails with
its message and its follower closes; it is never left ``running`` for the reaper.

Real pools with a short wait, on the test database: Django's, of one connection, and the
LangGraph checkpointer's, of one; another thread holds that connection while the turn
needs it, as 32 worker threads held 12 in the burst.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection

from agents import run_lifecycle
from agents.models import Approval, Run, RunTransition
from agents.streaming import follow_run
from conversations.services import thread_create
from liamemory.llm import ChatModel
from tests.fake_anthropic import error_reply, text_reply, tool_use_reply
from tests.pool import PoolHog, take_checkpoint_connection, take_django_connection
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn import runner
from usecases.turns import turn_submit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("runs_not_enqueued")]


def _status(run: Run) -> str:
    return Run.objects.filter(pk=run.pk).values_list("status", flat=True).get()


def _last_transition(run: Run) -> tuple[str, str]:
    return RunTransition.objects.filter(run=run).order_by("-id").values_list("to_status", "reason").first()


def _hog_once_the_graph_is_built(monkeypatch, hog: PoolHog) -> None:
    """As during a model call: the turn handed its connection back, another thread took it."""
    real_graph = runner._graph

    def graph_once_the_pool_is_taken():
        graph = real_graph()
        connection.close()
        hog.hold()
        return graph

    monkeypatch.setattr(runner, "_graph", graph_once_the_pool_is_taken)


def test_a_run_the_busy_pool_stopped_goes_back_to_the_queue_and_then_completes(alice, tiny_pool, monkeypatch):
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    hog = PoolHog()
    _hog_once_the_graph_is_built(monkeypatch, hog)
    # The task sees a database error, so Celery retries it (``execute_run``'s autoretry).
    with pytest.raises(OperationalError):
        runner.run_execute(run_id=str(run.pk))

    # With still no connection to be had from the pool, the run went back to the queue.
    hog.stop()
    assert Run.objects.filter(pk=run.pk).values_list("status", flat=True).get() == "queued"
    reasons = list(RunTransition.objects.filter(run=run).order_by("id").values_list("to_status", "reason"))
    assert reasons[-1] == ("queued", "database_unavailable")

    # The task's retry, once the pool has a connection again, writes the reply.
    monkeypatch.undo()
    runner.run_execute(run_id=str(run.pk))
    run.refresh_from_db()
    assert (run.status, run.error_code) == ("completed", "")
    assert run.thread.messages.filter(role="assistant").count() == 1


def test_a_run_the_busy_pool_kept_from_its_claim_stays_queued_and_then_completes(alice, tiny_pool):
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    connection.close()
    hog = PoolHog()
    hog.hold()
    # The claim's wait failed: the task is retried (``execute_run``'s autoretry), the run is still queued.
    with pytest.raises(OperationalError):
        runner.run_execute(run_id=str(run.pk))
    hog.stop()
    assert _status(run) == "queued"
    runner.run_execute(run_id=str(run.pk))
    assert _status(run) == "completed"


class _HoggingModel:
    """The run's own model, whose call ends once another thread holds the pool (``hog``),
    or raises ``error`` then instead of answering (an internal error of the turn)."""

    def __init__(self, model: ChatModel, hog: PoolHog, error: Exception | None) -> None:
        self.model, self.hog, self.error, self.name = model, hog, error, model.name

    def complete(self, **kwargs: Any) -> Any:
        self.hog.hold()
        if self.error is not None:
            raise self.error
        return self.model.complete(**kwargs)


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (None, "bad_request", "The model API refused the request (400)."),
        (RuntimeError("a bug"), "internal", "An internal error stopped this reply."),
    ],
)
def test_a_run_failing_while_the_pool_is_busy_records_its_failure_and_its_follower_closes(
    alice, tiny_pool, fake_anthropic, monkeypatch, error, code, message
):
    fake_anthropic.script(error_reply(400, "invalid_request_error", "bad request"))
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    hog = PoolHog()
    real_model = runner.model_for_run
    monkeypatch.setattr(runner, "model_for_run", lambda r: _HoggingModel(real_model(r), hog, error))

    # The failure is recorded through a connection of its own: nothing to retry.
    runner.run_execute(run_id=str(run.pk))

    hog.stop()
    run.refresh_from_db()
    assert (run.status, run.error_code, run.error_message) == ("failed", code, message)
    assert _last_transition(run) == ("failed", code)
    # A follower (the chat page's stream) is told the run ended, at once.
    events = list(follow_run(run_id=str(run.pk), max_seconds=2))
    assert (events[-1].kind, events[-1].data) == ("end", {"status": "failed"})


def _interrupted_run(alice, staff, fake_anthropic) -> Run:
    """A run waiting for staff at 1200 euros, then approved (the decision moved it to running)."""
    fake_anthropic.script(tool_use_reply("request_approval", {"reason": "12-month plan", "amount": 1200}))
    run = run_turn(alice, thread_create(owner=alice, agent="relationship"), "Can I pay 1200 euros over a year?")
    assert run.status == "interrupted"
    approval = Approval.objects.get(run=run)
    assert run_lifecycle.approval_decide(approval=approval, approved=True, actor=staff, note="ok")
    return run


@pytest.mark.parametrize("pool", ["django", "checkpointer"])
def test_a_resumed_run_the_busy_pool_stopped_goes_back_to_the_queue_and_continues_from_the_decision(
    alice, staff, tiny_pool, tiny_checkpoint_pool, fake_anthropic, monkeypatch, pool
):
    run = _interrupted_run(alice, staff, fake_anthropic)
    decision = run_lifecycle.approval_resume_value(Approval.objects.get(run=run))
    assert decision == {"approved": True, "by": "staff", "note": "ok"}
    hog = PoolHog(take_django_connection if pool == "django" else take_checkpoint_connection)
    _hog_once_the_graph_is_built(monkeypatch, hog)
    # Django's pool: the resumed tool's trace waits on it; the checkpointer's: the resume's
    # read of its checkpoint. The task sees a database error, so Celery retries it.
    with pytest.raises((OperationalError, psycopg.OperationalError)):
        runner.run_resume(run_id=str(run.pk), decision=decision)

    hog.stop()
    assert _status(run) == "queued"
    assert _last_transition(run) == ("queued", "database_unavailable")

    # The task's retry claims the run and continues from the staff decision: it does not
    # start over (which would ask staff again), and the model hears the decision.
    monkeypatch.undo()
    fake_anthropic.script(text_reply("Approved: your 12-month plan is set."))
    runner.run_resume(run_id=str(run.pk), decision=decision)
    run.refresh_from_db()
    assert (run.status, reply_text(run)) == ("completed", "Approved: your 12-month plan is set.")
    assert Approval.objects.filter(run=run).count() == 1
    requests = fake_anthropic.message_requests()
    assert len(requests) == 2
    result = json.loads(requests[-1]["messages"][-1]["content"][0]["content"])
    assert result == {"ok": True, "approved": True, "by": "staff", "note": "ok"}


def test_a_new_run_the_busy_checkpointer_pool_stopped_goes_back_to_the_queue_and_then_completes(
    alice, tiny_checkpoint_pool, monkeypatch
):
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    hog = PoolHog(take_checkpoint_connection)
    _hog_once_the_graph_is_built(monkeypatch, hog)
    with pytest.raises(psycopg.OperationalError):
        runner.run_execute(run_id=str(run.pk))
    hog.stop()
    assert _last_transition(run) == ("queued", "database_unavailable")
    monkeypatch.undo()
    runner.run_execute(run_id=str(run.pk))
    assert _status(run) == "completed"


class _OutageModel:
    """The run's own model, during whose call the database goes away: another thread holds
    the pool and the server refuses new connections (the connection outside the pool
    goes to a closed port). Then it raises ``error``, or answers (the turn's next write fails)."""

    def __init__(self, model: ChatModel, hog: PoolHog, refuse, error: Exception | None) -> None:
        self.model, self.hog, self.refuse, self.error, self.name = model, hog, refuse, error, model.name

    def complete(self, **kwargs: Any) -> Any:
        self.hog.hold()
        self.refuse()
        if self.error is not None:
            raise self.error
        return self.model.complete(**kwargs)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("ending", ["requeue", "model error", "internal error"])
def test_a_run_the_outage_kept_from_recording_its_end_is_given_back_by_its_tasks_retry(
    alice, tiny_pool, fake_anthropic, monkeypatch, ending
):
    """In an outage the run's last move (back to the queue, or failed) fails through the
    pool and through a connection of its own: the run was left ``running`` for the reaper
    (5 minutes). The runner says so (``RunLeftRunning``, with its claim), and the task's
    retry with that claim gives the run back and runs it once the database answers."""
    first = {
        "requeue": [text_reply("First answer.")],
        "model error": [error_reply(400, "invalid_request_error", "bad")],
    }
    fake_anthropic.script(*first.get(ending, []), text_reply("Answered after the outage."))
    error = RuntimeError("a bug") if ending == "internal error" else None
    _message, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    hog = PoolHog()
    real_model = runner.model_for_run
    with monkeypatch.context() as outage:

        def refuse() -> None:
            outage.setitem(connection.settings_dict, "PORT", str(_closed_port()))

        outage.setattr(runner, "model_for_run", lambda r: _OutageModel(real_model(r), hog, refuse, error))
        with pytest.raises(runner.RunLeftRunning) as left:
            runner.run_execute(run_id=str(run.pk))
        hog.stop()
    assert _status(run) == "running"
    # The server accepts connections again: the task's retry, with the claim it left.
    runner.run_execute(run_id=str(run.pk), left_running=left.value.claimed_at)
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("completed", 2), (run.status, run.error_code)
    assert reply_text(run) == "Answered after the outage."
    reasons = list(RunTransition.objects.filter(run=run).order_by("id").values_list("to_status", "reason"))
    assert reasons[-3:-1] == [("queued", "database_unavailable"), ("running", "claimed")]
