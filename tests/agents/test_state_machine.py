"""The run's states: the transitions table, the one move, and the life it leaves behind."""

from __future__ import annotations

import pytest
from django.db import connection

from agents import run_lifecycle
from agents.models import Run, RunStatus, RunTransition
from agents.state_machine import (
    FINISHED,
    RETRYABLE,
    TRANSITIONS,
    UNFINISHED,
    WORKING,
    run_move,
    runs_move,
    sources_of,
)
from conversations.services import thread_create
from tests.factories import RunFactory
from usecases import turns


def _life(run: Run) -> list[tuple[str, str, str]]:
    return list(RunTransition.objects.filter(run=run).order_by("id").values_list("from_status", "to_status", "reason"))


def test_every_status_is_in_the_table_and_the_named_sets_agree():
    assert set(TRANSITIONS) == set(RunStatus)
    assert {RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED} == FINISHED
    assert set(RunStatus) - FINISHED == UNFINISHED
    assert WORKING < UNFINISHED and RETRYABLE < FINISHED
    # The database's one-run-per-thread index is the working set.
    constraint = next(c for c in Run._meta.constraints if c.name == "run_one_active_per_thread")
    assert set(dict(constraint.condition.children)["status__in"]) == WORKING
    assert sources_of(RunStatus.CANCELLED) == UNFINISHED


@pytest.mark.django_db
def test_a_turn_leaves_its_life_as_rows(alice):
    thread = thread_create(owner=alice)
    _, run = turns.turn_submit(user=alice, thread=thread, content="hello")
    assert run_lifecycle.run_claim(run_id=run.pk)
    assert not run_lifecycle.run_claim(run_id=run.pk)  # a redelivered task does nothing twice
    run_lifecycle.run_fail(run_id=run.pk, code="timeout", message="slow")
    retry = turns.run_retry(run=Run.objects.get(pk=run.pk))
    turns.run_cancel(run=retry)

    assert _life(run) == [
        ("", "queued", "submitted"),
        ("queued", "running", "claimed"),
        ("running", "failed", "timeout"),
    ]
    assert _life(retry) == [("", "queued", "retry"), ("queued", "cancelled", "cancelled")]
    assert Run.objects.get(pk=run.pk).status == RunStatus.FAILED


@pytest.mark.django_db
def test_a_move_the_table_does_not_allow_changes_nothing(alice):
    run = RunFactory(thread=thread_create(owner=alice), status=RunStatus.COMPLETED)
    assert run_move(run_id=run.pk, to=RunStatus.RUNNING) is None
    assert run_move(run_id=run.pk, to=RunStatus.CANCELLED) is None
    assert Run.objects.get(pk=run.pk).status == RunStatus.COMPLETED
    assert not RunTransition.objects.filter(run=run).exists()
    with pytest.raises(ValueError):
        run_move(run_id=run.pk, to=RunStatus.COMPLETED, only_from=frozenset({RunStatus.QUEUED}))


@pytest.mark.django_db
def test_moving_many_runs_moves_only_those_allowed_and_says_where_each_came_from(alice, bob):
    queued = RunFactory(thread=thread_create(owner=alice), status=RunStatus.QUEUED)
    waiting = RunFactory(thread=thread_create(owner=alice), status=RunStatus.INTERRUPTED)
    done = RunFactory(thread=thread_create(owner=alice), status=RunStatus.COMPLETED)
    bobs = RunFactory(thread=thread_create(owner=bob), status=RunStatus.QUEUED)

    moved = runs_move(Run.objects.filter(user=alice), to=RunStatus.CANCELLED, reason="erasure")

    assert sorted(moved) == sorted([(queued.pk, RunStatus.QUEUED), (waiting.pk, RunStatus.INTERRUPTED)])
    assert Run.objects.get(pk=done.pk).status == RunStatus.COMPLETED
    assert Run.objects.get(pk=bobs.pk).status == RunStatus.QUEUED
    assert _life(waiting) == [("interrupted", "cancelled", "erasure")]
    assert not RunTransition.objects.filter(run__in=[done, bobs]).exists()


@pytest.mark.django_db(transaction=True)
def test_a_move_notifies_the_followers_at_commit(alice):
    run = RunFactory(thread=thread_create(owner=alice), status=RunStatus.QUEUED)
    with connection.cursor() as cursor:
        cursor.execute(f"LISTEN {run_lifecycle.RUN_EVENTS_CHANNEL}")
    run_move(run_id=run.pk, to=RunStatus.RUNNING)
    connection.connection.execute("SELECT 1")
    notices = [n.payload for n in connection.connection.notifies(timeout=10, stop_after=1)]
    assert notices == [str(run.pk)]


@pytest.mark.django_db
def test_a_claim_left_running_goes_back_to_the_queue_only_while_it_is_still_that_claim(alice):
    """``run_requeue_claim``: the retry of a task whose requeue failed in an outage gives back
    its own claim, never one the reaper handed to another worker meanwhile."""
    thread = thread_create(owner=alice)
    _, run = turns.turn_submit(user=alice, thread=thread, content="hello")
    first = run_lifecycle.run_claim(run_id=run.pk)
    run_lifecycle.run_stream_append(run_id=run.pk, text="half a rep")
    assert first is not None and Run.objects.get(pk=run.pk).started_at == first

    assert run_lifecycle.run_requeue_claim(run_id=run.pk, started_at=first)
    back = Run.objects.get(pk=run.pk)
    assert (back.status, back.started_at, back.partial_text) == (RunStatus.QUEUED, None, "")
    assert not run_lifecycle.run_requeue_claim(run_id=run.pk, started_at=first)  # queued: nothing to give back

    second = run_lifecycle.run_claim(run_id=run.pk)  # another worker's claim
    assert second is not None and second != first
    assert not run_lifecycle.run_requeue_claim(run_id=run.pk, started_at=first)
    assert Run.objects.get(pk=run.pk).status == RunStatus.RUNNING
    assert _life(run)[1:] == [
        ("queued", "running", "claimed"),
        ("running", "queued", "database_unavailable"),
        ("queued", "running", "claimed"),
    ]
