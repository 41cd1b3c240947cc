"""/healthz, the production profile, and the two-process product start-up."""

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from liamemory.management.commands.runstack import BACKGROUND_NICE, stack_commands, turn_worker_layout
from tests.factories import UserFactory
from tests.worker import REPO, database_url_for_tests


@pytest.mark.django_db
def test_healthz_reports_database_and_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


def test_check_deploy_is_clean_under_production_profile():
    env = {
        **os.environ,
        "LIAMEMORY_PROFILE": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "memory.example.com",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
    }
    out = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_production_profile_refuses_to_start_without_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(LIAMEMORY_PROFILE="production", DJANGO_SETTINGS_MODULE="config.settings.base")
    out = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode != 0 and "SECRET_KEY" in out.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _turn_completes_through(url: str) -> None:
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=UserFactory(username="stack-user")).key
    with httpx.Client(base_url=url, headers={"Authorization": f"Token {token}"}, timeout=30) as http:
        thread = http.post("/api/threads", json={"title": "t"}).raise_for_status().json()["id"]
        run = http.post(f"/api/threads/{thread}/messages", json={"content": "hello"}).raise_for_status().json()["run"]
        deadline, status = time.monotonic() + 60, run["status"]
        while status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.3)
            status = http.get(f"/api/runs/{run['id']}").json()["status"]
        assert status == "completed"


@pytest.mark.smoke
@pytest.mark.django_db(transaction=True)
def test_runstack_comes_up_and_stops_on_ctrl_c(tmp_path: Path):
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        "CELERY_BROKER_URL": "filesystem://",
        "LIAMEMORY_VAR_DIR": str(tmp_path),
    }
    log = open(tmp_path / "stack.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runstack", "--addr", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # Web, three workers and beat start on a shared 2-core machine: a minute was seen
        # to run out at load 17 (the stack came up seconds later).
        deadline = time.monotonic() + 150
        health = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.3)
        assert health is not None, (tmp_path / "stack.log").read_text()
        assert health.status_code == 200 and health.json()["status"] == "ok"
        login = httpx.get(f"http://127.0.0.1:{port}/admin/login/", timeout=5)
        assert login.status_code == 200 and "Django administration" in login.text
        # A turn goes through the thread-pool turn worker (its own queue, pooled connections).
        _turn_completes_through(f"http://127.0.0.1:{port}")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        log.close()
    output = (tmp_path / "stack.log").read_text()
    assert proc.returncode == 0, output
    assert "liamemory is up at" in output


def test_importing_the_settings_starts_no_database(tmp_path):
    """Settings have no side effect: only an entry point (manage.py, wsgi, the test plugin) starts the server."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LIAMEMORY_EMBEDDED_DB")}
    env["LIAMEMORY_VAR_DIR"] = str(tmp_path)
    code = "import config.settings.base as s; print(s.DATABASES['default']['HOST'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "pgdata").exists()


def test_the_fast_model_judges_memory_changes_by_default_where_a_key_is_set(tmp_path):
    """Issue #22: with an API key and nothing else said, the fast model is asked about close memories."""
    env = {k: v for k, v in os.environ.items() if k != "MEMORY_CONTRADICTION_MODEL"}
    env["LIAMEMORY_VAR_DIR"] = str(tmp_path)
    code = "import config.settings.base as s; print(s.MEMORY_CONTRADICTION_MODEL)"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize(
    ("jit", "url_options", "expected"),
    [
        ("off", "", "-c jit=off"),
        ("off", "?options=-c%20statement_timeout%3D5000", "-c statement_timeout=5000 -c jit=off"),
        ("server", "", None),
    ],
)
def test_connections_open_with_jit_off_beside_the_urls_own_options(tmp_path, jit, url_options, expected):
    """``DB_JIT``: off by a startup option kept beside the URL's own; ``server`` sends none (a pooler may refuse it)."""
    env = {**os.environ, "LIAMEMORY_VAR_DIR": str(tmp_path), "DB_JIT": jit}
    env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/anything" + url_options
    code = "import config.settings.base as s; print(s.DATABASES['default']['OPTIONS'].get('options'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(expected)


def test_numpy_multiplies_matrices_on_one_thread_in_the_products_processes():
    """A process that loads the project (web, workers, commands) gets numpy's OpenBLAS with one
    thread: its default pool (one a core) busy-waits between products, which cost a history
    search ~30 ms of CPU the database and the other requests needed."""
    probe = (
        "import ctypes, glob, os, numpy\n"
        "lib = glob.glob(os.path.join(os.path.dirname(numpy.__file__), '..', 'numpy.libs', '*openblas*'))\n"
        "print(ctypes.CDLL(lib[0]).scipy_openblas_get_num_threads64_())\n"
    )
    # OpenBLAS also obeys OMP_NUM_THREADS, which the embedding engine sets in a process once it
    # loads (the suite's own): neither may leak into the probes.
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", probe],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "1"
    # Without the project, the same numpy runs a thread a core: the check above reads a real setting.
    bare = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert bare.stdout.split()[-1] == str(os.cpu_count())


@pytest.mark.parametrize(
    "start",
    [
        "from celery.signals import worker_process_init; worker_process_init.send(sender=None)",
        "import runpy; runpy.run_path('gunicorn.conf.py')['post_worker_init'](None)",
    ],
    ids=["celery worker", "gunicorn worker"],
)
def test_a_started_process_leaves_its_startup_objects_out_of_the_collector(start):
    """A full collection in a worker went through ~175,000 start-up objects: 160-350 ms a pass,
    the history search's p95 (config/process_gc.py). After start-up they are frozen."""
    probe = (
        "import gc, django; django.setup(); import config; {start}\n"
        "print(len(gc.get_objects()), gc.get_freeze_count(), gc.get_threshold()[0])\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base"}

    def run(code: str) -> list[int]:
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        return [int(x) for x in out.stdout.split()[-3:]]

    tracked, frozen, young = run(probe.format(start=start))
    tracked_bare, frozen_bare, young_bare = run(probe.format(start="pass"))
    assert frozen > 50_000 and tracked < 10_000 and young == 5_000
    # Without the start-up hook, the same process leaves them all to every full pass.
    assert frozen_bare == 0 and tracked_bare > 50_000 and young_bare == 700


@pytest.mark.parametrize(
    "start",
    [
        "from celery.signals import worker_ready; worker_ready.send(sender=None)",
        "from celery.signals import worker_process_init; worker_process_init.send(sender=None)",
        "import runpy; runpy.run_path('gunicorn.conf.py')['post_worker_init'](None)",
    ],
    ids=["celery thread-pool worker", "celery prefork child", "gunicorn worker"],
)
def test_a_started_process_hands_the_interpreter_lock_over_every_millisecond(start):
    """Issue #25: a web or turn-worker thread back from the database waited up to CPython's 5 ms
    per turn of another thread running Python (config/threads.py); a started process switches
    every 1 ms, or keeps CPython's interval with THREAD_SWITCH_SECONDS=0."""
    probe = "import sys, django; django.setup(); import config; {start}\nprint(sys.getswitchinterval())\n"

    def interval(code: str, **extra: str) -> float:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base", **extra}
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        return float(out.stdout.split()[-1])

    assert interval(probe.format(start=start)) == pytest.approx(0.001)
    assert interval(probe.format(start=start), THREAD_SWITCH_SECONDS="0") == pytest.approx(0.005)
    # Before start-up (a management command, the test run itself) nothing changes.
    assert interval(probe.format(start="pass")) == pytest.approx(0.005)


def test_make_run_starts_a_turn_worker_per_core_and_the_background_workers_at_a_lower_priority(monkeypatch):
    """Issue #25: one turn-worker process of 64 threads used about one core (its interpreter
    lock); ``make run`` shares the 64 model calls over a process per core, and the summary and
    embedding workers, whose work is off the turn's path, yield the cores to the turns."""
    monkeypatch.delenv("TURN_WORKERS", raising=False)
    monkeypatch.delenv("WORKER_CONCURRENCY", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    commands = stack_commands("127.0.0.1:8000")
    turns = [cmd for name, cmd in commands.items() if name.startswith("turns")]
    assert len(turns) == 4
    for cmd in turns:
        assert cmd[cmd.index("-Q") + 1] == "turns" and cmd[cmd.index("--pool") + 1] == "threads"
        assert cmd[cmd.index("--concurrency") + 1] == "16" and cmd[0] == sys.executable
    assert len({cmd[cmd.index("-n") + 1] for cmd in turns}) == 4  # each its own node name
    for name in ("worker", "embedder"):
        assert commands[name][:3] == ["nice", "-n", str(BACKGROUND_NICE)]
    assert commands["web"][0] == sys.executable  # the web and beat keep their priority
    # Fewer cores: up to two processes a core while a process would hold more than 16 threads,
    # so a published turn's pick-up waits among fewer threads for the lock (session 19).
    for cores, layout in ((1, (2, 32)), (2, (4, 16)), (8, (8, 8))):
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        assert turn_worker_layout() == layout
    # An operator can say otherwise.
    monkeypatch.setenv("TURN_WORKERS", "1")
    monkeypatch.setenv("WORKER_CONCURRENCY", "8")
    (only,) = [cmd for name, cmd in stack_commands("127.0.0.1:8000").items() if name.startswith("turns")]
    assert only[only.index("--concurrency") + 1] == "8"


@pytest.mark.parametrize(
    ("broker", "takes_only_when_free"), [("redis://127.0.0.1:6379/0", "True"), ("filesystem://", "False")]
)
def test_a_worker_on_redis_takes_a_task_only_when_a_slot_is_free(broker, takes_only_when_free):
    """Issue #25: with several turn-worker processes on one queue, a process whose threads were
    all busy still reserved turns (4 × its threads) that another process could have started at
    once. On Redis each worker now fetches only while it has a free slot; other brokers ignore it."""
    env = {k: v for k, v in os.environ.items() if k != "CELERY_WORKER_DISABLE_PREFETCH"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.base", CELERY_BROKER_URL=broker)
    code = "import django; django.setup(); from config.celery import app; print(app.conf.worker_disable_prefetch)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == takes_only_when_free
