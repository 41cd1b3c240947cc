"""Run the whole product on one machine: web server, Celery workers and beat.

The setup the README's production notes describe: chat turns on their own queue,
taken by a thread-pool worker (``WORKER_CONCURRENCY``, default 64 model calls in
flight); summaries, the purge and erasure by a worker of their own; vectors by the
embedder; every process with a small database connection pool (``DB_POOL_MAX_SIZE``,
default 10 here).

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


def _celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", *args, "-l", "info"]


def stack_commands(addr: str) -> dict[str, list[str]]:
    """The processes ``make run`` starts, by name: the tests start its web server from here,
    so what they check of its log is what ``make run`` writes."""
    manage = str(settings.BASE_DIR / "manage.py")
    return {
        "web": [sys.executable, manage, "runserver", addr, "--noreload"],
        # Turns: a thread pool holding many model calls at once (they wait on the network).
        "turns": [
            *_celery("worker", "-n", "turns@%h", "-Q", TURN_QUEUE),
            *("--pool", "threads", "--concurrency", os.environ.get("WORKER_CONCURRENCY", "64")),
        ],
        "worker": _celery("worker", "-n", "worker@%h", "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "--concurrency", "2"),
        # Vectors of new messages and memories, off the turns' queue, one process.
        "embedder": _celery("worker", "-n", "embedder@%h", "-Q", settings.EMBEDDING_QUEUE, "--concurrency", "1"),
        "beat": _celery("beat", "-S", "django_celery_beat.schedulers:DatabaseScheduler"),
    }


class Command(BaseCommand):
    help = "Start web, the turn worker, the worker, the embedder and beat together; Ctrl-C stops everything."

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
