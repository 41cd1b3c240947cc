"""Throughput: chat turns per second through the HTTP API, on this machine.

Starts the product as deployed (gunicorn + a Celery worker on Redis, ``bench/stack.py``)
on loopback; N clients, each its own user with its own thread, post a message
(``POST /api/threads/<id>/messages``) and follow the run until it completes, then post
the next one, for a fixed time per level. Two setups side by side in one run:

- ``legacy``: the earlier deployment, prefork worker of 2 children, gunicorn 2 × 4
  threads, one database connection per thread;
- ``production``: the one the README recommends, thread-pool turn workers holding 64
  model calls (four processes of 16 threads here, two per core: ``--turn-workers``),
  gunicorn 2 × 64 threads (a thread per open event stream), a small connection pool per process.

Two models:

- the offline model (answers at once: the figure is the product's own CPU per turn),
  1, 8 and 32 clients;
- ``--model-delay 2``: the fake Messages API (``tests/fake_anthropic.py``, its own
  process) answering every call after 2 s and streaming the reply; 64 clients.

Clients of the production setup read ``GET /api/runs/<id>/events`` (server-sent
events) as the chat page does; clients of the legacy setup poll ``GET /api/runs/<id>``
(every 20 ms offline, 200 ms with the slow model, with ``If-None-Match``), as they had
to before streaming existed (64 open streams would also hold all 8 of its web threads).

Reports turns per second, client-observed turn latency, time to the first streamed
words, runs lost or failed, the memory layer's share of the runs' time (trace events:
retrieval and memory tools over claimed → completed), queue wait. The clients run on
the same two cores as the servers.

    .venv/bin/python -m bench.throughput                      # offline, 40 s per level, both setups
    .venv/bin/python -m bench.throughput --model-delay 2      # slow model, 64 clients, both setups
    .venv/bin/python -m bench.throughput --quick              # 10 s per level
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time

from agents.models import Run, RunStatus, TraceEvent, TraceKind
from bench.autovacuum import Autovacuum, dsn
from bench.common import load_average, percentile, write_result
from bench.stack import (
    CLIENT_PREFIX,
    WEB_THREADS,
    ChatClient,
    FakeModelServer,
    Stack,
    client_tokens,
    database_cpu_seconds,
    drive,
)

OFFLINE_LEVELS = (1, 8, 32)
SLOW_LEVELS = (64,)
MEMORY_TOOLS = ("remember_fact", "recall_facts", "forget_fact", "search_history")


def memory_share(run_ids: list[str]) -> dict:
    from django.db.models import Sum

    runs = Run.objects.filter(pk__in=run_ids, started_at__isnull=False, finished_at__isnull=False)
    wall = sum(
        (r.finished_at - r.started_at).total_seconds() * 1000
        for r in runs.only("started_at", "finished_at")
        if r.finished_at and r.started_at  # always, by the filter: said for the type checker
    )
    events = TraceEvent.objects.filter(run_id__in=run_ids)
    retrieval = events.filter(kind=TraceKind.RETRIEVAL).aggregate(s=Sum("duration_ms"))["s"] or 0
    tools = events.filter(kind=TraceKind.TOOL_CALL, name__in=MEMORY_TOOLS).aggregate(s=Sum("duration_ms"))["s"] or 0
    summary = events.filter(kind=TraceKind.SUMMARY).aggregate(s=Sum("duration_ms"))["s"] or 0
    queue = sum(
        (started - created).total_seconds() * 1000
        for started, created in runs.values_list("started_at", "created_at")
        if started is not None
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


STAGES = ("post", "queue", "context", "model", "persist", "follow")


def stages(turns: list) -> dict:
    """Where a completed turn's time went, from the client's clock and the run's own rows.

    post: the client's POST until the run row exists; queue: until a worker claimed it;
    context: until the context was built (its trace event); model: until the model's reply
    was traced; persist: until the run finished; follow: until the client saw the end.
    Median and p95 of each stage, and the mean of each over the slowest 5 % of turns (what
    the latency tail is made of). Same host, so the clocks agree.
    """
    by_run = {t.run_id: t for t in turns if t.status == "completed" and t.posted_at}
    marks: dict[str, dict[str, float]] = {}
    events = TraceEvent.objects.filter(kind__in=[TraceKind.CONTEXT, TraceKind.MODEL_CALL], run_id__in=list(by_run))
    for run_id, kind, at in events.order_by("id").values_list("run_id", "kind", "created_at"):
        # The first model call of the turn (the fake and offline models make one).
        marks.setdefault(str(run_id), {}).setdefault(kind, at.timestamp())
    rows = []
    for run_id, created, started, finished in Run.objects.filter(pk__in=list(by_run)).values_list(
        "pk", "created_at", "started_at", "finished_at"
    ):
        turn, mark = by_run[str(run_id)], marks.get(str(run_id), {})
        if started is None or finished is None or TraceKind.CONTEXT not in mark or TraceKind.MODEL_CALL not in mark:
            continue
        points = [
            turn.posted_at,
            created.timestamp(),
            started.timestamp(),
            mark[TraceKind.CONTEXT],
            mark[TraceKind.MODEL_CALL],
            finished.timestamp(),
            turn.ended_at,
        ]
        rows.append([(b - a) * 1000 for a, b in itertools.pairwise(points)])
    if not rows:
        return {}
    slowest = sorted(rows, key=sum, reverse=True)[: max(1, len(rows) // 20)]
    return {
        name: {
            "median_ms": round(statistics.median(r[i] for r in rows)),
            "p95_ms": round(percentile([r[i] for r in rows], 95)),
            "slowest_5pct_mean_ms": round(statistics.fmean(r[i] for r in slowest)),
        }
        for i, name in enumerate(STAGES)
    }


def runs_left_behind(user_prefix: str, since) -> int:
    """Runs of this level still queued or running once its clients stopped and a second passed (lost runs)."""

    return Run.objects.filter(
        user__username__startswith=user_prefix,
        created_at__gte=since,
        status__in=[RunStatus.QUEUED, RunStatus.RUNNING],
    ).count()


def measure(stack, tokens, levels, seconds: float, follow: str, poll_seconds: float, fake=None) -> dict:
    from django.utils import timezone

    out = {}
    for level in levels:
        clients = [ChatClient(stack.url, tokens[i], i, follow=follow, poll_seconds=poll_seconds) for i in range(level)]
        drive(clients, turns=level)  # warm-up: one turn each
        load_before = load_average()
        since = timezone.now()
        cpu_before, db_before = stack.cpu_seconds(), database_cpu_seconds()
        fake_before = fake.cpu_seconds() if fake else 0.0
        started, clients_cpu = time.perf_counter(), time.process_time()
        turns = drive(clients, seconds=seconds)
        elapsed, clients_cpu = time.perf_counter() - started, time.process_time() - clients_cpu
        cpu_after, db_after = stack.cpu_seconds(), database_cpu_seconds()
        fake_cpu = fake.cpu_seconds() - fake_before if fake else 0.0
        for c in clients:
            c.close()
        time.sleep(1)
        ok = [t for t in turns if t.status == "completed"]
        lat = [t.latency_s * 1000 for t in ok]
        first = [t.first_text_s * 1000 for t in ok if t.first_text_s is not None]
        share = memory_share([t.run_id for t in ok])
        where = stages(ok)
        # CPU per completed turn, process time (not wall time: the machine may be shared).
        per_turn = max(1, len(ok))
        cpu = {name: round((cpu_after[name] - cpu_before.get(name, 0)) * 1000 / per_turn, 1) for name in cpu_after}
        cpu["database"] = round(sum(v - db_before.get(pid, 0) for pid, v in db_after.items()) * 1000 / per_turn, 1)
        # The load generator's own share of the same cores (this process: the clients' threads).
        cpu["clients"] = round(clients_cpu * 1000 / per_turn, 1)
        if fake:
            # The fake Messages API shares these cores too (a real model's CPU is elsewhere).
            cpu["fake_model"] = round(fake_cpu * 1000 / per_turn, 1)
        r = {
            "turns": len(turns),
            "completed": len(ok),
            "not_completed": len(turns) - len(ok),
            "left_queued_or_running": runs_left_behind(CLIENT_PREFIX, since),
            "turns_per_second": round(len(ok) / elapsed, 2),
            "latency_median_ms": round(statistics.median(lat), 1) if lat else None,
            "latency_p95_ms": round(percentile(lat, 95), 1) if lat else None,
            "first_text_median_ms": round(statistics.median(first), 1) if first else None,
            "load_average": [load_before, load_average()],
            "cpu_ms_per_turn": cpu,
            "stages": where,
            **share,
        }
        out[str(level)] = r
        first_words = f"; first words median {r['first_text_median_ms']} ms" if first else ""
        print(
            f"  {level:>2} clients: {r['turns_per_second']:.2f} turns/s ({len(ok)} of {len(turns)} completed in "
            f"{elapsed:.0f} s, {r['left_queued_or_running']} left running); turn latency median "
            f"{r['latency_median_ms']} ms, p95 {r['latency_p95_ms']} ms{first_words}; memory layer "
            f"{(r['memory_share'] or 0):.1%} of run time; queue wait {r['queue_wait_ms_mean']} ms/run; "
            f"load {load_before} → {load_average()}; CPU ms per turn {cpu}",
            flush=True,
        )
        print(
            "     stages median / p95 / slowest 5 % mean (ms): "
            + "; ".join(
                f"{k} {v['median_ms']} / {v['p95_ms']} / {v['slowest_5pct_mean_ms']}" for k, v in where.items()
            ),
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--model-delay", type=float, default=0.0, help="fake Messages API answering after N s")
    parser.add_argument("--clients", type=int, nargs="+", help="levels (default 1 8 32; 64 with --model-delay)")
    parser.add_argument("--setups", nargs="+", choices=["legacy", "production"], default=["legacy", "production"])
    parser.add_argument("--follow", choices=["poll", "stream"], help="default: production streams, legacy polls")
    parser.add_argument(
        "--turn-workers",
        type=int,
        nargs="+",
        default=[0],
        help="production setup: turn-worker processes on the turns queue, one run per count (e.g. 1 2 4; "
        "default: make run's, one per core)",
    )
    parser.add_argument(
        "--web-threads",
        type=int,
        nargs="+",
        default=[0],
        help="production setup: threads per web process, one run per count (e.g. 32 64 32 64; default: bench.stack's)",
    )
    parser.add_argument("--web-pool", type=int, help="production setup: database connections per web process")
    parser.add_argument("--worker-pool", type=int, help="production setup: database connections per worker process")
    parser.add_argument(
        "--turn-threads", type=int, help="production setup: threads per turn-worker process (make run's: 64 in all)"
    )
    parser.add_argument(
        "--background-nice", type=int, help="production setup: the background worker's niceness (make run's: 10)"
    )
    parser.add_argument("--poll-seconds", type=float, help="default 0.02 offline, 0.2 with a delay")
    args = parser.parse_args()

    seconds = args.seconds or (10 if args.quick else 40)
    slow = args.model_delay > 0
    levels = tuple(args.clients or (SLOW_LEVELS if slow else OFFLINE_LEVELS))
    poll_seconds = args.poll_seconds or (0.2 if slow else 0.02)
    tokens = client_tokens(max(levels))
    # The database as production's autovacuum keeps it (this server runs without): bench.autovacuum.
    vacuum = Autovacuum(dsn()).start()
    fake = FakeModelServer(delay=args.model_delay) if slow else None
    name = f"throughput_model{args.model_delay:g}s" if slow else "throughput"
    results: dict = {"quick": args.quick, "seconds_per_level": seconds, "model_delay_s": args.model_delay}
    results["poll_seconds"] = poll_seconds
    try:
        runs = [
            (which, n, t)
            for which in args.setups
            for n in (args.turn_workers if which == "production" else [1])
            for t in (args.web_threads if which == "production" else [0])
        ]
        for which, n, web_threads in runs:
            extra = fake.env if fake else {}
            if which == "production":
                # The same threads in all: 64 model calls in flight split over the processes.
                nice = {} if args.background_nice is None else {"background_nice": args.background_nice}
                pool = {} if args.web_pool is None else {"web_env": {"DB_POOL_MAX_SIZE": str(args.web_pool)}}
                if args.worker_pool is not None:
                    extra = {**extra, "DB_POOL_MAX_SIZE": str(args.worker_pool)}
                stack = Stack.production(
                    env=dict(extra),
                    turn_workers=n,
                    concurrency=args.turn_threads or 0,
                    threads=web_threads or WEB_THREADS,
                    **nice,
                    **pool,
                )
            else:
                stack = Stack(env=dict(extra))
            key = which
            if len(args.turn_workers) > 1:
                key += f"_{n}_turn_workers"
            if len(args.web_threads) > 1:
                key += f"_{web_threads}_web_threads"
            # A count repeated to alternate (32 64 32 64) gets a key of its own each time.
            key += f"_{sum(1 for k in results if k.startswith(key))}" if key in results else ""
            # Before streaming existed a client could only poll; the legacy setup's 8 web threads
            # would also be held by 64 open event streams.
            follow = args.follow or ("stream" if which == "production" else "poll")
            model = f"model answering after {args.model_delay:g} s" if slow else "offline model"
            print(f"{which}: {stack.label}; {model}; clients {follow}", flush=True)
            stack.start()
            try:
                figures = measure(stack, tokens, levels, seconds, follow, poll_seconds, fake)
                results[key] = {"stack": stack.label, "follow": follow, **figures}
            finally:
                stack.stop()
            # A web process that waited its pool's timeout for a connection answered 503.
            unavailable = (stack.log_dir / "stack-web.log").read_text(errors="replace").count("Service Unavailable")
            results.setdefault(key, {})["web_503s"] = unavailable
            print(f"  web answered 503 to {unavailable} requests (warm-up included)", flush=True)
    finally:
        vacuum.stop()
        if fake:
            fake.stop()
    results["statistics"] = vacuum.label
    print(f"statistics: {vacuum.label}", flush=True)
    write_result(name, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
