"""A real Celery worker as a subprocess, against the test database and broker.

Tests that need the worker use ``transaction=True`` (the worker is another process
and must see committed rows). Tests that only check a task's logic may call the task
body directly (``task.run(...)`` or the service it calls) inside the normal test
transaction: that is the rule for every later test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

REPO = Path(__file__).resolve().parent.parent
_RECEIVED = re.compile(r"Task [\w.]+\[[0-9a-f-]+\] received")
_FINISHED = re.compile(r"Task [\w.]+\[[0-9a-f-]+\] (?:succeeded|raised|retry|rejected|ignored)")


def database_url_for_tests() -> str:
    """A DATABASE_URL naming the *test* database the current process uses."""
    s = connection.settings_dict
    host = quote(str(s.get("HOST") or ""), safe="")
    port = s.get("PORT") or ""
    auth = quote(s.get("USER") or "postgres", safe="")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"], safe="")
    return f"postgres://{auth}@{host}{':' + str(port) if port else ''}/{s['NAME']}"


class WorkerProcess:
    def __init__(
        self,
        log_path: Path,
        extra_env: dict[str, str] | None = None,
        queues: str | None = None,
        pool: tuple[str, ...] = ("-P", "solo"),
    ) -> None:
        self.log_path = log_path
        self.extra_env = extra_env or {}
        self.queues = queues
        self.pool = pool
        self.proc: subprocess.Popen | None = None
        # Stopped on purpose for a test that must not share its rows with it (conftest's session_worker_held_off).
        self.held_off = False

    def start(self, timeout: float = 30) -> WorkerProcess:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url_for_tests(),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            **self.extra_env,
        }
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            *self.pool,
            "-l",
            "info",
            "-Q",
            self.queues or f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.EMBEDDING_QUEUE}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"test-{os.getpid()}@%h",
        ]
        self.held_off = False
        self._log = open(self.log_path, "w")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.log()}")
            if " ready." in self.log():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"worker not ready in {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def wait_idle(self, *, quiet: float = 0.5, timeout: float = 30) -> bool:
        """Wait until every task the worker received has finished and the log is quiet.

        A transactional test ends by truncating every table; a task still running then
        (an after-turn summary, an embedding) holds row locks and the two deadlock. The
        worker logs one "received" line per delivery and one terminal line (succeeded,
        raised, retry, rejected) per delivery, so equal counts mean it is idle. Returns
        False if it is still busy at ``timeout``; the test then ends as before.
        """
        deadline = time.monotonic() + timeout
        last, quiet_since = None, time.monotonic()
        while time.monotonic() < deadline:
            text = self.log()
            if text != last:
                last, quiet_since = text, time.monotonic()
            busy = len(_RECEIVED.findall(text)) > len(_FINISHED.findall(text))
            if not busy and time.monotonic() - quiet_since >= quiet:
                return True
            time.sleep(0.1)
        return False

    def kill(self) -> None:
        """SIGKILL: the worker dies without acknowledging anything."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if getattr(self, "_log", None):
            self._log.close()
