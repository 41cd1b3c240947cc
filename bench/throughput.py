"""Throughput: chat turns per second through the HTTP API, offline model, on this machine.

Starts the product as deployed (gunicorn + a Celery worker on Redis, ``bench/stack.py``)
on loopback; 1, 8 and 32 clients, each its own user with its own thread, post a
message (``POST /api/threads/<id>/messages``) and poll the run (``GET /api/runs/<id>``)
until it completes, then post the next one, for a fixed time per level. Reports turns
per second, client-observed turn latency, and the share of the runs' time spent in the
memory layer, from their trace events: context assembly with memory retrieval
(``retrieval`` events) and memory tools (remember/recall/forget/search_history), over
the runs' wall time (claimed → completed). The background summary work the turns
cause (``summary`` events) is reported next to it. The clients run on the same two
cores as the servers.

    .venv/bin/python -m bench.throughput            # 40 s per level
    .venv/bin/python -m bench.throughput --quick    # 10 s per level
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench.common import percentile, setup, write_result

LEVELS = (1, 8, 32)
MEMORY_TOOLS = ("remember_fact", "recall_facts", "forget_fact", "search_history")


def memory_share(run_ids: list[str]) -> dict:
    from django.db.models import F, Sum

    from agents.models import Run, TraceEvent, TraceKind

    runs = Run.objects.filter(pk__in=run_ids, started_at__isnull=False, finished_at__isnull=False)
    wall = sum((r.finished_at - r.started_at).total_seconds() * 1000 for r in runs.only("started_at", "finished_at"))
    events = TraceEvent.objects.filter(run_id__in=run_ids)
    retrieval = events.filter(kind=TraceKind.RETRIEVAL).aggregate(s=Sum("duration_ms"))["s"] or 0
    tools = events.filter(kind=TraceKind.TOOL_CALL, name__in=MEMORY_TOOLS).aggregate(s=Sum("duration_ms"))["s"] or 0
    summary = events.filter(kind=TraceKind.SUMMARY).aggregate(s=Sum("duration_ms"))["s"] or 0
    queue = sum(
        (r["started_at"] - r["created_at"]).total_seconds() * 1000
        for r in runs.annotate(c=F("created_at")).values("started_at", "created_at")
    )
    return {
        "runs": runs.count(),
        "run_wall_ms": round(wall),
        "memory_layer_ms": retrieval + tools,
        "memory_share": round((retrieval + tools) / wall, 3) if wall else None,
        "retrieval_ms": retrieval,
        "memory_tools_ms": tools,
        "background_summary_ms": summary,
        "queue_wait_ms_mean": round(queue / max(1, runs.count()), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float)
    args = parser.parse_args()
    setup()

    from bench.stack import ChatClient, Stack, client_tokens, drive

    seconds = args.seconds or (10 if args.quick else 40)
    tokens = client_tokens(max(LEVELS))
    stack = Stack().start()
    results = {"quick": args.quick, "seconds_per_level": seconds, "stack": "gunicorn 2×4 gthread + celery prefork 2"}
    try:
        for level in LEVELS:
            clients = [ChatClient(stack.url, tokens[i], i) for i in range(level)]
            drive(clients, turns=level)  # warm-up: one turn each
            started = time.perf_counter()
            turns = drive(clients, seconds=seconds)
            elapsed = time.perf_counter() - started
            for c in clients:
                c.close()
            ok = [t for t in turns if t.status == "completed"]
            lat = [t.latency_s * 1000 for t in ok]
            share = memory_share([t.run_id for t in ok])
            results[str(level)] = {
                "turns": len(turns),
                "completed": len(ok),
                "turns_per_second": round(len(ok) / elapsed, 2),
                "latency_median_ms": round(statistics.median(lat), 1) if lat else None,
                "latency_p95_ms": round(percentile(lat, 95), 1) if lat else None,
                **share,
            }
            r = results[str(level)]
            print(
                f"{level:>2} clients: {r['turns_per_second']:.2f} turns/s ({len(ok)} of {len(turns)} completed in "
                f"{elapsed:.0f} s); turn latency median {r['latency_median_ms']} ms, p95 {r['latency_p95_ms']} ms; "
                f"memory layer {r['memory_share']:.1%} of run time (retrieval {r['retrieval_ms']} ms + memory tools "
                f"{r['memory_tools_ms']} ms of {r['run_wall_ms']} ms); queue wait {r['queue_wait_ms_mean']} ms/run; "
                f"background summaries {r['background_summary_ms']} ms"
            )
    finally:
        stack.stop()
    write_result("throughput", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
