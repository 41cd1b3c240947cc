"""Shared fixtures: the four roles, a real worker, the fake Anthropic server."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import connection

from agents.checkpointer import close_shared_saver
from agents.streaming import stop_listener
from config.celery import app
from liamemory.roles import COMPLIANCE_GROUP
from tests.factories import UserFactory
from tests.fake_anthropic import FakeAnthropicServer
from tests.worker import WorkerProcess
from usecases import turns


@pytest.fixture(scope="session", autouse=True)
def _close_checkpointer_pool(django_db_setup):
    """The checkpointer's pool must let go of the test database before it is dropped."""
    yield

    close_shared_saver()
    stop_listener()


@pytest.fixture
def alice(db):
    """The owner in most tests."""
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    """Another end user: must never see alice's data."""
    return UserFactory(username="bob")


@pytest.fixture
def staff(db):
    return UserFactory(username="charlie_staff", is_staff=True)


@pytest.fixture
def compliance(db):
    user = UserFactory(username="dora_compliance")
    user.groups.add(Group.objects.get(name=COMPLIANCE_GROUP))
    return user


def redis_available() -> bool:
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        return False
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


def pytest_collection_modifyitems(config, items) -> None:
    if redis_available():
        return
    skip = pytest.mark.skip(reason="needs the Redis broker (CELERY_BROKER_URL=redis://...); .ci/run sets it")
    for item in items:
        if "redis" in item.keywords:
            item.add_marker(skip)


_SESSION_WORKERS: list[WorkerProcess] = []


@pytest.fixture(scope="session")
def worker_process(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[WorkerProcess]:
    """One real Celery worker (-P solo) for the session, on the test database."""

    with django_db_blocker.unblock():
        app.control.purge()
        proc = WorkerProcess(tmp_path_factory.mktemp("worker") / "worker.log").start()
    _SESSION_WORKERS.append(proc)
    yield proc
    _SESSION_WORKERS.remove(proc)
    proc.stop()


def _commits_rows(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("django_db")
    if marker is not None and marker.kwargs.get("transaction"):
        return True
    return bool({"transactional_db", "live_server"} & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Let the session's worker finish before a transactional test's tables are truncated.

    Such a test may enqueue tasks without asking for the ``worker`` fixture (a memory's
    embedding after ``memory_remember``); once an earlier test started the session worker,
    it runs them, and a task holding row locks while the flush truncates deadlocks the flush.
    This runs before any fixture is torn down.
    """
    if _SESSION_WORKERS and _commits_rows(item):
        _SESSION_WORKERS[0].wait_idle()


@pytest.fixture
def worker(transactional_db, worker_process) -> Iterator[WorkerProcess]:
    """A running worker; the test's rows are committed so the worker sees them.

    On teardown it waits for the worker to go idle before the database is flushed.
    """
    if worker_process.held_off:
        worker_process.start()
    if worker_process.proc.poll() is not None:
        pytest.fail(f"the worker died:\n{worker_process.log()[-4000:]}")
    yield worker_process
    worker_process.wait_idle()


@pytest.fixture
def session_worker_held_off() -> Iterator[None]:
    """Keep the session's worker, if an earlier test started it, away from this test's rows.

    A test that executes a run in its own process (to watch it stream) would otherwise race
    the worker for the run's task, sent at commit, and find the run already done ("was not
    queued"); a test of row locks would find rows locked by the worker's tasks (a message's
    vector) besides its own. The worker is stopped for the test and the next ``worker`` test
    starts it again; what this test queued is purged, never run later.
    """
    if _SESSION_WORKERS and _SESSION_WORKERS[0].proc.poll() is None:
        _SESSION_WORKERS[0].wait_idle()
        _SESSION_WORKERS[0].stop()
        _SESSION_WORKERS[0].held_off = True
    yield
    app.control.purge()


@pytest.fixture(scope="session")
def fake_anthropic_server() -> Iterator[FakeAnthropicServer]:
    server = FakeAnthropicServer().start()
    yield server
    server.stop()


@pytest.fixture
def fake_anthropic(fake_anthropic_server, settings) -> FakeAnthropicServer:
    """The fake Messages API, reset, with the product's settings pointed at it."""
    fake_anthropic_server.reset()
    settings.ANTHROPIC_API_KEY = "test-key"
    settings.ANTHROPIC_BASE_URL = fake_anthropic_server.url
    return fake_anthropic_server


@pytest.fixture
def tiny_pool() -> Iterator[None]:
    """Django's psycopg pool for this test: one connection, handed out within 0.5 s or a
    PoolTimeout (hold it with ``tests.pool.PoolHog``). The test commits its rows
    (``transaction=True``): the pool's connections are not the test's transaction."""
    connection.close()
    options = connection.settings_dict["OPTIONS"]
    options["pool"] = {"min_size": 1, "max_size": 1, "timeout": 0.5}
    try:
        yield
    finally:
        connection.close()
        connection.close_pool()
        del options["pool"]


@pytest.fixture
def tiny_checkpoint_pool(settings) -> Iterator[None]:
    """The LangGraph checkpointer's pool for this test: one connection, handed out within 0.5 s."""
    settings.CHECKPOINT_POOL_MAX_SIZE, settings.DB_POOL_TIMEOUT = 1, 0.5
    close_shared_saver()
    try:
        yield
    finally:
        close_shared_saver()


@pytest.fixture
def runs_not_enqueued() -> Iterator[None]:
    """The test plays the worker (``run_execute`` in its own thread): a submitted run's task
    is not sent, so the session's worker, once an earlier test started it, cannot take the run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(turns, "_enqueue_run", lambda run_id: None)
        yield
