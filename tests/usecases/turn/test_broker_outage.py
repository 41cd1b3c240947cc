"""A broker outage as a person sends a message: the message is kept, and answered once the broker is back.

The broker is a redis-server of this test's own on a free loopback port, because the test stops it
and starts it again (the shared Redis is never touched, as ``test_database_outage.py`` has its own
PostgreSQL). On it run the web server (``make run``'s) and a real worker, on the test database.

A first turn goes through, so the web process holds a live broker connection. Then the broker
stops, and a message is sent through the API and another through the page's form (no script).
Each is accepted within seconds (202; the form's redirect), stored once with its run queued, and
the page and the run's event stream show the reply being written, never an error. The broker comes
back after ``OUTAGE_SECONDS``, empty (a restart without persistence): both replies arrive soon
after, without the reaper (``RUN_QUEUED_STALE_AFTER``, 3 minutes), and each thread takes a new
message. So too a memory corrected through the API in an outage (kept, 200, its vector made after
the broker's return), and a task the worker sends as a turn ends in an outage (the after-turn check
of the person's message, run after the return): every send goes through ``liamemory.task_sending``.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rest_framework.authtoken.models import Token

from agents.models import Run
from conversations.models import Message
from liamemory import embeddings
from memories.embedding_services import content_md5
from memories.models import Memory, MemoryEmbedding
from tests.fake_anthropic import delay_reply, text_reply
from tests.server import free_port, runserver, served
from tests.worker import WorkerProcess

pytestmark = [
    pytest.mark.smoke,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        shutil.which("redis-server") is None,
        reason="needs redis-server on PATH: the test stops and starts a broker of its own",
    ),
]

PASSWORD = "pw-for-tests-only"  # tests.factories.UserFactory's
# Longer than the request's own tries to publish (Celery's task_publish_retry_policy, about a second).
OUTAGE_SECONDS = 12
# A message sent in the outage is answered within this long (the request's tries, then the answer).
ACCEPTED_WITHIN = 6.0
# Both replies arrive within this long of the broker's return: the worker's reconnection (Celery's
# own, 2, 4, 6 … s apart: after 12 s of outage its next try is at most 8 s away) and the resend of the
# message's task; far under the reaper's three minutes plus its minute.
AFTER_THE_BROKER = 40


class PrivateRedis:
    """A redis-server of the test's own: no persistence, so a restart comes back empty."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        cmd += ["--dir", str(self.root), "--logfile", str(self.root / "redis.log")]
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while not self.answers():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log()
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        assert not self.answers()

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def log(self) -> str:
        path = self.root / "redis.log"
        return path.read_text()[-3000:] if path.exists() else ""


class Stack:
    def __init__(self, base: str, redis: PrivateRedis, worker: WorkerProcess, web_log: Path) -> None:
        self.base, self.redis, self.worker, self.web_log = base, redis, worker, web_log

    def output(self) -> str:
        return f"--- web\n{self.web_log.read_text()[-6000:]}\n--- worker\n{self.worker.log()[-6000:]}"


@pytest.fixture
def stack(transactional_db, tmp_path) -> Iterator[Stack]:
    yield from _stack(tmp_path)


@pytest.fixture
def stack_on_the_fake_model(transactional_db, tmp_path, fake_anthropic_server) -> Iterator[Stack]:
    """The stack with its model the fake Messages API, whose delay keeps a turn at the model."""
    fake_anthropic_server.reset()
    try:
        yield from _stack(tmp_path, LIAMEMORY_FAKE_ANTHROPIC_URL=fake_anthropic_server.url, MODEL_MAX_RETRIES="0")
    finally:
        fake_anthropic_server.reset()


def _stack(tmp_path: Path, **extra_env: str) -> Iterator[Stack]:
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {"CELERY_BROKER_URL": redis.url, **extra_env}
    worker = WorkerProcess(tmp_path / "worker.log", extra_env=env, pool=("--pool", "threads", "--concurrency", "2"))
    port = free_port()
    try:
        worker.start(timeout=60)
        with served(runserver(port), port, tmp_path / "web.log", extra_env=env) as base:
            yield Stack(base, redis, worker, tmp_path / "web.log")
            if not redis.answers():
                redis.start()
            worker.wait_idle()
    finally:
        worker.stop()
        if redis.proc and redis.proc.poll() is None:
            redis.proc.terminate()
            redis.proc.wait(10)


def _wait_ended(http: httpx.Client, run_id: str, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        run = http.get(f"/api/runs/{run_id}").json()
        if run["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return run
        time.sleep(0.3)


def _signed_in(base: str, username: str) -> httpx.Client:
    page = httpx.Client(base_url=base, timeout=15)
    form = page.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    form_data = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
    signed = page.post("/accounts/login/", data=form_data)
    assert signed.status_code == 302, signed.text[:500]
    return page


def _follow_events(http: httpx.Client, run_id: str, into: list[str]) -> None:
    """The run's event stream, as the chat page reads it, to its end (or the stream's time limit)."""
    with http.stream("GET", f"/api/runs/{run_id}/events", timeout=httpx.Timeout(15, read=AFTER_THE_BROKER * 2)) as r:
        into.append(f"status: {r.status_code}")
        lines = r.iter_lines()
        for line in lines:
            into.append(line)
            if line.startswith(("event: run", "event: gone")):
                into.append(next(lines, ""))
                return


def test_a_message_sent_while_the_broker_is_down_is_kept_and_answered_once_it_is_back(alice, stack):
    token = Token.objects.create(user=alice).key
    api = httpx.Client(base_url=stack.base, headers={"Authorization": f"Token {token}"}, timeout=15)
    page = _signed_in(stack.base, alice.username)
    by_api, by_page = (api.post("/api/threads", json={}).raise_for_status().json()["id"] for _ in range(2))
    # A first turn: the web process holds a live broker connection when the broker stops.
    first = api.post(f"/api/threads/{by_api}/messages", json={"content": "hello"}).json()["run"]["id"]
    assert _wait_ended(api, first, 60)["status"] == "completed", stack.output()

    stack.redis.stop()
    stopped = time.monotonic()
    started = time.monotonic()
    sent = api.post(f"/api/threads/{by_api}/messages", json={"content": "remember that my order number is A-7781"})
    api_took = time.monotonic() - started
    # The person is told the message was taken, and it was: stored once, its run waiting.
    assert sent.status_code == 202, (sent.status_code, sent.text[:300], stack.output())
    assert api_took < ACCEPTED_WITHIN, api_took
    run_id = sent.json()["run"]["id"]
    assert sent.json()["run"]["status"] == "queued"
    listed = [m["content"] for m in api.get(f"/api/threads/{by_api}/messages").json()["results"]]
    assert sum("A-7781" in str(c) for c in listed) == 1
    assert api.get(f"/api/runs/{run_id}").json()["status"] == "queued"
    # The event stream the page follows stays open, no error, until the reply is written.
    events: list[str] = []
    follower = threading.Thread(target=_follow_events, args=(api, run_id, events), daemon=True)
    follower.start()

    # The page without script: the form's send is taken too, and the page shows the reply being written.
    chat = page.get(f"/c/{by_page}/").text
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', chat).group(1)
    started = time.monotonic()
    form = page.post(f"/c/{by_page}/send", data={"content": "I work at Acme in Turin", "csrfmiddlewaretoken": csrf})
    page_took = time.monotonic() - started
    assert form.status_code == 302 and form.headers["Location"] == f"/c/{by_page}/", (form.status_code, form.text[:300])
    assert page_took < ACCEPTED_WITHIN, page_took
    shown = page.get(f"/c/{by_page}/").text
    assert "I work at Acme in Turin" in shown and 'data-status="queued"' in shown and "is thinking…" in shown
    assert "run-error" not in shown
    page_run = str(Run.objects.filter(thread_id=by_page).get().pk)

    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
    assert {r.status for r in Run.objects.filter(pk__in=[run_id, page_run])} == {"queued"}
    stack.redis.start()
    back = time.monotonic()

    api_run = _wait_ended(api, run_id, AFTER_THE_BROKER)
    page_ended = _wait_ended(api, page_run, max(1.0, AFTER_THE_BROKER - (time.monotonic() - back)))
    answered_after = time.monotonic() - back
    assert (api_run["status"], page_ended["status"]) == ("completed", "completed"), (
        f"{answered_after:.0f} s after the broker came back: {api_run['status']}, {page_ended['status']}\n"
        f"{stack.output()}"
    )
    print(f"API {api_took:.2f} s, form {page_took:.2f} s in the outage; both answered {answered_after:.1f} s after")
    assert api_run["reply"] and "A-7781" in str(api_run["reply"]), api_run
    follower.join(15)
    assert "status: 200" in events and "event: run" in events, events
    assert '"status": "completed"' in events[-1] and "event: gone" not in events, events
    final = page.get(f"/c/{by_page}/").text
    assert "msg-assistant" in final and "is thinking…" not in final and "run-error" not in final

    # Each message once, each turn one run, and both threads take a new message.
    for thread_id, text in ((by_api, "A-7781"), (by_page, "Acme in Turin")):
        said = [m for m in Message.objects.filter(thread_id=thread_id, role="user") if text in m.text]
        assert len(said) == 1
        assert Run.objects.filter(thread_id=thread_id, request_message=said[0]).count() == 1
        again = api.post(f"/api/threads/{thread_id}/messages", json={"content": "still there?"})
        assert again.status_code == 202, again.text
        assert _wait_ended(api, again.json()["run"]["id"], 60)["status"] == "completed"


def _wait_for(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.3)
    return True


def _has_vector(memory_id: int) -> bool:
    """Whether the memory has the vector of its current content (``embed_memories``' work)."""
    content = Memory.objects.get(pk=memory_id).content
    return MemoryEmbedding.objects.filter(memory_id=memory_id, content_md5=content_md5(content)).exists()


@pytest.mark.skipif(not embeddings.enabled(), reason="needs embeddings: the memory's vector is the task sent")
def test_a_memory_corrected_while_the_broker_is_down_is_kept_and_gets_its_vector_once_it_is_back(alice, stack):
    token = Token.objects.create(user=alice).key
    api = httpx.Client(base_url=stack.base, headers={"Authorization": f"Token {token}"}, timeout=15)
    wrong = Memory.objects.create(user=alice, content="order number is A-7780")
    # A first correction: the web process holds a live broker connection when the broker stops.
    first = api.patch(f"/api/me/memories/{wrong.pk}", json={"content": "order number is A-7781"}).json()["id"]
    assert _wait_for(lambda: _has_vector(first), 60), stack.output()

    stack.redis.stop()
    stopped = time.monotonic()
    started = time.monotonic()
    saved = api.patch(f"/api/me/memories/{first}", json={"content": "order number is B-2290"})
    took = time.monotonic() - started
    # The person is told the correction was kept, and it was: once, active, its vector to come.
    assert saved.status_code == 200, (saved.status_code, saved.text[:300], stack.output())
    assert took < ACCEPTED_WITHIN, took
    memory_id = saved.json()["id"]
    listed = [(m["content"], m["status"]) for m in api.get("/api/me/memories").json()["results"]]
    assert listed.count(("order number is B-2290", "active")) == 1, listed
    assert Memory.objects.get(pk=first).status == "superseded"

    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
    assert not _has_vector(memory_id)
    stack.redis.start()
    back = time.monotonic()
    assert _wait_for(lambda: _has_vector(memory_id), AFTER_THE_BROKER), (
        f"no vector {time.monotonic() - back:.0f} s after the broker came back\n{stack.output()}"
    )
    print(f"kept in {took:.2f} s in the outage; its vector {time.monotonic() - back:.1f} s after the broker's return")


def _checks_done(stack: Stack) -> int:
    return len(re.findall(r"Task memories\.message_changes_memory\[[0-9a-f-]+\] succeeded", stack.worker.log()))


def test_a_task_the_worker_sends_while_the_broker_is_down_runs_once_it_is_back(
    alice, stack_on_the_fake_model, fake_anthropic_server
):
    """The turn ends in the worker during the outage: its after-turn check of the person's message
    (``check_message_changes``, sent on the run's commit) waits in the worker and runs after."""
    stack = stack_on_the_fake_model
    token = Token.objects.create(user=alice).key
    api = httpx.Client(base_url=stack.base, headers={"Authorization": f"Token {token}"}, timeout=15)
    thread = api.post("/api/threads", json={}).raise_for_status().json()["id"]
    first = api.post(f"/api/threads/{thread}/messages", json={"content": "hello"}).json()["run"]["id"]
    assert _wait_ended(api, first, 60)["status"] == "completed", stack.output()
    assert stack.worker.wait_idle(), stack.output()
    checked = _checks_done(stack)

    fake_anthropic_server.script(delay_reply(6.0, text_reply("Noted, A-7781.")))
    asked = len(fake_anthropic_server.message_requests())
    sent = api.post(f"/api/threads/{thread}/messages", json={"content": "remember that my order number is A-7781"})
    run_id = sent.json()["run"]["id"]
    assert _wait_for(lambda: len(fake_anthropic_server.message_requests()) > asked, 30), stack.output()
    stack.redis.stop()  # the turn is at the model: it ends, and sends its tasks, in the outage
    stopped = time.monotonic()
    assert _wait_for(lambda: Run.objects.get(pk=run_id).status == "completed", OUTAGE_SECONDS), stack.output()
    assert _checks_done(stack) == checked

    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
    stack.redis.start()
    back = time.monotonic()
    ran = _wait_for(lambda: _checks_done(stack) == checked + 1, AFTER_THE_BROKER)
    assert ran, f"not run {time.monotonic() - back:.0f} s after the broker came back\n{stack.output()}"
    print(f"the worker's task ran {time.monotonic() - back:.1f} s after the broker's return")
