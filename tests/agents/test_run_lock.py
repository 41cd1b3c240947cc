"""A cancelled or erased run writes nothing more: every tool takes the run's row lock and
finds it still running before it touches anything (a real worker, a slow fake model)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from agents.models import Run
from agents.run_lifecycle import RunNoLongerActive, run_claim
from config.celery import app
from conversations.services import thread_create
from governance.models import ErasureRequest
from memories.models import Memory
from memories.services import memory_remember
from tests.fake_anthropic import delay_reply, text_reply, tool_use_reply
from tests.utils import wait_for
from tests.worker import WorkerProcess
from usecases import turns as run_services
from usecases.turn.registry import get_agent
from usecases.turn.tools import ToolContext, execute

QUEUE = "liamemory-test-runlock"


def _running_run(user) -> Run:
    thread = thread_create(owner=user, title="in flight")
    _, run = run_services.turn_submit(user=user, thread=thread, content="remember my locker is 7781")
    assert run_claim(run_id=str(run.id))
    run.refresh_from_db()
    return run


def _ctx(run: Run, user) -> ToolContext:
    agent = get_agent("assistant")
    return ToolContext(user=user, thread=run.thread, run=run, agent=agent, window_first_sequence=1, memory_allowed=True)


@pytest.mark.django_db
def test_after_a_cancel_no_tool_writes(alice):
    run = _running_run(alice)
    kept = memory_remember(user=alice, content="my bike is blue").memory
    assert execute("recall_facts", {"query": "bike"}, _ctx(run, alice))["ok"]
    run_services.run_cancel(run=run)
    with pytest.raises(RunNoLongerActive):
        execute("remember_fact", {"content": "my locker code is 7781"}, _ctx(run, alice))
    with pytest.raises(RunNoLongerActive):
        execute("forget_fact", {"memory_id": kept.pk}, _ctx(run, alice))
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["my bike is blue"]


@pytest.fixture(scope="module")
def slow_model_worker(django_db_setup, django_db_blocker, fake_anthropic_server, tmp_path_factory):
    """A worker on its own queue whose model is the fake server (the session's worker is offline)."""
    # Without streaming: a streamed reply's step marker happens to check the run too, and
    # the tools must hold on their own.
    env = {
        "LIAMEMORY_FAKE_ANTHROPIC_URL": fake_anthropic_server.url,
        "MEMORY_SUMMARY_ENABLED": "false",
        "STREAM_REPLIES": "false",
    }
    with django_db_blocker.unblock(), override_settings(CELERY_TASK_DEFAULT_QUEUE=QUEUE):
        proc = WorkerProcess(tmp_path_factory.mktemp("runlock") / "worker.log", extra_env=env).start()
    yield proc
    proc.stop()


@pytest.fixture
def on_slow_worker(transactional_db, slow_model_worker, fake_anthropic):
    """Turns go to the slow worker; the run asks for Claude (the fake) since a key is set."""

    previous = app.conf.task_default_queue
    app.conf.task_default_queue = QUEUE
    yield fake_anthropic
    app.conf.task_default_queue = previous
    slow_model_worker.wait_idle()


def _turn_waiting_on_the_model(client: APIClient, fake, tool: dict) -> str:
    fake.script(delay_reply(2.5, tool), text_reply("Done."))
    thread = client.post("/api/threads", {"title": "slow"}, format="json").json()
    posted = client.post(f"/api/threads/{thread['id']}/messages", {"content": "please"}, format="json")
    assert posted.status_code == 202, posted.content
    wait_for(lambda: fake.message_requests(), timeout=30, what="the worker's model call")
    return posted.json()["run"]["id"]


@pytest.mark.worker
@pytest.mark.parametrize("tool", ["remember", "forget"])
def test_a_cancel_while_the_model_thinks_stops_its_tool_calls(alice, on_slow_worker, slow_model_worker, tool):
    client = APIClient()
    client.force_authenticate(alice)
    kept = memory_remember(user=alice, content="my bike is blue").memory
    call = (
        tool_use_reply("remember_fact", {"content": "my locker code is 7781"})
        if tool == "remember"
        else tool_use_reply("forget_fact", {"memory_id": kept.pk})
    )
    run_id = _turn_waiting_on_the_model(client, on_slow_worker, call)
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200

    slow_model_worker.wait_idle(timeout=30)
    wait_for(lambda: f"run {run_id}" in slow_model_worker.log(), timeout=10, what="the worker's last word on the run")
    assert Run.objects.get(pk=run_id).status == "cancelled"
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["my bike is blue"]


@pytest.mark.worker
def test_an_erasure_while_the_model_thinks_completes_and_no_late_memory_survives(
    alice, on_slow_worker, slow_model_worker
):
    client = APIClient()
    client.force_authenticate(alice)
    _turn_waiting_on_the_model(client, on_slow_worker, tool_use_reply("remember_fact", {"content": "locker 7781"}))

    erased = client.post("/api/me/erase", {"confirm": True}, format="json")
    assert erased.status_code == 200, erased.content
    assert erased.json()["status"] == "completed"
    assert ErasureRequest.objects.get().receipt is not None

    slow_model_worker.wait_idle(timeout=30)
    assert not Memory.objects.filter(user=alice).exists()
    assert not Run.objects.filter(user=alice).exists()
