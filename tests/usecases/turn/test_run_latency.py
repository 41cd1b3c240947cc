"""A run's latency is the run's own duration, from its claim to its end (it said 0 on
runs that took a second: the offline model reports no time of its own)."""

from __future__ import annotations

import pytest

from conversations.services import thread_create
from tests.usecases.turn.helpers import run_turn

pytestmark = pytest.mark.django_db


def test_a_run_s_latency_is_its_duration(alice):
    run = run_turn(alice, thread_create(owner=alice), "hello, what can you do?")

    assert run.status == "completed"
    took = int((run.finished_at - run.started_at).total_seconds() * 1000)
    assert took > 0
    assert run.latency_ms == took
