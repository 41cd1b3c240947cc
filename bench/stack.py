"""The product as deployed, on loopback: gunicorn (WSGI) + Celery workers, and HTTP chat clients.

Used by the throughput, footprint and erasure benchmarks. The processes run with the
environment's ``DATABASE_URL`` and ``CELERY_BROKER_URL`` (a real broker: Redis), the
offline model (no API key), and a per-user turn throttle high enough not to limit a
benchmark client. Only processes started here are stopped here, by their ids.
"""

from __future__ import annotations

import json
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

from agents.checkpointer import delete_checkpoints
from liamemory.management.commands.runstack import BACKGROUND_NICE, turn_worker_layout

REPO = Path(__file__).resolve().parent.parent
CLIENT_PREFIX = "bench-client-"
TURN_TIMEOUT = 60.0
# Threads per web process (the README's production command): every open event stream holds one
# to its run's end, and a client's connection stays with one process, so at 64 streaming clients
# 32 threads a process left the POSTs of the busier process waiting for a stream to end
# (bench/README.md, "Session 18 — thru").
WEB_THREADS = 64
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
    """The servers' environment: the offline model unless ``extra`` names a (fake) API."""
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        THROTTLE_TURNS="1000000/min",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(REPO),
    )
    env.update(extra)
    return env


@dataclass
class Stack:
    """gunicorn (``web_workers`` × ``threads``) and a Celery worker (``pool`` × ``concurrency``).

    ``Stack.production()`` is the setup the README recommends (and ``make run`` uses):
    a thread-pool worker holding many model calls at once and threaded web workers, each
    process with a small database connection pool. ``Stack()`` is the earlier setup
    (prefork worker of 2 children, 2 × 4 web threads, one connection per thread), kept
    for side-by-side figures.
    """

    web_workers: int = 2
    threads: int = 4
    concurrency: int = 2
    pool: str = "prefork"
    # With a turn queue: the turn worker takes only turns; a second worker (prefork of
    # ``background`` children) the rest (embeddings, summaries).
    turn_queue: str = ""
    background: int = 1
    # With a turn queue: how many turn-worker processes share it (``concurrency`` threads each).
    turn_workers: int = 1
    # The background worker's niceness (``make run`` lowers its priority: ``BACKGROUND_NICE``).
    background_nice: int = 0
    env: dict[str, str] = field(default_factory=dict)
    web_env: dict[str, str] = field(default_factory=dict)
    log_dir: Path = field(default_factory=lambda: REPO / "bench" / "results")
    port: int = 0
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    @classmethod
    def production(cls, *, turn_workers: int = 0, concurrency: int = 0, threads: int = WEB_THREADS, **kw) -> Stack:
        """``make run``'s turn workers (``runstack.turn_worker_layout``): 64 model calls in flight
        over a process per core, two while a process would hold more than 16 threads (four here),
        or over ``turn_workers`` processes; the README's
        web processes (``WEB_THREADS``), with a database connection for every two threads up to 16.

        With one process its interpreter lock held the turns back (bench.throughput
        --turn-workers 1 2 4, same run: 4.14 / 5.41 / 5.27 turns/s at 8 clients;
        docs/scaling.md). The background worker runs at ``make run``'s lower priority.
        """
        turn_workers, per_process = turn_worker_layout(turn_workers)
        return cls(
            web_workers=2,
            threads=threads,
            concurrency=concurrency or max(8, per_process),
            turn_workers=turn_workers,
            background_nice=kw.pop("background_nice", BACKGROUND_NICE),
            pool="threads",
            turn_queue="turns",
            env={"DB_POOL_MAX_SIZE": "12", "CHECKPOINT_POOL_MAX_SIZE": "8", **kw.pop("env", {})},
            # A web request holds its connection from its first statement to its end, which under
            # load is mostly waiting for the interpreter lock: with 8 for 32 threads, POSTs waited the
            # pool's 2 s and answered 503 (bench.throughput --web-pool, bench/README "Session 13").
            # Past 32 the threads hold event streams, which hand their connection back between reads.
            web_env={"DB_POOL_MAX_SIZE": str(min(16, max(8, threads // 2))), **kw.pop("web_env", {})},
            **kw,
        )

    @property
    def label(self) -> str:
        label = f"gunicorn {self.web_workers}×{self.threads} gthread + celery {self.pool} {self.concurrency}"
        if self.turn_queue:
            times = f"{self.turn_workers} × " if self.turn_workers > 1 else ""
            label = label.replace("celery ", f"celery {times}", 1)
            nice = f", nice {self.background_nice}" if self.background_nice else ""
            label += f" (turns) + celery prefork {self.background} (background{nice})"
        return label

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
                "config.wsgi",
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
                "config",
                "worker",
                "-l",
                "warning",
                "--pool",
                self.pool,
                "--concurrency",
                str(self.concurrency),
                "--without-gossip",
                "--without-mingle",
                "-Q",
                self.turn_queue or "celery,embeddings",
                "-n",
                f"bench-{os.getpid()}@%h",
            ],
        }
        if self.turn_queue:
            commands["background"] = [
                *(["nice", "-n", str(self.background_nice)] if self.background_nice else []),
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "--pool",
                "prefork",
                "--concurrency",
                str(self.background),
                "--without-gossip",
                "--without-mingle",
                "-Q",
                "celery,embeddings",
                "-n",
                f"bench-bg-{os.getpid()}@%h",
            ]
            for k in range(2, self.turn_workers + 1):
                commands[f"worker{k}"] = [
                    *commands["worker"][:-1],
                    f"bench-{k}-{os.getpid()}@%h",
                ]
            self.env = {"CELERY_TURN_QUEUE": self.turn_queue, **self.env}
        for name, cmd in commands.items():
            log = open(self.log_dir / f"stack-{name}.log", "w")  # noqa: SIM115 (the process owns it)
            env = server_env(**{**self.env, **(self.web_env if name == "web" else {})})
            self.procs[name] = subprocess.Popen(
                cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
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

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by each process tree, in seconds."""
        return {name: round(sum(_cpu_s(p) for p in _tree(proc.pid)), 3) for name, proc in self.procs.items()}

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


def _cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds() -> dict[int, float]:
    """CPU time of each server process connected to this database (a local server only), by pid.

    Other databases' sessions on the same server are left out, so the figure stays this
    benchmark's even while other work shares the server.
    """
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        pids = [r[0] for r in cur.fetchall()]
    return {pid: _cpu_s(pid) for pid in pids}


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class FakeModelServer:
    """The fake Messages API (``tests/fake_anthropic.py``) as a process of its own, answering after ``delay`` seconds.

    It streams its replies like the real API; ``env`` points the servers' SDK at it.
    """

    def __init__(self, delay: float, chunk_delay: float = 0.0) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.fake_anthropic",
                "--port",
                str(self.port),
                "--delay",
                str(delay),
                "--chunk-delay",
                str(chunk_delay),
                "--quiet-records",
            ],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{self.port}/_control/requests", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the fake Messages API did not start")

    @property
    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_API_KEY": "bench-fake-key", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}"}

    def cpu_seconds(self) -> float:
        """CPU time used so far by the fake API: on this host, though a real model's is not."""
        return round(sum(_cpu_s(p) for p in _tree(self.proc.pid)), 3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)


def client_tokens(n: int) -> list[str]:
    """API tokens of ``n`` benchmark users, their old threads removed."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

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
    first_text_s: float | None = None  # streaming clients: when the first words arrived
    # Wall-clock (epoch) times of the POST leaving and of the client seeing the run end: set
    # beside the run's own timestamps, they split a turn into its stages (bench.throughput).
    posted_at: float = 0.0
    ended_at: float = 0.0


class ChatClient:
    """One user chatting over HTTP: post a message, follow its run until it ends, repeat.

    ``follow="poll"`` polls ``GET /api/runs/<id>`` every ``POLL_SECONDS``;
    ``follow="stream"`` reads ``GET /api/runs/<id>/events`` (server-sent events) as a
    streaming client does, and records when the first words arrived.
    """

    def __init__(
        self, base_url: str, token: str, index: int, follow: str = "poll", poll_seconds: float = POLL_SECONDS
    ) -> None:
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Token {token}"}, timeout=30)
        self.index = index
        self.follow = follow
        self.poll_seconds = poll_seconds
        self.thread_id = self.http.post("/api/threads", json={"title": "bench"}).raise_for_status().json()["id"]
        self.n = 0

    def turn(self) -> Turn:
        """One turn; a dropped connection or an error answer makes it an ``error`` turn, not a crash."""
        # Every message differs (a turn number): a repeated text would find its query
        # embedding cached, which a user's next message never does.
        text = f"{SCRIPT[self.n % len(SCRIPT)].format(n=1000 + self.index)} (turn {self.n})"
        self.n += 1
        started, posted_at = time.perf_counter(), time.time()
        try:
            reply = self.http.post(f"/api/threads/{self.thread_id}/messages", json={"content": text})
            if reply.status_code == 409:  # the previous run is still going (after an error turn)
                time.sleep(0.5)
                return Turn(time.perf_counter() - started, "", "busy")
            reply.raise_for_status()
            run = reply.json()["run"]
        except httpx.HTTPError:
            return Turn(time.perf_counter() - started, "", "error")
        if self.follow == "stream":
            return self._stamped(self._stream(run["id"], started), posted_at)
        deadline = time.monotonic() + TURN_TIMEOUT
        status = run["status"]
        etag = ""
        while status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(self.poll_seconds)
            try:
                answer = self.http.get(f"/api/runs/{run['id']}", headers={"If-None-Match": etag} if etag else {})
                if answer.status_code != 304:
                    status = answer.raise_for_status().json()["status"]
                    etag = answer.headers.get("ETag", "")
            except httpx.HTTPError:
                time.sleep(0.2)  # poll again
        return self._stamped(Turn(time.perf_counter() - started, run["id"], status), posted_at)

    @staticmethod
    def _stamped(turn: Turn, posted_at: float) -> Turn:
        turn.posted_at, turn.ended_at = posted_at, time.time()
        return turn

    def _stream(self, run_id: str, started: float) -> Turn:
        first, status, event = None, "error", ""
        try:
            with self.http.stream(
                "GET", f"/api/runs/{run_id}/events", headers={"Accept": "text/event-stream"}, timeout=TURN_TIMEOUT
            ) as response:
                response.raise_for_status()
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: "):
                        if event == "delta" and first is None:
                            first = time.perf_counter() - started
                        elif event == "run":
                            status = json.loads(line[6:])["status"]
                            break
                        elif event == "gone":
                            break
        except httpx.HTTPError:
            status = "error"
        return Turn(time.perf_counter() - started, run_id, status, first)

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
