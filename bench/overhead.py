"""Overhead per turn: context assembly time and SQL query count as the data grows.

Times ``usecases.turn.context.build_context`` (summary, window, pinned and relevant
memories, budget trim: what every turn runs before the model call) on threads of
100, 10,000 and 100,000 messages, with 1,000 and 100,000 memories in the table (the
user's own 20 among them), and counts its SQL queries. Data sets are generated in SQL
and reused (``bench/scale_data.py``).

    .venv/bin/python -m bench.overhead            # 100 / 10k / 100k messages × 1k / 100k memories
    .venv/bin/python -m bench.overhead --quick    # 100 / 10k messages × 1k / 100k memories, fewer samples
    .venv/bin/python -m bench.overhead --before   # also the search before its bounds, call by call beside it

``--before`` times, beside each size's figure and in turn with it (one call of each per
round, so the machine's load falls on both alike), the context built with the history
search as it was before 2026-12-04: the lexical statement over the whole thread
(``HISTORY_LEXICAL_WINDOW`` 0) and the exact vector scan in text format.
"""

from __future__ import annotations

import argparse
import sys

from django.test.utils import override_settings

from bench import scale_data
from bench.common import fmt, timed, write_result
from bench.latency import forget_query_vectors
from bench.vectors import interleaved
from conversations import vector_search
from conversations.models import Message, Thread
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent


def specs():
    """The data sets: threads of 100, 10k and 100k messages; 1k and 100k memories."""

    msgs = scale_data.Spec("bench_msgs", main_threads=(100, 10_000, 100_000), tables=scale_data.TABLES[:3])
    mems = {
        n: scale_data.Spec(f"bench_mem_{n // 1000}k", memories=n, tables=("memories_memory",)) for n in (1_000, 100_000)
    }
    return msgs, mems


QUERIES = [
    "what was the order number for the delivery?",
    "remind me about the dentist appointment on friday",
    "I need to change my flight to berlin",
    "any news on the refund for the laptop?",
    "plan the weekend: garden, pasta, guitar",
]


def _fresh(thread: Thread, request: Message):
    """Builds the context of ``request``, a user turn of ``thread``, for each question in turn."""
    agent, user = get_agent("assistant"), scale_data.scale_user()
    counter = iter(range(10**9))

    def build():
        forget_query_vectors()  # each turn's message is new: its vector is computed
        request.text = QUERIES[next(counter) % len(QUERIES)]
        return build_context(thread=thread, agent=agent, user=user, request_message=request)

    return build


def _before(thread: Thread, request: Message):
    """The same, with the history search as it was before its bounds (see the module's text)."""
    build = _fresh(thread, request)

    def before():
        with override_settings(HISTORY_LEXICAL_WINDOW=0), vector_search.forced(vector_search.ExactScan(binary=False)):
            return build()

    return before


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", action="store_true", help="also time the search before its bounds, in turn")
    args = parser.parse_args()

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    sizes = (100, 10_000) if args.quick else (100, 10_000, 100_000)
    repeat = 60 if args.quick else 200
    msgs, mems = specs()
    for spec in (msgs, *mems.values()):
        spent = scale_data.ensure(spec)
        if spent:
            print(f"generated {spec.name} in {spent:.0f} s")

    results, table = {}, []
    for n_mem, mem_spec in mems.items():
        with scale_data.using(mem_spec.name, msgs.name):
            for size in sizes:
                thread = Thread.objects.get(pk=scale_data.thread_id(msgs, f"main-{size}"))
                request = Message.objects.get(thread=thread, sequence=size - 1)  # a user turn
                build = _fresh(thread, request)

                # With DEBUG on, every statement of the timed loops is logged too: a full
                # log (9,000) made the capture of the next size count nothing ("0 SQL queries").
                connection.queries_log.clear()
                with CaptureQueriesContext(connection) as queries:
                    ctx = build()
                t = timed(build, repeat=repeat, warmup=5)
                key = f"{size}_messages_{n_mem}_memories"
                results[key] = {
                    **t,
                    "queries": len(queries),
                    "memories_in_context": len(ctx.report.memory_ids),
                    "window_messages": ctx.report.window_messages,
                    "summary_version": ctx.report.summary_version,
                }
                table.append((size, n_mem, t, len(queries)))
                print(f"{size:>7,} messages, {n_mem:>7,} memories: {fmt(t)}, {len(queries)} SQL queries")
                if args.before:
                    results[key]["side_by_side"] = side = interleaved(
                        {"before": _before(thread, request), "now": _fresh(thread, request)},
                        repeat=repeat,
                        max_seconds=60,
                    )
                    b, n = side["before"], side["now"]
                    print(
                        f"{'':>34} in turn: before median {b['median_ms']:.2f} / p95 {b['p95_ms']:.2f} ms, "
                        f"now {n['median_ms']:.2f} / {n['p95_ms']:.2f} ms: "
                        f"×{b['median_ms'] / n['median_ms']:.2f} / ×{b['p95_ms'] / n['p95_ms']:.2f} "
                        f"(client CPU {b['cpu_median_ms']:.1f} / {n['cpu_median_ms']:.1f} ms, "
                        f"database CPU {b['db_cpu_mean_ms']:.1f} / {n['db_cpu_mean_ms']:.1f} ms a call)"
                    )
    counts = {r[3] for r in table}
    same = len(counts) == 1
    worst = max((r for r in table if r[0] == max(sizes) and r[1] == 100_000), key=lambda r: r[2]["p95_ms"])
    print(f"SQL queries per context identical at every size: {'yes' if same else 'NO'} ({sorted(counts)})")
    print(
        f"p95 at {worst[0]:,} messages and 100,000 memories: {worst[2]['p95_ms']:.2f} ms "
        f"(target <= 15 ms: {'met' if worst[2]['p95_ms'] <= 15 else 'NOT met'})"
    )
    write_result("overhead", {"quick": args.quick, "results": results, "queries_identical": same})
    return 0


if __name__ == "__main__":
    sys.exit(main())
