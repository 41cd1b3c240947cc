"""Memory footprint: resident memory (RSS) of the web and worker processes as turns accumulate.

Starts the product as deployed (``bench/stack.py``: by default the production setup,
``--setup legacy`` for the earlier one), then 8 HTTP clients (``--clients``) chat:
once through their script (the baseline: every kind of turn has run), then until the
target number of turns is reached or the time cap passes, whichever comes first; the
RSS of each process tree (parent and children, from /proc) is sampled along the way.
The time cap keeps the run bounded on a shared machine: the output says how many turns
were reached.

    .venv/bin/python -m bench.footprint            # 10,000 turns, at most 9 minutes
    .venv/bin/python -m bench.footprint --quick    # 300 turns, at most 90 s
    .venv/bin/python -m bench.footprint --max-seconds 2400 --step 1000 --clients 16   # the 10,000-turn soak

Each sample records the load average beside it: on a shared machine the latency follows
the load as much as the product. It records the database pages the turns touched too, which
do not depend on the load: what grows with the clients' threads. The database is kept as
production's autovacuum keeps it (``bench.autovacuum``; this shared server runs without):
``--statistics frozen`` measures it without, ``midpoint`` with one ``ANALYZE`` halfway.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from django.db import connection

from bench.autovacuum import Autovacuum, database_pages, dsn
from bench.common import percentile, write_result
from bench.stack import SCRIPT, ChatClient, Stack, client_tokens, drive

CLIENTS = 8


def report(args, label: str, target: int, samples: list[dict], latency: list[dict], completed: int, detail) -> None:
    first, last = samples[0], samples[-1]
    print(
        f"RSS after {last['turns']:,} turns ({completed:,} completed; target {target:,}): "
        + ", ".join(
            f"{k} {last[k]} MB (from {first[k]}, ×{last[k] / first[k]:.2f})"
            for k in first
            if k not in ("turns", "seconds")
        )
        + f"; per process: {detail}",
        flush=True,
    )
    write_result(
        "footprint",
        {
            "quick": args.quick,
            "setup": label,
            "statistics": args.statistics,
            "target_turns": target,
            "turns": last["turns"],
            "completed": completed,
            "samples_mb": samples,
            "latency": latency,
            "per_process_mb": detail,
        },
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns", type=int)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--setup", choices=["legacy", "production"], default="production")
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--step", type=int, help="turns between samples (default: a twentieth of --turns)")
    parser.add_argument(
        "--warm-up", type=int, help="turns per client before the first sample (default: the script once through)"
    )
    parser.add_argument(
        "--statistics",
        choices=["autovacuum", "frozen", "midpoint"],
        default="autovacuum",
        help="autovacuum: its passes as production runs them (bench.autovacuum); frozen: the tables' "
        "statistics as the run found them (before session 17); midpoint: frozen, one ANALYZE at half the turns",
    )
    args = parser.parse_args()

    target = args.turns or (300 if args.quick else 10_000)
    cap = args.max_seconds or (90 if args.quick else 540)
    step = args.step or max(50, target // 20)
    tokens = client_tokens(args.clients)
    # The first pass vacuums and analyses what the previous run left (its clients' threads just deleted).
    vacuum = Autovacuum(dsn()).start() if args.statistics == "autovacuum" else None
    stack = (Stack.production() if args.setup == "production" else Stack()).start()
    follow = "stream" if args.setup == "production" else "poll"
    print(f"{args.setup}: {stack.label}; clients {follow}; statistics: {args.statistics}")
    samples: list[dict] = []
    latency: list[dict] = []
    try:
        clients = [ChatClient(stack.url, tokens[i], i, follow=follow) for i in range(args.clients)]
        # The baseline is taken once every kind of turn has run (a fact remembered, one
        # recalled, a question answered from the thread): one turn per client left most
        # code paths and the worker's threads cold, so their first use read as growth.
        warm_up = args.clients * (len(SCRIPT) if args.warm_up is None else args.warm_up)
        drive(clients, turns=warm_up)
        samples.append({"turns": 0, "seconds": 0, **stack.rss_mb()})
        print(f"after warm-up ({warm_up:,} turns): {samples[-1]}; load {os.getloadavg()[0]:.1f}")
        done, completed, started = 0, 0, time.monotonic()
        pages_before, own_before, analysed_at = database_pages(), 0, None
        while done < target and time.monotonic() - started < cap:
            if args.statistics == "midpoint" and analysed_at is None and done >= target // 2:
                analysed_at = done
                with connection.cursor() as cur:
                    cur.execute(
                        "SELECT format('%I.%I', schemaname, relname) FROM pg_stat_user_tables "
                        "WHERE n_mod_since_analyze > 0"
                    )
                    for (table,) in cur.fetchall():
                        cur.execute(f"ANALYZE {table}")
                print(f"ANALYZE of every table written since its last one, after {done:,} turns", flush=True)
                pages_before = database_pages()
            left = cap - (time.monotonic() - started)
            batch = drive(clients, turns=min(step, target - done), seconds=left)
            done += len(batch)
            completed += sum(1 for t in batch if t.status == "completed")
            latencies = [t.latency_s * 1000 for t in batch if t.status == "completed"]
            median = round(statistics.median(latencies), 1) if latencies else None
            p95 = round(percentile(latencies, 95), 1) if latencies else None
            samples.append({"turns": done, "seconds": round(time.monotonic() - started), **stack.rss_mb()})
            load = os.getloadavg()[0]
            # Pages the database touched for these turns (their tasks included), autovacuum's own left out:
            # the reading that grows with a thread (pages do not depend on the machine's load).
            pages_now, own_now = database_pages(), vacuum.pages if vacuum else 0
            pages = round((pages_now - pages_before - (own_now - own_before)) / max(1, len(batch)))
            pages_before, own_before = pages_now, own_now
            block = {"turns": done, "latency_median_ms": median, "latency_p95_ms": p95, "pages_per_turn": pages}
            latency.append({**block, "load": load})
            print(
                f"after {done:>6,} turns ({samples[-1]['seconds']} s): "
                + ", ".join(f"{k} {v} MB" for k, v in samples[-1].items() if k not in ("turns", "seconds"))
                + f"; turn latency median {median} ms, p95 {p95} ms, database pages {pages:,} a turn over the last "
                f"{len(batch)}; load {load:.1f}",
                flush=True,
            )
        detail = stack.rss_detail()
        for c in clients:
            c.close()
        # Reported before the servers stop: a worker finishing its last runs may take its
        # time to exit, and a time budget (bench/quiet_run.sh) must not cut the summary.
        if vacuum:
            print(f"statistics: {vacuum.label}", flush=True)
        report(args, stack.label, target, samples, latency, completed, detail)
    finally:
        stack.stop()
        if vacuum:
            vacuum.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
