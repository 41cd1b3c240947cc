"""A run's latency is the run's own duration, from its claim to its end (it said 0 on
runs that took a second: the offline model reports no time of its own), and what it reads
before its context is one statement."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.models import TraceEvent
from conversations.services import thread_create
from liamemory import embeddings, task_sending
from memories.models import MemoryPreference
from tests.usecases.turn.helpers import run_turn
from usecases.turn import runner
from usecases.turns import turn_submit

pytestmark = pytest.mark.django_db


def test_a_run_s_latency_is_its_duration(alice):
    run = run_turn(alice, thread_create(owner=alice), "hello, what can you do?")

    assert run.status == "completed"
    took = int((run.finished_at - run.started_at).total_seconds() * 1000)
    assert took > 0
    assert run.latency_ms == took


@pytest.mark.parametrize("switched_off", [False, True])
def test_a_turn_reads_its_run_and_the_person_s_memory_switch_in_one_statement(
    alice, django_assert_num_queries, switched_off
):
    if switched_off:
        MemoryPreference.objects.create(user=alice, long_term_enabled=False)
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="what do you know about me?")

    with django_assert_num_queries(1):
        runtime = runner._runtime(str(run.pk))

    assert runtime.request_message.text == "what do you know about me?"
    assert runtime.memory_allowed is not switched_off


@pytest.mark.django_db(transaction=True)  # autocommit, as in the worker: no test transaction around it
def test_the_context_s_trace_events_are_one_statement(alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="what do you know about me?")

    with CaptureQueriesContext(connection) as statements:
        runner.run_execute(run_id=str(run.pk))

    names = list(TraceEvent.objects.filter(run=run).order_by("id").values_list("name", flat=True))
    assert names[:2] == ["memories", "build_context"]  # what the run's page lists, in order
    sql = [q["sql"] for q in statements.captured_queries]
    context_writes = [i for i, q in enumerate(sql) if "build_context" in q]
    assert len(context_writes) == 1 and "memories" in sql[context_writes[0]]
    (i,) = context_writes
    assert sql[i + 1] != "COMMIT" and sql[i - 1] != "BEGIN"  # it commits by itself: one round trip


def test_a_tool_that_only_reads_takes_no_lock_on_the_run(alice):
    thread = thread_create(owner=alice)
    for text in ("I like trains.", "Nice weather today."):
        _, run = turn_submit(user=alice, thread=thread, content=text)
        runner.run_execute(run_id=str(run.pk))
    _, run = turn_submit(user=alice, thread=thread, content="what did I say about planes?")

    with CaptureQueriesContext(connection) as statements:
        runner.run_execute(run_id=str(run.pk))

    assert TraceEvent.objects.filter(run=run, name="search_history").exists()  # the offline model searched
    locks = [q["sql"] for q in statements.captured_queries if "FOR UPDATE" in q["sql"] and "agents_run" in q["sql"]]
    assert len(locks) == 1  # the turn's one write (``writes.turn_complete``), not the search


def test_a_posted_turn_sends_its_run_s_task_before_its_message_s_vector_task(
    alice, monkeypatch, django_capture_on_commit_callbacks
):
    """Issue #25: the worker waits for the run's task, only a later search for the vector, so a
    turn's publish does not queue behind its message's (and in an outage the line keeps that order)."""
    sent: list[str] = []
    monkeypatch.setattr(task_sending, "task_send", lambda task, *args: sent.append(task.name))
    monkeypatch.setattr(embeddings, "enabled", lambda: True)
    thread = thread_create(owner=alice)

    with django_capture_on_commit_callbacks(execute=True):
        turn_submit(user=alice, thread=thread, content="my train leaves at 7:40 from platform 3")

    assert sent == ["agents.execute_run", "conversations.embed_messages"]
