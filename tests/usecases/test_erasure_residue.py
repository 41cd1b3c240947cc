"""What an erasure leaves outside the tables' rows: planner statistics, and the receipt says what lingers."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.test import APIClient

from conversations.models import Message, MessageRole
from conversations.services import thread_create
from governance.models import ErasureRequest

pytestmark = pytest.mark.django_db

MARKER = "zqvmarkerword"


def _in_pg_stats(text: str) -> bool:
    with connection.cursor() as cur:
        cur.execute(
            """SELECT count(*) FROM pg_stats WHERE tablename = 'conversations_message'
               AND (most_common_vals::text LIKE %s OR histogram_bounds::text LIKE %s)""",
            [f"%{text}%", f"%{text}%"],
        )
        return cur.fetchone()[0] > 0


def test_an_erasure_leaves_no_text_in_the_planner_statistics_and_says_what_lingers(alice, bob):
    mine, theirs = thread_create(owner=alice), thread_create(owner=bob)
    Message.objects.bulk_create(
        [Message(thread=mine, sequence=i, role=MessageRole.USER, text=f"{MARKER} {i % 3}") for i in range(1, 60)]
        + [Message(thread=theirs, sequence=i, role=MessageRole.USER, text=f"other words {i}") for i in range(1, 5)]
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE conversations_message")
    assert _in_pg_stats(MARKER)  # what ANALYZE sampled, readable by anyone with pg_stats

    client = APIClient()
    client.force_authenticate(alice)
    done = client.post("/api/me/erase", {"confirm": True}, format="json").json()
    assert done["status"] == "completed"

    assert not _in_pg_stats(MARKER)
    receipt = ErasureRequest.objects.get(pk=done["id"]).receipt.body
    stores = {entry["store"]: entry for entry in receipt["outside_database"]}
    assert "database statistics" in stores and "refreshed" in stores["database statistics"]["lingers"]
    assert "deleted row versions" in stores


def _stats_holding(words: list[str]) -> list[str]:
    """The relations (tables, their indexes) whose planner statistics hold any of ``words``."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT DISTINCT s.tablename FROM pg_stats s, unnest(%s::text[]) w
               WHERE s.schemaname = 'public' AND strpos(lower(s::text), lower(w)) > 0""",
            [words],
        )
        found = [row[0] for row in cur.fetchall()]
        cur.execute(
            """SELECT count(*) FROM pg_statistic_ext_data d, unnest(%s::text[]) w
               WHERE strpos(lower(d::text), lower(w)) > 0""",
            [words],
        )
        if cur.fetchone()[0]:
            found.append("pg_statistic_ext_data")
    return sorted(found)


def test_erasing_the_only_person_leaves_none_of_their_words_in_any_statistic(alice):
    from tests.usecases.people import person_with_data
    from tests.usecases.test_erasure import put_checkpoint

    alice.username, alice.email = "zqvalice.only", "zqvalice.only@example.test"
    alice.save()
    threads = person_with_data(alice, threads=2, marker=MARKER)
    for thread in threads:
        put_checkpoint(thread, f"{MARKER}state")
    with connection.cursor() as cur:
        cur.execute("ANALYZE")  # whatever autovacuum may have sampled before the erasure
    words = [MARKER, "zqvalice", str(threads[0].pk)]
    assert {"conversations_message", "memories_memory", "checkpoint_blobs"} <= set(_stats_holding(words))

    client = APIClient()
    client.force_authenticate(alice)
    done = client.post("/api/me/erase", {"confirm": True, "delete_account": True}, format="json").json()
    assert done["status"] == "completed"

    assert _stats_holding(words) == []


@pytest.mark.parametrize("catalogue_writable", [True, False], ids=["superuser", "table owner"])
def test_an_emptied_table_keeps_no_statistics_whatever_the_role(alice, catalogue_writable):
    from conversations.models import ThreadSummary
    from usecases.erasure_statistics import statistics_rebuild

    table, mine = ThreadSummary._meta.db_table, thread_create(owner=alice)
    ThreadSummary.objects.bulk_create(
        [ThreadSummary(thread=mine, version=i, text=f"{MARKER} {i % 3}", covers_through=i) for i in range(1, 60)]
    )
    with connection.cursor() as cur:
        cur.execute(f"ANALYZE {table}")
    ThreadSummary.objects.all().delete()
    with connection.cursor() as cur:
        # As after the erasure's commit: no deferred constraint check is pending.
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute(f"ANALYZE {table}")
    assert table in _stats_holding([MARKER])  # what ANALYZE of an empty table keeps

    done = statistics_rebuild(tables=[table], catalogue_writable=catalogue_writable)

    assert done == {"analysed": 1, "emptied": 1, "skipped": 0}
    assert table not in _stats_holding([MARKER])


def test_a_role_that_owns_no_table_leaves_the_statistics_and_the_receipt_says_so_instead_of_clean(alice):
    from usecases.erasure_receipts import receipt_readable

    mine = thread_create(owner=alice)
    Message.objects.bulk_create(
        [Message(thread=mine, sequence=i, role=MessageRole.USER, text=f"{MARKER} {i % 3}") for i in range(1, 60)]
    )
    role = f"lm_not_owner_{connection.settings_dict['NAME']}"[:63]
    with connection.cursor() as cur:
        cur.execute("ANALYZE conversations_message")
        # The service's role as many deployments have it: every right on the rows, owner of
        # nothing, no superuser. Roles and grants are rolled back with the test.
        cur.execute(f'CREATE ROLE "{role}"')
        cur.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        cur.execute(f'GRANT ALL ON ALL TABLES IN SCHEMA public TO "{role}"')
        cur.execute(f'GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
        cur.execute(f'SET LOCAL ROLE "{role}"')
    client = APIClient()
    client.force_authenticate(alice)
    try:
        done = client.post("/api/me/erase", {"confirm": True}, format="json").json()
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
    assert done["status"] == "completed"

    assert _in_pg_stats(MARKER)  # ANALYZE skipped the table: its samples stay ...
    body = ErasureRequest.objects.get(pk=done["id"]).receipt.body
    assert "conversations_message" in body["verification"]["statistics_not_rebuilt"]  # ... and the receipt says so
    statistics = next(e for e in body["outside_database"] if e["store"] == "database statistics")
    assert "NOT refreshed" in statistics["holds"] and "conversations_message" in statistics["holds"]
    assert body["verification"]["clean"] and not receipt_readable(body)["clean"]
