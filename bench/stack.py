"""The product as deployed, on loopback: gunicorn (WSGI) + Celery workers, and HTTP chat clients.

Used by the throughput, footprint and erasure benchmarks. The processes run with the
environment's ``DATABASE_URL`` and ``CELERY_BROKER_URL`` (a real broker: Redis), the
offline model (no API key), and a per-user turn throttle high enough not to limit a
benchmark client. Only processes started here are stopped here, by their ids.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
CLIENT_PREFIX = "bench-client-"
TURN_TIMEOUT = 60.0
POLL_SECONDS = 0.02

# What the clients say: small talk, facts to remember, questions about them.
SCRIPT = [
    "Hello! How are you today?",
    "Remember that my order number is A-{n}.",
    "I went running in the park this morning, it was lovely.",
    "What do you know about me?",
    "My favourite dish is pasta with lemon and basil.",
    "What did I say about running?",
    "Remember that I prefer replies in English.",
    "The weather is changing again, rain all week.",
    "What was my order number?",
    "Thanks, that is all for now.",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="liamemory.settings.base",
        THROTTLE_TURNS="1000000/min",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(REPO),
    )
    env.update(extra)
    return env


@dataclass
class Stack:
    """gunicorn (``web_workers`` × ``threads``) and a Celery worker (prefork, ``concurrency``)."""

    web_workers: int = 2
    threads: int = 4
    concurrency: int = 2
    log_dir: Path = field(default_factory=lambda: REPO / "bench" / "results")
    port: int = 0
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> Stack:
        self.port = self.port or _free_port()
        self.log_dir.mkdir(exist_ok=True)
        bin_dir = Path(sys.executable).parent
        commands = {
            "web": [
                str(bin_dir / "gunicorn"),
                "liamemory.wsgi",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                str(self.web_workers),
                "-k",
                "gthread",
                "--threads",
                str(self.threads),
                "--log-level",
                "warning",
            ],
            "worker": [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "liamemory",
                "worker",
                "-l",
                "warning",
                "--concurrency",
                str(self.concurrency),
                "--without-gossip",
                "--without-mingle",
                "-Q",
                "celery,embeddings",
                "-n",
                f"bench-{os.getpid()}@%h",
            ],
        }
        for name, cmd in commands.items():
            log = open(self.log_dir / f"stack-{name}.log", "w")  # noqa: SIM115 (the process owns it)
            self.procs[name] = subprocess.Popen(
                cmd, cwd=REPO, env=server_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited early; see bench/results/stack-{name}.log")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    time.sleep(2)  # the worker's children finish booting
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("the stack did not become healthy in time")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)

    def rss_mb(self) -> dict[str, float]:
        """Resident memory of each process tree (parent + children), in MB."""
        return {name: round(sum(_rss_kb(p) for p in _tree(proc.pid)) / 1024, 1) for name, proc in self.procs.items()}

    def rss_detail(self) -> dict[str, list[float]]:
        return {name: [round(_rss_kb(p) / 1024, 1) for p in _tree(proc.pid)] for name, proc in self.procs.items()}


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(ppid, []).append(int(entry.name))
    return out


def _tree(pid: int) -> list[int]:
    children, found, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def client_tokens(n: int) -> list[str]:
    """API tokens of ``n`` benchmark users, their old threads removed."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from agents.checkpointer import delete_checkpoints

    tokens = []
    for i in range(n):
        user, _ = get_user_model().objects.get_or_create(username=f"{CLIENT_PREFIX}{i}")
        # Checkpoint rows have no foreign key to their thread: they go explicitly.
        delete_checkpoints([str(t) for t in user.threads.values_list("id", flat=True)])
        user.threads.all().delete()
        user.memories.all().delete()
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    return tokens


@dataclass
class Turn:
    latency_s: float
    run_id: str
    status: str


class ChatClient:
    """One user chatting over HTTP: post a message, poll its run until it ends, repeat."""

    def __init__(self, base_url: str, token: str, index: int) -> None:
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Token {token}"}, timeout=30)
        self.index = index
        self.thread_id = self.http.post("/api/threads", json={"title": "bench"}).raise_for_status().json()["id"]
        self.n = 0

    def turn(self) -> Turn:
        """One turn; a dropped connection or an error answer makes it an ``error`` turn, not a crash."""
        text = SCRIPT[self.n % len(SCRIPT)].format(n=1000 + self.index)
        self.n += 1
        started = time.perf_counter()
        try:
            reply = self.http.post(f"/api/threads/{self.thread_id}/messages", json={"content": text})
            if reply.status_code == 409:  # the previous run is still going (after an error turn)
                time.sleep(0.5)
                return Turn(time.perf_counter() - started, "", "busy")
            reply.raise_for_status()
            run = reply.json()["run"]
        except httpx.HTTPError:
            return Turn(time.perf_counter() - started, "", "error")
        deadline = time.monotonic() + TURN_TIMEOUT
        status = run["status"]
        while status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            try:
                status = self.http.get(f"/api/runs/{run['id']}").raise_for_status().json()["status"]
            except httpx.HTTPError:
                time.sleep(0.2)  # poll again
        return Turn(time.perf_counter() - started, run["id"], status)

    def close(self) -> None:
        self.http.close()


def drive(clients: list[ChatClient], *, seconds: float | None = None, turns: int | None = None) -> list[Turn]:
    """All clients chat at once until ``seconds`` pass or ``turns`` are done in total."""
    done: list[Turn] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds if seconds else None
    errors: list[BaseException] = []

    def loop(client: ChatClient) -> None:
        try:
            while True:
                with lock:
                    if (turns is not None and len(done) >= turns) or (stop_at and time.monotonic() >= stop_at):
                        return
                t = client.turn()
                with lock:
                    done.append(t)
        except BaseException as exc:  # report it after the others stop
            errors.append(exc)

    workers = [threading.Thread(target=loop, args=(c,)) for c in clients]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return done
