"""A database outage under pooled connections: requests fail fast, no run is left queued.

The database is a PostgreSQL of this test's own (the embedded server, in a temporary
directory), because the test stops it and starts it again: the shared server is never
touched. Against it run the web server and the thread-pool turn worker, each with its
connection pool (as ``make run`` starts them), and the fake Messages API.

Six turns are posted; the worker (two threads) has two of them at the model and keeps
four waiting when the database stops. While it is down, requests answer 503 at once
and ``/healthz`` says so. Once it is back, every run ends within seconds, without the
reaper (the waiting ones are retried; the ones cut off mid-turn, whose requeue failed
too, are given back by their task's retry) and every thread takes a new message.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from liamemory.embedded_db import stop
from tests.worker import REPO

pytestmark = pytest.mark.smoke

DB_NAME = "outage"
SETUP = """
import django
django.setup()
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
print(Token.objects.create(user=User.objects.create_user("outage-user")).key)
"""
# Seconds within which every run has ended once the database is back: the retries' backoff
# (at most 30 s) and the turns themselves, well under the reaper's RUN_STALE_AFTER (300 s).
AFTER_THE_OUTAGE = 75
# How long PostgreSQL refuses connections (the task: a short outage, 10–30 s).
OUTAGE_SECONDS = 15
# Longer than the task's twelve tries at most 1 s apart (RUN_RETRY_BACKOFF_MAX_SECONDS=1), each
# waiting 0.5 s for the pool (DB_POOL_TIMEOUT) and for one of the worker's two threads: 20–30 s.
LONG_OUTAGE_SECONDS = 60
START = """
import sys
from pathlib import Path
from liamemory.embedded_db import ensure_database
ensure_database(Path(sys.argv[1]), sys.argv[2])
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    """The private server and the processes on it; everything is stopped at the end."""

    def __init__(self, root: Path, fake_url: str) -> None:
        self.root = root
        self.pgdata = root / "pgdata"
        self.port = _free_port()
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            # Its own broker folder and queue: nothing here reaches another test's worker.
            "LIAMEMORY_VAR_DIR": str(root / "var"),
            "CELERY_BROKER_URL": "filesystem://",
            "CELERY_TURN_QUEUE": "outage-turns",
            "DB_POOL_MAX_SIZE": "4",
            "CHECKPOINT_POOL_MAX_SIZE": "2",
            "LIAMEMORY_FAKE_ANTHROPIC_URL": fake_url,
            "MODEL_MAX_RETRIES": "0",
        }

    def start_database(self) -> None:
        # A process of its own each time: the library remembers a server it started.
        subprocess.run([sys.executable, "-c", START, str(self.pgdata), DB_NAME], cwd=REPO, check=True, timeout=120)
        self.env["DATABASE_URL"] = f"postgres://postgres@{quote(str(self.pgdata), safe='')}:5432/{DB_NAME}"

    def stop_database(self) -> None:

        stop(self.pgdata)

    def python(self, code: str, **extra: str) -> str:
        env = {**self.env, **extra}
        cmd = [sys.executable, "-c", code]
        out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout.strip()

    def spawn(self, name: str, cmd: list[str]) -> None:
        log = self.root / f"{name}.log"
        self.logs.append(log)
        with open(log, "w") as handle:
            self.procs.append(subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=handle, stderr=subprocess.STDOUT))

    def start_services(self) -> None:
        manage = [sys.executable, "manage.py"]
        migrate = subprocess.run(
            [*manage, "migrate", "--noinput"], cwd=REPO, env=self.env, capture_output=True, text=True, timeout=600
        )
        assert migrate.returncode == 0, migrate.stdout + migrate.stderr
        self.spawn("web", [*manage, "runserver", f"127.0.0.1:{self.port}", "--noreload"])
        celery = [sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "info"]
        pool = ["--pool", "threads", "--concurrency", "2"]
        self.spawn("turns", [*celery, "-Q", "outage-turns", *pool, "-n", f"outage-{os.getpid()}@%h"])

    def output(self) -> str:
        return "\n".join(f"--- {log.name}\n{log.read_text()[-6000:]}" for log in self.logs if log.exists())

    def close(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        if (self.pgdata / "postmaster.pid").exists():
            self.stop_database()


@pytest.fixture
def stack(fake_anthropic_server):
    yield from _stack(fake_anthropic_server)


@pytest.fixture
def stack_with_short_backoff(fake_anthropic_server):
    yield from _stack(fake_anthropic_server, RUN_RETRY_BACKOFF_MAX_SECONDS="1", DB_POOL_TIMEOUT="0.5")


def _stack(fake_anthropic_server, **env: str):
    root = Path(tempfile.mkdtemp(prefix="lm-outage-"))  # short: a Unix socket path has a length limit
    root.chmod(0o755)  # the server runs as its own OS user when the tests run as root
    fake_anthropic_server.reset()
    stack = Stack(root, fake_anthropic_server.url)
    stack.env.update(env)
    try:
        stack.start_database()
        stack.start_services()
        yield stack
    finally:
        stack.close()
        fake_anthropic_server.reset()


def _timed(http: httpx.Client, method: str, path: str, **kw) -> tuple[float, int | str]:
    started = time.monotonic()
    try:
        status: int | str = http.request(method, path, **kw).status_code
    except httpx.TimeoutException:
        status = "no answer"
    return time.monotonic() - started, status


def test_a_database_outage_leaves_no_run_queued_and_requests_fail_fast(stack, fake_anthropic_server):
    during, health = _outage(stack, fake_anthropic_server, OUTAGE_SECONDS)
    # During the outage: a 503 within the pool's timeout (2 s; it was 30), not a hang;
    # /healthz says why. The margin is for a loaded machine.
    for name, (seconds, status) in during.items():
        assert status == 503 and seconds < 3.5, (name, seconds, status, during)
    assert health["status"] == "error" and health["checks"]["database"] not in ("ok", "no answer in 5 s"), health


def test_an_outage_longer_than_the_tasks_retries_leaves_no_run_to_the_reaper(
    stack_with_short_backoff, fake_anthropic_server
):
    """Twelve tries 1, 2, 4 … 30 s apart covered 2–4 minutes of outage; a longer one left the
    runs cut off mid-turn ``running`` and the waiting ones ``queued``, for the reaper (5 and
    3 minutes). Here the tries are at most 1 s apart (the same twelve, each waiting for the pool's
    0.5 s and a thread, cover 20–30 s), and the outage lasts 60 s: every run still ends soon after the
    database is back (before the change: the runs left in flight, for the reaper)."""
    _outage(stack_with_short_backoff, fake_anthropic_server, LONG_OUTAGE_SECONDS)


def _outage(stack: Stack, fake_anthropic_server, outage_seconds: float) -> tuple[dict, dict]:
    token = stack.python(SETUP)
    base = f"http://127.0.0.1:{stack.port}"
    with httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=10) as http:
        deadline = time.monotonic() + 90
        while True:
            try:
                http.get("/healthz").raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, stack.output()
                time.sleep(0.3)

        # The pools hold live connections before the outage: a first turn goes through.
        threads = [http.post("/api/threads", json={}).raise_for_status().json()["id"] for _ in range(6)]
        first = http.post(f"/api/threads/{threads[0]}/messages", json={"content": "hello"}).json()["run"]["id"]
        deadline = time.monotonic() + 60
        while http.get(f"/api/runs/{first}").json()["status"] != "completed":
            assert time.monotonic() < deadline, stack.output()
            time.sleep(0.3)

        fake_anthropic_server.delay = 3.0  # two turns at the model, four waiting in the worker
        runs = [
            http.post(f"/api/threads/{t}/messages", json={"content": f"question {i}"}).json()["run"]["id"]
            for i, t in enumerate(threads)
        ]
        time.sleep(1.0)
        stack.stop_database()
        outage_started = time.monotonic()
        during = {
            "api": _timed(http, "GET", "/api/threads"),
            "post": _timed(http, "POST", f"/api/threads/{threads[0]}/messages", json={"content": "x"}),
            "healthz": _timed(http, "GET", "/healthz"),
        }
        try:
            health: dict = http.get("/healthz", timeout=5).json()
        except httpx.TimeoutException:
            health = {"status": "", "checks": {"database": "no answer in 5 s"}}
        time.sleep(max(0.0, outage_seconds - (time.monotonic() - outage_started)))
        stack.start_database()

        # Every run ends soon after, without the reaper (whose RUN_STALE_AFTER is 5 minutes):
        # the waiting ones are retried, and the ones cut off mid-turn, whose requeue failed
        # too, are given back by their task's retry (runner.RunLeftRunning).
        back = time.monotonic()
        fake_anthropic_server.delay = 0.0
        statuses: dict[str, dict] = {}
        while time.monotonic() < back + AFTER_THE_OUTAGE:
            statuses = {r: http.get(f"/api/runs/{r}").json() for r in runs}
            if all(s.get("status") in ("completed", "failed", "cancelled") for s in statuses.values()):
                break
            time.sleep(1.0)
        ended_after = time.monotonic() - back

        left = {r: s.get("status") for r, s in statuses.items() if s.get("status") in ("queued", "running")}
        assert not left, f"runs left in flight {ended_after:.0f} s after the outage: {left}\n{stack.output()}"
        print(f"every run ended {ended_after:.1f} s after the database came back")
        # Those waiting were retried, those cut off were given back by their retry: all answered.
        ends = [(s["status"], s.get("error")) for s in statuses.values()]
        assert {end[0] for end in ends} == {"completed"}, f"{ends}\n{stack.output()}"
        # No thread answers 409 for good: each takes a new message, which is answered.
        after = [http.post(f"/api/threads/{t}/messages", json={"content": "still there?"}) for t in threads]
        assert [r.status_code for r in after] == [202] * len(threads), [r.text for r in after]
        deadline = time.monotonic() + 60
        for r in after:
            run_id = r.json()["run"]["id"]
            while http.get(f"/api/runs/{run_id}").json()["status"] in ("queued", "running"):
                assert time.monotonic() < deadline, stack.output()
                time.sleep(0.5)
    return during, health
