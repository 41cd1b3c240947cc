"""Retrieval latency: memory recall for one user and history search in one thread.

Calls the public functions of ``conversations/search.py`` (``search_memories``,
``search_history``) against generated tables of 10,000 and 1,000,000 rows (all users
together; the searched user owns 20 active memories, the searched thread has 2,000
messages), with the product's indexes and then, inside a transaction that is rolled
back, without them. For each case it prints median and p95 and which indexes the
ranking statement's plan uses (``EXPLAIN``). Every timed call starts with the product's query-vector cache
emptied (a user's next question is new); memory recall is also timed with it warm.
Data sets are generated in SQL and reused (``bench/scale_data.py``).

    .venv/bin/python -m bench.latency            # 10k and 1M rows
    .venv/bin/python -m bench.latency --quick    # 10k and 100k rows, fewer samples
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from bench import scale_data
from bench.common import fmt, timed, write_result
from conversations import search as retrieval
from conversations.models import Message, Thread
from liamemory import embeddings
from memories import recall as memory_recall

MEMORY_QUERIES = [
    "what do you know about my allergy?",
    "which bank holds my mortgage?",
    "my favourite coffee and tea",
    "where is the concert on saturday",
    "the lawyer for the contract",
    "vegetarian recipe with lemon",
]
HISTORY_QUERIES = [
    "what did I say about the refund for the laptop?",
    "the dentist appointment on friday morning",
    "flight to berlin and the hotel booking",
    "insurance for the car",
    "guitar lessons with my daughter",
    "the warranty of the printer",
]
SEARCHED_THREAD = 2_000
TABLE = {"memories": "memories_memory", "history": "conversations_message"}


def _code_version() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
        return head.stdout.strip()
    except OSError:
        return "unknown"


def _indexes(table: str) -> list[str]:
    """The table's secondary indexes on the current search_path (not the primary key)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
            "WHERE x.indrelid = %s::regclass AND NOT x.indisprimary",
            [table],
        )
        return [r[0] for r in cur.fetchall()]


def _drop_indexes(table: str) -> list[str]:
    from django.db import connection

    names = _indexes(table)
    with connection.cursor() as cur:
        cur.execute("SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'u'", [table])
        for (constraint,) in cur.fetchall():
            cur.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{constraint}"')
        for name in _indexes(table):
            cur.execute(f'DROP INDEX "{name}"')
    return names


def _plan(fn) -> tuple[list[str], str]:
    """Run ``fn`` capturing its SQL; EXPLAIN the slowest statement; the indexes its plan names."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    statement = max(captured.captured_queries, key=lambda q: len(q["sql"]))["sql"]  # the ranking statement
    with connection.cursor() as cur:
        cur.execute("EXPLAIN " + statement)
        plan = "\n".join(r[0] for r in cur.fetchall())
    used = sorted(
        set(re.findall(r"Index (?:Only )?Scan (?:Backward )?using (\w+)", plan))
        | set(re.findall(r"Bitmap Index Scan on (\w+)", plan))
    )
    return used, plan


def forget_query_vectors() -> None:
    """Empty the product's per-process cache of query vectors, if it has one.

    The benchmark repeats a few questions; a real user's next question is new, and its
    vector must be computed. Every timed call therefore starts with an empty cache.
    """
    cached = getattr(embeddings, "_query_cached", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()


def _cycle(search, queries: list[str], cold: bool = True):
    """A no-argument call that runs ``search`` on the next query each time."""
    position = iter(range(10**9))

    def call():
        if cold:
            forget_query_vectors()
        return search(queries[next(position) % len(queries)])

    return call


def measure(kind: str, call, repeat: int, slow_repeat: int) -> dict:
    from django.db import transaction

    out: dict[str, object] = {}
    used, plan = _plan(call)
    out["indexed"] = {**timed(call, repeat=repeat, max_seconds=30), "indexes_used": used}
    with transaction.atomic():
        dropped = _drop_indexes(TABLE[kind])
        used_no, plan_no = _plan(call)
        out["no_index"] = {
            **timed(call, repeat=slow_repeat, warmup=1, max_seconds=30),
            "indexes_used": used_no,
            "dropped": dropped,
        }
        transaction.set_rollback(True)  # the indexes come back
    out["plan_indexed"], out["plan_no_index"] = plan, plan_no
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    sizes = (10_000, 100_000) if args.quick else (10_000, 1_000_000)
    repeat, slow_repeat = (40, 5) if args.quick else (200, 15)
    results = {"code": _code_version(), "quick": args.quick}
    user = scale_data.scale_user()
    for rows in sizes:
        spec = scale_data.Spec(
            f"bench_r{rows // 1000}k",
            main_threads=(SEARCHED_THREAD,),
            filler_messages=rows - SEARCHED_THREAD,
            memories=rows,
        )
        spent = scale_data.ensure(spec)
        if spent:
            print(f"generated {spec.name} in {spent:.0f} s")
        with scale_data.using(spec.name):
            counts = scale_data.row_counts("memories_memory", "conversations_message")
            thread = Thread.objects.get(pk=scale_data.thread_id(spec, f"main-{SEARCHED_THREAD}"))
            before = Message.objects.filter(thread=thread).count() - 20
            recall = _cycle(lambda q: memory_recall.search_memories(user=user, query=q), MEMORY_QUERIES)
            history = _cycle(
                lambda q, t=thread, b=before: retrieval.search_history(thread=t, query=q, before_sequence=b),
                HISTORY_QUERIES,
            )

            warm_recall = _cycle(
                lambda q: memory_recall.search_memories(user=user, query=q), MEMORY_QUERIES, cold=False
            )
            hits = (len(recall()), len(history()))
            mem = measure("memories", recall, repeat, slow_repeat)
            hist = measure("history", history, repeat, slow_repeat)
            # The same question again (a turn's second search): its vector is cached.
            mem["indexed_query_vector_cached"] = timed(warm_recall, repeat=repeat, max_seconds=30)
        results[str(rows)] = {"rows": counts, "memory_recall": mem, "history_search": hist, "hits": hits}
        print(f"{rows:>9,} rows, memory recall, query vector cached: {fmt(mem['indexed_query_vector_cached'])}")
        for label, r in (("memory recall ", mem), ("history search", hist)):
            print(f"{rows:>9,} rows, {label}: indexed {fmt(r['indexed'])} using {r['indexed']['indexes_used']}")
            print(f"{'':>9}       {'':14}  no index {fmt(r['no_index'])} using {r['no_index']['indexes_used']}")
    top = results[str(max(sizes))]["memory_recall"]["indexed"]["p95_ms"]
    verdict = "met" if top <= 20 else "NOT met"
    if max(sizes) != 1_000_000:
        verdict += "; quick size, not the target's"
    print(f"memory recall p95 at {max(sizes):,} rows: {top:.2f} ms (target <= 20 ms at 1,000,000: {verdict})")
    write_result("latency", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
