"""Where a context build's time goes, stage by stage (issue #25).

Builds the context of ``bench.overhead`` (its data sets, its five questions, the query-vector
cache emptied before each build) and splits each build's wall time into:

- ``embedding``: the question's e5 embedding, in its own thread (its own duration; it
  overlaps the statements, so it is not a part of the sum below);
- ``wait``: the time the build's thread waited for that vector;
- one part per kind of statement (summary and window, memory switch, the lexical ranking,
  the vector scan, the hits' rows, memory recall, the rest), the time from sending it to
  having its rows, with the number sent;
- ``python``: the rest of the wall time (assembly, ranking, token estimates).

Each at median and p95, for all five questions and for the groups that differ in what they
read (the questions that search the thread, the person's other conversations, or nothing).

    .venv/bin/python -m bench.context_stages                 # 100k messages × 100k memories
    .venv/bin/python -m bench.context_stages --size 10000    # another thread size
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db import connection

from bench import overhead, scale_data
from bench.common import load_average, percentile, write_result
from conversations.models import Message, Thread
from liamemory import embeddings

# A statement's kind, by a fragment of its SQL (the first that matches).
KINDS = (
    ("lexical", "terms AS MATERIALIZED"),
    ("vector scan", "conversations_messageembedding"),
    ("memory recall", "AS part"),
    ("summary+window", "current_summary"),
    ("memory switch", "memories_memorypreference"),
    ("corrections", 'corrects_id" IN'),
    ("hit rows", "conversations_message"),
)
SQL_KINDS = (*(k for k, _ in KINDS), "other SQL")
STAGES = (
    "embedding",
    "embedding CPU",
    "wait",
    *(part for k in SQL_KINDS for part in (k, f"{k} db CPU")),
    "python",
    "build thread CPU",
    "total",
)


def _kind(sql: str) -> str:
    return next((kind for kind, fragment in KINDS if fragment in sql), "other SQL")


class _Probe:
    """Times, for one build at a time, its statements, its wait for the vector and the embedding."""

    def __init__(self) -> None:
        self.main = threading.get_ident()
        self.parts: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = Path(f"/proc/{cursor.fetchone()[0]}/schedstat")

    def _backend_ns(self) -> int:
        """The database process's CPU time so far (schedstat: nanoseconds; a local server only)."""
        return int(self.backend.read_text().split()[0])

    def reset(self) -> None:
        self.parts.clear()
        self.counts.clear()

    def statement(self, execute: Callable, sql: str, params: Any, many: bool, context: dict) -> Any:
        started, cpu = time.perf_counter(), self._backend_ns()
        try:
            return execute(sql, params, many, context)
        finally:
            kind = _kind(sql)
            self.parts[kind] += (time.perf_counter() - started) * 1000
            self.parts[f"{kind} db CPU"] += (self._backend_ns() - cpu) / 1e6
            self.counts[kind] += 1

    @contextmanager
    def installed(self) -> Iterator[None]:
        encode, result = embeddings._encode_query, Future.result
        probe = self

        def timed_encode(text: str):
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return encode(text)
            finally:
                probe.parts["embedding"] += (time.perf_counter() - started) * 1000
                probe.parts["embedding CPU"] += (time.thread_time() - cpu) * 1000

        def timed_result(future: Future, timeout: float | None = None):
            if threading.get_ident() != probe.main or future.done():
                return result(future, timeout)
            started = time.perf_counter()
            try:
                return result(future, timeout)
            finally:
                probe.parts["wait"] += (time.perf_counter() - started) * 1000

        embeddings._encode_query = timed_encode
        Future.result = timed_result  # type: ignore[method-assign,assignment]
        try:
            with connection.execute_wrapper(self.statement):
                yield
        finally:
            embeddings._encode_query = encode
            Future.result = result  # type: ignore[method-assign]


# Each question by what its context reads on the benchmark's threads.
_NAMES = ("order number", "dentist", "flight (no search)", "refund", "weekend (no search)")
LABELS = dict(zip(overhead.QUERIES, _NAMES, strict=True))


def measure(*, size: int, memories: int, rounds: int) -> dict[str, dict[str, dict[str, float]]]:
    """Each stage's median and p95 over ``rounds`` builds of each question, per question and in all."""
    msgs, mems = overhead.specs()
    with scale_data.using(mems[memories].name, msgs.name):
        thread = Thread.objects.get(pk=scale_data.thread_id(msgs, f"main-{size}"))
        request = Message.objects.get(thread=thread, sequence=size - 1)
        build = overhead._fresh(thread, request)
        probe = _Probe()
        samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for _ in range(2 * len(overhead.QUERIES)):
            build()  # warm-up: the model loaded, the plans' catalogues read
        with probe.installed():
            for i in range(rounds * len(overhead.QUERIES)):
                question = overhead.QUERIES[i % len(overhead.QUERIES)]
                probe.reset()
                started, cpu = time.perf_counter(), time.thread_time()
                build()
                total = (time.perf_counter() - started) * 1000
                cpu_ms = (time.thread_time() - cpu) * 1000
                sql = sum(v for k, v in probe.parts.items() if k in SQL_KINDS)
                parts = {
                    **probe.parts,
                    "python": total - sql - probe.parts["wait"],
                    "build thread CPU": cpu_ms,
                    "total": total,
                }
                for group in ("all", LABELS[question]):
                    for stage in STAGES:
                        samples[group][stage].append(parts.get(stage, 0.0))
                    for kind, n in probe.counts.items():
                        samples[group][f"{kind} #"].append(n)
    return {
        group: {
            stage: {"median_ms": round(statistics.median(v), 2), "p95_ms": round(percentile(v, 95), 2)}
            for stage, v in stages.items()
        }
        for group, stages in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000, choices=(100, 10_000, 100_000))
    parser.add_argument("--memories", type=int, default=100_000, choices=(1_000, 100_000))
    parser.add_argument("--rounds", type=int, default=40, help="builds of each question")
    args = parser.parse_args()
    msgs, mems = overhead.specs()
    for spec in (msgs, mems[args.memories]):
        scale_data.ensure(spec)
    load = load_average()
    result = measure(size=args.size, memories=args.memories, rounds=args.rounds)
    print(f"{args.size:,} messages × {args.memories:,} memories, {args.rounds} builds a question; ", end="")
    print(f"load {load} → {load_average()} on 2 cores")
    groups = ["all", *(g for g in LABELS.values() if g in result)]
    print(f"{'stage (ms, median / p95)':<24}" + "".join(f"{g:>21}" for g in groups))
    for stage in (*STAGES, *(f"{k} #" for k in SQL_KINDS)):
        if not any(result[g].get(stage, {}).get("p95_ms") for g in groups):
            continue
        cells = []
        for g in groups:
            s = result[g].get(stage)
            cells.append(f"{s['median_ms']:>10.2f} / {s['p95_ms']:<8.2f}" if s else f"{'':>21}")
        print(f"{stage:<24}" + "".join(cells))
    write_result("context_stages", {"size": args.size, "memories": args.memories, "load_at_start": load, **result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
