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
