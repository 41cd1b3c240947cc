"""Erasure and purge at size, while another user's turns keep being served.

Generates, in SQL, a person with 10,000 messages (10 threads) and 500 memories, and
100,000 expired rows (1,000 expired threads of 99 messages each) of another user. With
the product running as deployed (``bench/stack.py``: gunicorn + a Celery worker with 2
children on Redis), one HTTP client chats throughout; the erasure request goes to the
worker (``erasure_enqueue``, the real task: cancel, batched deletes, schema-wide scan,
receipt), then the purge (task ``governance.purge_expired``). Reports each one's time
(the request's started → finished; the purge record's) and the chatting user's turn
latency before, during the erasure and during the purge.

    .venv/bin/python -m bench.erasure            # 10,000 messages + 500 memories; 100,000 expired rows
    .venv/bin/python -m bench.erasure --quick    # 2,000 + 100; 10,000
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import threading
import time
import uuid
from typing import Any

from bench import scale_data
from bench.common import percentile, write_result
from bench.scale_data import _words_sql
from bench.stack import ChatClient, Stack, client_tokens
from governance.models import ErasureRequest, ErasureStatus, PurgeRecord
from liamemory.roles import COMPLIANCE_GROUP
from usecases import erasure_scan as sel
from usecases.erasure import erasure_enqueue, erasure_request_create
from usecases.tasks import purge_expired

SUBJECT = "bench-erasure-subject"
PURGE_OWNER = "bench-purge-owner"
OFFICER = "bench-compliance"
BASELINE_SECONDS = 8
# How long the benchmark waits for the erasure (it keeps the whole run under ~10 minutes).
ERASURE_WAIT = 300
LARGEST_TABLES = ("conversations_message", "agents_traceevent", "checkpoint_writes", "checkpoint_blobs")


def _words(seed: str) -> str:

    return _words_sql(seed, 14)


def _drop_user(username: str) -> None:
    """Remove a previous run's generated user; their messages and memories go in SQL (the
    ORM would load them all, and its delete would leave an audit row with each memory's
    text: every run would add 500 other people's rows to what the next erasure reads)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return
    with connection.cursor() as cur:
        cur.execute(
            "DELETE FROM conversations_message WHERE thread_id IN "
            "(SELECT id FROM conversations_thread WHERE owner_id = %s)",
            [user.pk],
        )
        cur.execute("DELETE FROM memories_historicalmemory WHERE user_id = %s", [user.pk])
        cur.execute("UPDATE memories_memory SET superseded_by_id = NULL WHERE user_id = %s", [user.pk])
        # Their vectors go by the database's cascade.
        cur.execute("DELETE FROM memories_memory WHERE user_id = %s", [user.pk])
    user.delete()


def make_subject(messages: int, memories: int):
    from django.contrib.auth import get_user_model
    from django.db import connection

    user_model = get_user_model()
    _drop_user(SUBJECT)
    subject = user_model.objects.create(username=SUBJECT, email="erasure.subject@example.com")
    threads = 10
    per_thread = messages // threads
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO conversations_thread (id, owner_id, title, agent, incognito, created_at, last_activity_at, "
            "tokens_sent, tokens_full_resend, next_sequence, history_tokens, summary_claim) "
            "SELECT gen_random_uuid(), %s, 'chat ' || t, 'assistant', false, now(), now(), 0, 0, %s, 0, '' "
            "FROM generate_series(1, %s) t",
            [subject.pk, per_thread + 1, threads],
        )
        cur.execute(
            "INSERT INTO conversations_message (thread_id, sequence, role, content, text, agent, token_estimate, "
            "created_at) SELECT th.id, q, CASE WHEN mod(q, 2) = 1 THEN 'user' ELSE 'assistant' END, "
            "jsonb_build_array(jsonb_build_object('type', 'text', 'text', x.txt)), x.txt, '', 30, now() "
            "FROM conversations_thread th CROSS JOIN generate_series(1, %s) q "
            # Each message carries a reference code, as real chats do (order numbers, tickets):
            # the erasure samples such distinctive strings and scans the schema for them.
            f"CROSS JOIN LATERAL (SELECT {_words('q + hashtext(th.id::text)')} "
            "|| ' ref ORD-' || upper(substr(md5(th.id::text || q), 1, 8)) AS txt) x "
            "WHERE th.owner_id = %s",
            [per_thread, subject.pk],
        )
        cur.execute(
            "INSERT INTO memories_memory (user_id, kind, content, importance, status, source_expired, writer_type, "
            "writer_name, created_at, updated_at) "
            f"SELECT %s, 'fact', 'fact ' || m || ': ' || {_words('m')}, 3, "
            "CASE WHEN m <= 20 THEN 'active' ELSE 'superseded' END, false, 'agent', 'assistant', now(), now() "
            "FROM generate_series(1, %s) m",
            [subject.pk, memories],
        )
    return subject


def make_expired(rows: int) -> int:
    """Expired threads of 99 messages each, ``rows`` rows in all (threads + messages)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    user_model = get_user_model()
    _drop_user(PURGE_OWNER)
    owner = user_model.objects.create(username=PURGE_OWNER)
    threads = rows // 100
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO conversations_thread (id, owner_id, title, agent, incognito, created_at, last_activity_at, "
            "expires_at, tokens_sent, tokens_full_resend, next_sequence, history_tokens, summary_claim) "
            "SELECT gen_random_uuid(), %s, '', 'assistant', false, now() - interval '60 days', "
            "now() - interval '60 days', now() - interval '1 day', 0, 0, 100, 0, '' FROM generate_series(1, %s) t",
            [owner.pk, threads],
        )
        cur.execute(
            "INSERT INTO conversations_message (thread_id, sequence, role, content, text, agent, token_estimate, "
            "created_at) SELECT th.id, q, CASE WHEN mod(q, 2) = 1 THEN 'user' ELSE 'assistant' END, "
            "jsonb_build_array(jsonb_build_object('type', 'text', 'text', x.txt)), x.txt, '', 30, now() "
            "FROM conversations_thread th CROSS JOIN generate_series(1, 99) q "
            f"CROSS JOIN LATERAL (SELECT {_words('q + hashtext(th.id::text)')} AS txt) x "
            "WHERE th.owner_id = %s",
            [owner.pk],
        )
    return threads * 100


SCAN_NEEDLES = 50


def _strpos_scan(user_id: int, needles: list[str], uuids: list[str]) -> None:
    """The scan as it was before (kept here only to time it side by side): every row of
    every table, one ``strpos`` per string per cell, each re-reading (casting, lower-casing)
    the cell."""
    from django.db import connection

    qn = connection.ops.quote_name
    params: dict[str, Any] = {
        "lower": [n.lower() for n in needles],
        "bytes": [n.encode() for n in needles],
        "uuids": uuids,
    }
    for table, columns in sel._catalogue().items():
        conds = []
        for column, data_type in columns:
            col = qn(column)
            if data_type in sel._TEXT_TYPES:
                cast = f"{col}::text" if data_type in {"json", "jsonb"} else col
                conds.append(f"EXISTS (SELECT 1 FROM unnest(%(lower)s::text[]) n WHERE strpos(lower({cast}), n) > 0)")
            elif data_type == "bytea":
                conds.append(f"EXISTS (SELECT 1 FROM unnest(%(bytes)s::bytea[]) n WHERE position(n IN {col}) > 0)")
            elif data_type == "uuid":
                conds.append(f"{col} = ANY(%(uuids)s::uuid[])")
        if conds:
            selects = ", ".join(f"count(*) FILTER (WHERE {c})" for c in conds)
            with connection.cursor() as cur:
                cur.execute(f"SELECT {selects} FROM {qn(table)}", params)


def time_scans(user_id: int) -> dict[str, float]:
    """The verification scan alone, before and after, on the same data in the same run."""

    def needles(n: int) -> list[str]:
        return [f"ORD-{secrets.token_hex(6).upper()}-{i:04d}" for i in range(n)]

    uuids = [str(uuid.uuid4()) for _ in range(10)]
    out = {}

    def timed(label: str, fn) -> None:
        started = time.monotonic()
        fn()
        out[label] = round(time.monotonic() - started, 2)

    timed(f"before_{SCAN_NEEDLES}_strings", lambda: _strpos_scan(user_id, needles(SCAN_NEEDLES), uuids))
    for n in (SCAN_NEEDLES, sel.MAX_CANARIES):
        timed(f"after_{n}_strings", lambda n=n: sel.schema_scan(user_id=user_id, strings=needles(n), uuids=uuids))
    scoped, sel.CHECKPOINT_TABLES = sel.CHECKPOINT_TABLES, ()
    try:  # what scoping the checkpoint tables to the person's threads saves
        timed(
            f"after_{sel.MAX_CANARIES}_strings_checkpoints_unscoped",
            lambda: sel.schema_scan(user_id=user_id, strings=needles(sel.MAX_CANARIES), uuids=uuids),
        )
    finally:
        sel.CHECKPOINT_TABLES = scoped
    return out


def officer():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user, _ = get_user_model().objects.get_or_create(username=OFFICER)
    user.groups.add(Group.objects.get_or_create(name=COMPLIANCE_GROUP)[0])
    return user


class Chatter(threading.Thread):
    """The other user: chats over HTTP all along, recording (finished at, latency, status)."""

    def __init__(self, client) -> None:
        super().__init__(daemon=True)
        self.client, self.running = client, True
        self.turns: list[tuple[float, float, int]] = []

    def run(self) -> None:
        while self.running:
            t = self.client.turn()
            self.turns.append((time.monotonic(), t.latency_s * 1000, t.status))

    def between(self, start: float, end: float) -> dict:
        lat = [ms for at, ms, status in self.turns if start <= at <= end and status == "completed"]
        failed = sum(1 for at, _, status in self.turns if start <= at <= end and status != "completed")
        if not lat:
            return {"turns": 0, "failed": failed}
        return {
            "turns": len(lat),
            "failed": failed,
            "median_ms": round(statistics.median(lat), 1),
            "p95_ms": round(percentile(lat, 95), 1),
            "max_ms": round(max(lat), 1),
        }


def _wait(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    n_messages, n_memories, n_expired = (2_000, 100, 10_000) if args.quick else (10_000, 500, 100_000)
    started = time.monotonic()
    _drop_user(PURGE_OWNER)  # a previous run's expired rows, if its purge did not happen
    subject = make_subject(n_messages, n_memories)
    print(f"generated {n_messages:,} messages + {n_memories} memories in {time.monotonic() - started:.0f} s")
    token = client_tokens(1)[0]
    # The verification scan reads every row of the public schema: its size matters.
    tables = scale_data.row_counts(*LARGEST_TABLES)
    print(f"rows in the public schema's largest tables: {tables}")

    stack = Stack().start()
    try:
        chatter = Chatter(ChatClient(stack.url, token, 0))
        chatter.start()
        time.sleep(BASELINE_SECONDS)
        t0 = time.monotonic()
        request = erasure_request_create(subject=subject, requested_by=officer(), reason="benchmark")
        erasure_enqueue(request=request)
        finished = _wait(
            lambda: ErasureRequest.objects.filter(pk=request.pk, status=ErasureStatus.COMPLETED).exists(), ERASURE_WAIT
        )
        t1 = time.monotonic()
        request.refresh_from_db()
        erase_s = (
            (request.finished_at - request.started_at).total_seconds()
            if finished and request.finished_at and request.started_at
            else None
        )
        scans = time_scans(subject.pk)

        started = time.monotonic()
        expired = make_expired(n_expired)
        print(f"generated {expired:,} expired rows in {time.monotonic() - started:.0f} s")
        last = PurgeRecord.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        t2 = time.monotonic()
        purge_expired.delay()
        _wait(lambda: PurgeRecord.objects.filter(pk__gt=last, finished_at__isnull=False).exists(), 480)
        t3 = time.monotonic()
        record = PurgeRecord.objects.filter(pk__gt=last).order_by("pk").first()
        purge_s = (record.finished_at - record.started_at).total_seconds() if record and record.finished_at else None
        time.sleep(2)
        chatter.running = False
        chatter.join(70)
    finally:
        stack.stop()
    result = {
        "quick": args.quick,
        "erasure": {
            "messages": n_messages,
            "memories": n_memories,
            "seconds": erase_s,
            "status": request.status,
            "executed_counts": request.executed_counts,
            "target_met": erase_s is not None and erase_s <= 5 and n_messages == 10_000,
            "verification_scan_alone_seconds": scans,
        },
        "public_table_rows": tables,
        "purge": {"expired_rows": expired, "seconds": purge_s, "counts": record.counts if record else None},
        "other_user_turns": {
            "before": chatter.between(t0 - BASELINE_SECONDS, t0),
            "during_erasure": chatter.between(t0, t1),
            "during_purge": chatter.between(t2, t3),
        },
    }
    o = result["other_user_turns"]
    erase_txt = f"{erase_s:.2f} s" if erase_s is not None else f"not finished in {ERASURE_WAIT} s"
    print(
        f"erasure of {n_messages:,} messages + {n_memories} memories: {erase_txt} ({request.status}; target <= 5 s "
        f"for 10,000 + 500: {'met' if result['erasure']['target_met'] else 'NOT met'})"
    )
    print(f"  the schema-wide verification scan alone (seconds): {scans}")
    print(f"purge of {expired:,} expired rows: {purge_s} s; counts {result['purge']['counts']}")
    for label, r in o.items():
        print(f"  other user's turns {label}: {r}")
    write_result("erasure", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
