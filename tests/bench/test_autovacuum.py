"""The benchmarks' stand-in for autovacuum refreshes statistics as the server's own would."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from bench.autovacuum import Autovacuum, dsn
from conversations.models import Message
from tests.factories import ThreadFactory


def _last_analyze(table: str):
    with connection.cursor() as cur:
        cur.execute("SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = %s", [table])
        return cur.fetchone()


@pytest.mark.django_db(transaction=True)
def test_a_table_written_past_autovacuums_threshold_is_analyzed_once():
    thread = ThreadFactory()
    Message.objects.bulk_create(
        Message(thread=thread, sequence=i, role="user", content=[{"type": "text", "text": f"m{i}"}])
        for i in range(1, 201)
    )
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_force_next_flush()")
    time.sleep(1.5)  # the server's statistics collector sees the rows

    done = Autovacuum(dsn()).run_once()

    with connection.cursor() as cur:
        cur.execute("SHOW autovacuum")
        server_runs_it = cur.fetchone()[0] == "on"
    if server_runs_it:
        assert done == []  # the server's own autovacuum does it
        return
    assert "analyze conversations_message" in done
    assert _last_analyze("conversations_message")[0] is not None
    # Nothing written since: the next pass leaves it, as autovacuum would.
    assert "analyze conversations_message" not in Autovacuum(dsn()).run_once()
