"""What a turn leaves behind in the process that runs it: RSS and tracemalloc over many turns.

Runs the turn use case (``turn_submit`` then ``runner.run_execute``, as the turn worker
does) in this one process, ``--threads`` chats at once, one thread each, against
``DATABASE_URL``; the run's task is not enqueued (the embeddings and summaries that a
turn enqueues go to the broker as usual). With ``--trace`` it diffs tracemalloc
snapshots taken after the warm-up and at the end, and prints the largest growths by
traceback (tracemalloc slows the turns about tenfold: use a few hundred turns).

    .venv/bin/python -m bench.turn_memory --turns 600            # RSS every 100 turns
    .venv/bin/python -m bench.turn_memory --turns 80 --trace     # where the growth was allocated
    DJANGO_DEBUG=0 .venv/bin/python -m bench.turn_memory ...     # as production (no query log)
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agents.checkpointer import delete_checkpoints
from bench.stack import SCRIPT
from usecases import turns
from usecases.turn import runner


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--warm-up", type=int, default=40, help="turns before the baseline")
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--step", type=int, default=100)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--frames", type=int, default=8)
    args = parser.parse_args()
    # The turn worker's pools, as bench.stack's production setup gives it: read by the
    # settings, which ``bench.bootstrap`` loaded already, so the benchmark starts again with them.
    pools = {"DB_POOL_MAX_SIZE": "12", "CHECKPOINT_POOL_MAX_SIZE": "8"}
    if any(name not in os.environ for name in pools):
        env = {**pools, **os.environ}
        os.execve(sys.executable, [sys.executable, "-m", "bench.turn_memory", *sys.argv[1:]], env)  # noqa: S606

    from django.contrib.auth import get_user_model
    from django.db import connections

    users = []
    for i in range(args.threads):
        user, _ = get_user_model().objects.get_or_create(username=f"bench-memory-{i}")
        delete_checkpoints([str(t) for t in user.threads.values_list("id", flat=True)])
        user.threads.all().delete()
        user.memories.all().delete()
        users.append(user)
    chats = [turns.thread_start(owner=u, title="bench.turn_memory") for u in users]
    said = [0] * args.threads
    # The runner is called here, in this process: the run's task is not sent.
    turns._enqueue_run = lambda run_id: None

    def one(i: int) -> None:
        text = f"{SCRIPT[said[i] % len(SCRIPT)].format(n=1000 + i)} (turn {said[i]})"
        said[i] += 1
        _, run = turns.turn_submit(user=users[i], thread=chats[i], content=text)
        runner.run_execute(run_id=str(run.id))
        connections.close_all()

    pool = ThreadPoolExecutor(args.threads)

    def batch(total: int) -> None:
        taken = [0]
        lock = threading.Lock()

        def chat(i: int) -> None:
            while True:
                with lock:
                    if taken[0] >= total:
                        return
                    taken[0] += 1
                one(i)

        list(pool.map(chat, range(args.threads)))

    started = time.monotonic()
    batch(args.warm_up)
    gc.collect()
    print(f"warm-up {args.warm_up} turns: RSS {rss_mb():.1f} MB ({time.monotonic() - started:.0f} s)", flush=True)
    if args.trace:
        tracemalloc.start(args.frames)
    before = tracemalloc.take_snapshot() if args.trace else None
    done = 0
    while done < args.turns:
        started = time.monotonic()
        n = min(args.step, args.turns - done)
        batch(n)
        done += n
        gc.collect()
        traced = f", traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB" if args.trace else ""
        print(f"after {done} turns: RSS {rss_mb():.1f} MB{traced} ({time.monotonic() - started:.0f} s)", flush=True)
    if before is not None:
        ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
        stats = tracemalloc.take_snapshot().filter_traces(ignore).compare_to(before.filter_traces(ignore), "traceback")
        for stat in stats[:12]:
            print(f"\n+{stat.size_diff / 1024:.1f} KiB in {stat.count_diff:+} blocks")
            for line in stat.traceback.format()[-2 * args.frames :]:
                print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
