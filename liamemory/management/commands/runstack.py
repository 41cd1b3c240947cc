"""Run the whole product on one machine: web server, Celery workers and beat.

The setup the README's production notes describe: chat turns on their own queue,
taken by thread-pool workers, a process per core or more (``TURN_WORKERS``) sharing
``WORKER_CONCURRENCY`` model calls in flight (default 64); summaries, the purge and
erasure by a worker of their own; vectors by the embedder, both at a lower CPU priority;
every process with a small database connection pool (``DB_POOL_MAX_SIZE``, default 10 here).

Ctrl-C (or SIGTERM) stops all three and then the embedded PostgreSQL, if that is the
database in use.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from liamemory.embedded_db import EMBEDDED_FLAG, stop

TURN_QUEUE = "turns"
# Model calls in flight on one host, over all its turn-worker processes.
TURN_THREADS = 64
# Threads a turn-worker process holds at most while two processes a core allow: fewer threads
# wanting a process's interpreter lock, so its consumer takes a published turn sooner.
TURN_THREADS_PER_PROCESS = 16
# The niceness of the summary and embedding workers. Their work is off the turn's path (a
# backlog only delays the newest messages' search by meaning and the summary's catching
# up), so on a busy host the cores go to the turns first and to them in the gaps.
BACKGROUND_NICE = 10


def turn_worker_layout(processes: int = 0, threads: int = 0) -> tuple[int, int]:
    """How many turn-worker processes and threads in each: by default one process per core,
    and up to two per core while a process would hold more than ``TURN_THREADS_PER_PROCESS``.

    A turn worker's threads share one interpreter lock, so one process of 64 threads used
    about one core; a process per core shares the calls out (docs/scaling.md). The thread that
    takes a published turn from the broker is one of them too: with 32 a process it waited
    longer for the lock than with 16 (bench/README.md, "Session 19 — p95").
    """
    threads = threads or int(os.environ.get("WORKER_CONCURRENCY") or TURN_THREADS)
    cores = os.cpu_count() or 1
    default = max(cores, min(2 * cores, -(-threads // TURN_THREADS_PER_PROCESS)))
    processes = processes or int(os.environ.get("TURN_WORKERS") or 0) or default
    return processes, max(1, -(-threads // processes))


def _celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", *args, "-l", "info"]


def _background(command: list[str]) -> list[str]:
    return ["nice", "-n", str(BACKGROUND_NICE), *command]


def stack_commands(addr: str) -> dict[str, list[str]]:
    """The processes ``make run`` starts, by name: the tests start its web server from here,
    so what they check of its log is what ``make run`` writes."""
    manage = str(settings.BASE_DIR / "manage.py")
    processes, threads = turn_worker_layout()
    # Turns: thread pools holding many model calls at once (they wait on the network).
    turns = {
        name: [
            *_celery("worker", "-n", f"{name}@%h", "-Q", TURN_QUEUE),
            "--pool",
            "threads",
            "--concurrency",
            str(threads),
        ]
        for name in ("turns", *(f"turns{k}" for k in range(2, processes + 1)))
    }
    return {
        "web": [sys.executable, manage, "runserver", addr, "--noreload"],
        **turns,
        "worker": _background(
            _celery("worker", "-n", "worker@%h", "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "--concurrency", "2")
        ),
        # Vectors of new messages and memories, off the turns' queue, one process.
        "embedder": _background(
            _celery("worker", "-n", "embedder@%h", "-Q", settings.EMBEDDING_QUEUE, "--concurrency", "1")
        ),
        "beat": _celery("beat", "-S", "django_celery_beat.schedulers:DatabaseScheduler"),
    }


class Command(BaseCommand):
    help = "Start web, the turn workers, the worker, the embedder and beat together; Ctrl-C stops everything."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--addr", default=os.environ.get("LIAMEMORY_ADDR", "127.0.0.1:8000"))

    def handle(self, *args, addr: str, **options) -> None:
        commands = stack_commands(addr)
        env = {
            **os.environ,
            "CELERY_TURN_QUEUE": TURN_QUEUE,
            "DB_POOL_MAX_SIZE": os.environ.get("DB_POOL_MAX_SIZE", "10"),
            "CHECKPOINT_POOL_MAX_SIZE": os.environ.get("CHECKPOINT_POOL_MAX_SIZE", "8"),
        }
        procs = {name: subprocess.Popen(cmd, cwd=settings.BASE_DIR, env=env) for name, cmd in commands.items()}
        self.stdout.write(self.style.SUCCESS(f"liamemory is up at http://{addr}/  (admin: http://{addr}/admin/)"))
        self.stdout.write("Press Ctrl-C to stop web, the workers, beat and the embedded database.")

        stopping = False

        def _stop(signum, frame) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, _stop)
        signal.signal(signal.SIGTERM, _stop)
        try:
            while not stopping:
                dead = [n for n, p in procs.items() if p.poll() is not None]
                if dead:
                    self.stderr.write(f"{', '.join(dead)} exited; stopping the rest")
                    break
                time.sleep(0.5)
        finally:
            for p in procs.values():
                if p.poll() is None:
                    p.terminate()
            for p in procs.values():
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
            if os.environ.get(EMBEDDED_FLAG):
                stop(settings.VAR_DIR / "pgdata")
                self.stdout.write("embedded PostgreSQL stopped")
