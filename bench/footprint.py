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
the load as much as the product.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

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
    args = parser.parse_args()

    target = args.turns or (300 if args.quick else 10_000)
    cap = args.max_seconds or (90 if args.quick else 540)
    step = args.step or max(50, target // 20)
    tokens = client_tokens(args.clients)
    stack = (Stack.production() if args.setup == "production" else Stack()).start()
    follow = "stream" if args.setup == "production" else "poll"
    print(f"{args.setup}: {stack.label}; clients {follow}")
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
        while done < target and time.monotonic() - started < cap:
            left = cap - (time.monotonic() - started)
            batch = drive(clients, turns=min(step, target - done), seconds=left)
            done += len(batch)
            completed += sum(1 for t in batch if t.status == "completed")
            latencies = [t.latency_s * 1000 for t in batch if t.status == "completed"]
            median = round(statistics.median(latencies), 1) if latencies else None
            p95 = round(percentile(latencies, 95), 1) if latencies else None
            samples.append({"turns": done, "seconds": round(time.monotonic() - started), **stack.rss_mb()})
            load = os.getloadavg()[0]
            latency.append({"turns": done, "latency_median_ms": median, "latency_p95_ms": p95, "load": load})
            print(
                f"after {done:>6,} turns ({samples[-1]['seconds']} s): "
                + ", ".join(f"{k} {v} MB" for k, v in samples[-1].items() if k not in ("turns", "seconds"))
                + f"; turn latency median {median} ms, p95 {p95} ms over the last {len(batch)}; load {load:.1f}",
                flush=True,
            )
        detail = stack.rss_detail()
        for c in clients:
            c.close()
        # Reported before the servers stop: a worker finishing its last runs may take its
        # time to exit, and a time budget (bench/quiet_run.sh) must not cut the summary.
        report(args, stack.label, target, samples, latency, completed, detail)
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
