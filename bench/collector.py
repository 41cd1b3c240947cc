"""The garbage collector's share of a history search and a context, with the start-up objects frozen or not.

``bench.bootstrap`` leaves the process's start-up objects out of the collector as the
product's workers do (``config.process_gc``); ``--unfrozen`` puts them back and restores
CPython's default threshold, as every process was before. Times ``search_history`` on
the 10,000-message thread (``bench.vectors``' data set) and ``build_context`` at 100,000
messages × 100,000 memories (``bench.overhead``'s), each question new, and records every
collector pass (``gc.callbacks``): its generation and its length.

    .venv/bin/python -m bench.collector              # as the product runs now
    .venv/bin/python -m bench.collector --unfrozen   # as it ran before
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from bench import overhead, scale_data, vectors
from bench.common import load_average, percentile, write_result
from bench.latency import HISTORY_QUERIES, forget_query_vectors
from conversations import search as retrieval
from conversations import vector_search
from conversations.models import Message, Thread
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent

CPYTHON_DEFAULT_THRESHOLD = (700, 10, 10)


class Passes:
    """Every collector pass while installed: (generation, milliseconds)."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, float]] = []
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.passes.append((info["generation"], (time.perf_counter() - self._started) * 1000))


def measure(call: Callable[[str], object], questions: list[str], rounds: int, passes: Passes) -> dict[str, float]:
    """Wall time of ``rounds`` calls, questions in turn, and the collector's passes meanwhile."""
    for question in questions:
        call(question)
    passes.passes.clear()
    walls = []
    for i in range(rounds):
        started = time.perf_counter()
        call(questions[i % len(questions)])
        walls.append((time.perf_counter() - started) * 1000)
    full = [ms for generation, ms in passes.passes if generation == 2]
    return {
        "median_ms": round(statistics.median(walls), 1),
        "p95_ms": round(percentile(walls, 95), 1),
        "collector_ms_per_call": round(sum(ms for _, ms in passes.passes) / rounds, 2),
        "passes": len(passes.passes),
        "full_passes": len(full),
        "longest_full_pass_ms": round(max(full, default=0.0), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--unfrozen", action="store_true", help="the collector as before config.process_gc")
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    if args.unfrozen:
        gc.unfreeze()
        gc.set_threshold(*CPYTHON_DEFAULT_THRESHOLD)
    passes = Passes()
    gc.callbacks.append(passes)
    results: dict[str, Any] = {"unfrozen": args.unfrozen, "tracked_objects": len(gc.get_objects())}

    history_spec, _ = vectors.specs(quick=False)
    with scale_data.using(history_spec.name):
        vector_search.reset()
        thread = Thread.objects.get(pk=scale_data.thread_id(history_spec, f"main-{vectors.THREAD}"))
        before = thread.next_sequence - 20

        def history(question: str) -> object:
            forget_query_vectors()
            return retrieval.search_history(thread=thread, query=question, before_sequence=before)

        results["history_search"] = measure(history, HISTORY_QUERIES, args.rounds, passes)

    msgs, mems = overhead.specs()
    agent, user = get_agent("assistant"), scale_data.scale_user()
    with scale_data.using(mems[100_000].name, msgs.name):
        vector_search.reset()
        big = Thread.objects.get(pk=scale_data.thread_id(msgs, "main-100000"))
        request = Message.objects.get(thread=big, sequence=100_000 - 1)

        def context(question: str) -> object:
            forget_query_vectors()
            request.text = question
            return build_context(thread=big, agent=agent, user=user, request_message=request)

        results["context"] = measure(context, overhead.QUERIES, args.rounds, passes)
    vector_search.reset()

    label = "unfrozen (before)" if args.unfrozen else "frozen (now)"
    for name in ("history_search", "context"):
        r = results[name]
        print(
            f"{name}, collector {label}: median {r['median_ms']} ms, p95 {r['p95_ms']} ms; collector "
            f"{r['collector_ms_per_call']} ms a call, {r['passes']} passes, {r['full_passes']} full, "
            f"longest full {r['longest_full_pass_ms']} ms"
        )
    print(f"objects the collector tracked at the start: {results['tracked_objects']:,}; load {load_average()}")
    write_result("collector_unfrozen" if args.unfrozen else "collector", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
