"""What an erasure leaves outside the tables' rows: planner statistics, and the receipt says what lingers."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from conversations.models import Message, MessageRole, ThreadSummary
from conversations.services import thread_create
from governance.models import ErasureRequest
from tests.factories import UserFactory
from tests.server import free_port, runserver, served
from tests.usecases.people import person_with_data
from tests.usecases.test_erasure import put_checkpoint
from tests.utils import wait_for
from usecases import erasure_execution
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.erasure_receipts import receipt_readable
from usecases.erasure_statistics import statistics_rebuild
from usecases.tasks import reap_stale_erasures

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
    """The relations (tables, their indexes) whose planner statistics hold any of ``words``:
    as text, or hex-encoded as pg_stats shows a binary column's samples (a checkpoint's blob)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT DISTINCT s.tablename FROM pg_stats s, unnest(%s::text[]) w
               WHERE s.schemaname = 'public' AND (strpos(lower(s::text), lower(w)) > 0
                 OR strpos(s::text, encode(convert_to(w, 'UTF8'), 'hex')) > 0)""",
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

    alice.username, alice.email = "zqvalice.only", "zqvalice.only@example.test"
    alice.save()
    threads = person_with_data(alice, threads=2, marker=MARKER)
    for thread in threads:
        put_checkpoint(thread, f"{MARKER}state")
    with connection.cursor() as cur:
        cur.execute("ANALYZE")  # whatever autovacuum may have sampled before the erasure
    words = [MARKER, "zqvalice", str(threads[0].pk)]
    assert {"conversations_message", "memories_memory", "checkpoint_blobs"} <= set(_stats_holding(words))
    # The checkpoint tables' samples hold the person's words themselves, not only the thread's id.
    assert {"checkpoint_blobs", "checkpoint_writes"} <= set(_stats_holding([MARKER]))

    client = APIClient()
    client.force_authenticate(alice)
    done = client.post("/api/me/erase", {"confirm": True, "delete_account": True}, format="json").json()
    assert done["status"] == "completed"

    assert _stats_holding(words) == []


@pytest.mark.parametrize("catalogue_writable", [True, False], ids=["superuser", "table owner"])
def test_an_emptied_table_keeps_no_statistics_whatever_the_role(alice, catalogue_writable):

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


def test_a_role_that_owns_no_table_leaves_the_statistics_and_the_receipt_says_so_instead_of_clean(alice, compliance):

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

    compliance.is_staff = True  # admin is for staff; the compliance group gives the erasure pages
    compliance.save()
    officer = Client()
    officer.force_login(compliance)
    receipt = ErasureRequest.objects.get(pk=done["id"]).receipt
    page = officer.get(f"/admin/governance/erasurereceipt/{receipt.pk}/readable/").content.decode()
    assert "found nothing of yours left." not in page  # not claimed clean ...
    assert "could not be refreshed" in page and "<code>conversations_message</code>" in page  # ... but said


def _rows_holding(words: list[str]) -> list[str]:
    """The tables with a row holding any of ``words``: in any column, as text, or as UTF-8 in binary columns."""
    lower = [w.lower() for w in words]
    found = []
    with connection.cursor() as cur:
        cur.execute(
            """SELECT table_name, array_agg(column_name::text) FILTER (WHERE data_type = 'bytea')
               FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN
                 (SELECT table_name FROM information_schema.tables
                  WHERE table_schema = 'public' AND table_type = 'BASE TABLE')
               GROUP BY table_name"""
        )
        for table, binary in cur.fetchall():
            binary_hits = "".join(
                f" OR position(convert_to(w, 'UTF8') IN {connection.ops.quote_name(c)}) > 0" for c in binary or []
            )
            cur.execute(
                f"SELECT EXISTS (SELECT 1 FROM {connection.ops.quote_name(table)} AS t, unnest(%s::text[]) AS w"
                f" WHERE strpos(lower(t::text), w) > 0{binary_hits})",
                [lower],
            )
            if cur.fetchone()[0]:
                found.append(table)
    return sorted(found)


@pytest.mark.smoke
@pytest.mark.django_db(transaction=True)
def test_erasing_the_only_person_of_a_fresh_database_leaves_none_of_their_words_in_a_table_statistic_or_log(
    tmp_path, worker
):
    """The issue's test: a person uses the product through ``make run``'s server (searches
    and a turn the worker runs included), then erases themselves; afterwards no table, no
    planner statistic and no line of the server's or the worker's log holds any of their words."""
    import httpx
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    person = UserFactory(username="zqvonly.person", email="zqvonly.person@example.test")
    assert get_user_model().objects.count() == 1  # a fresh database: the only person
    threads = person_with_data(person, threads=2, marker=MARKER)
    for thread in threads:
        put_checkpoint(thread, f"{MARKER}state")
    searched, said = "zqvsearchedword", "zqvlockercode4471"
    words = [MARKER, "zqvonly", searched, said]
    ids = [str(thread.pk) for thread in threads]
    with connection.cursor() as cur:
        cur.execute("ANALYZE")  # what autovacuum samples while they use it
    # The checks below see the words while they are there.
    assert {"conversations_message", "memories_memory", "checkpoint_blobs"} <= set(_rows_holding(words))
    # Statistics: the words in the messages', memories' and checkpoints' samples, the ids in the checkpoints'.
    stats = {"conversations_message", "memories_memory", "checkpoint_blobs", "checkpoint_writes"}
    assert stats <= set(_stats_holding(words))
    assert {"conversations_thread", "checkpoints"} <= set(_rows_holding(ids)) & set(_stats_holding(ids))

    log = tmp_path / "server.log"
    port = free_port()
    with served(runserver(port), port, log) as base:
        auth = {"Authorization": f"Token {Token.objects.create(user=person).key}"}
        for path in (f"/api/search?q={searched}", f"/api/search?q={MARKER}", f"/api/threads/{threads[0].pk}"):
            assert httpx.get(f"{base}{path}", headers=auth, timeout=30).status_code == 200, path
        worker_lines_from = len(worker.log())
        # A conversation of their own through the server, its turn run by the worker (which
        # writes real checkpoints of it).
        chat = httpx.post(f"{base}/api/threads", json={"agent": "assistant"}, headers=auth, timeout=30)
        assert chat.status_code == 201, chat.text
        posted = httpx.post(
            f"{base}/api/threads/{chat.json()['id']}/messages",
            json={"content": f"remember that my locker code is {said}"},
            headers=auth,
            timeout=30,
        )
        assert posted.status_code == 202, posted.text
        run_url = f"{base}{posted.json()['run']['url']}"
        wait_for(
            lambda: httpx.get(run_url, headers=auth, timeout=30).json()["status"] == "completed",
            timeout=120,
            what="the worker to run the turn",
        )
        worker.wait_idle()  # the turn's summary and vectors too
        ids.append(chat.json()["id"])
        assert "conversations_message" in _rows_holding([said])  # what they said is stored
        done = httpx.post(
            f"{base}/api/me/erase", json={"confirm": True, "delete_account": True}, headers=auth, timeout=120
        )
        assert done.status_code == 200 and done.json()["status"] == "completed", done.text

    assert _rows_holding(words + ids) == []
    assert _stats_holding(words + ids) == []
    output = log.read_text()
    # The log keeps ids (a request's path names a thread, which is gone), never words.
    assert "/api/search?… HTTP/1.1" in output and "/api/me/erase" in output, output  # the lines are there ...
    assert not [w for w in words if w.lower() in output.lower()], output  # ... holding none of the words
    worker.wait_idle()
    worked = worker.log()[worker_lines_from:]
    assert "execute_run" in worked and "succeeded" in worked, worked  # the worker's lines are there ...
    assert not [w for w in words if w.lower() in worked.lower()], worked  # ... holding none of the words


class _Killed(BaseException):
    """What a kill -9 looks like from inside: nothing after it runs, no handler catches it."""


def test_a_worker_killed_while_the_statistics_are_rebuilt_leaves_no_receipt_and_a_resumable_erasure(
    alice, compliance, monkeypatch
):

    mine = thread_create(owner=alice)
    Message.objects.bulk_create(
        [Message(thread=mine, sequence=i, role=MessageRole.USER, text=f"{MARKER} {i % 3}") for i in range(1, 60)]
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE conversations_message")
    request = erasure_request_create(subject=alice, requested_by=compliance)

    def killed(**kwargs):
        raise _Killed

    monkeypatch.setattr(erasure_execution, "statistics_rebuild", killed)
    with pytest.raises(_Killed):
        erasure_execute(request_id=request.pk)

    # No receipt claims an erasure whose words are still in the statistics ...
    stopped = ErasureRequest.objects.get(pk=request.pk)
    assert stopped.status == "running" and not hasattr(stopped, "receipt")
    assert _in_pg_stats(MARKER)
    # ... and the reaper finds it, as any erasure a killed worker left.
    monkeypatch.undo()
    assert reap_stale_erasures.run() == {"interrupted": 1}
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed" and done.receipt.body["verification"]["clean"]
    assert not _in_pg_stats(MARKER)
