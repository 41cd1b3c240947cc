"""Streaming replies: text reaches a follower while the model writes it, through the real SDK's streaming.

The runner executes in this thread (the worker's code path) against the fake Messages
API streaming word chunks; a follower in another thread reads what the run publishes,
as the web process does. Rows must be committed for it to see them: transactional tests.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection

from agents.models import Run, RunStatus
from agents.run_lifecycle import run_claim, run_fail, run_requeue_claim, run_stream_append
from agents.streaming import follow_run
from conversations.content import STOPPED_MARK
from conversations.models import Message
from conversations.services import thread_create
from tests.fake_anthropic import slow_stream, stream_error, text_reply, tool_use_reply
from tests.usecases.turn.helpers import reply_text, run_turn
from tests.utils import wait_for
from usecases.turn.offline import OfflineModel
from usecases.turn.runner import run_execute
from usecases.turns import run_cancel, turn_submit

# The runs here are executed in this process: the session's worker must not take them.
pytestmark = pytest.mark.usefixtures("session_worker_held_off")

REPLY = "One two three four five six seven eight nine ten eleven twelve."


class Follower(threading.Thread):
    """Collects a run's stream events with the time each arrived."""

    def __init__(self, run_id: str, **kw) -> None:
        super().__init__(daemon=True)
        self.run_id, self.kw = run_id, kw
        self.events: list[tuple[float, str, dict]] = []

    def run(self) -> None:
        try:
            for event in follow_run(run_id=self.run_id, **self.kw):
                self.events.append((time.monotonic(), event.kind, event.data))
        finally:
            connection.close()

    def text(self) -> str:
        return "".join(d["text"] for _, kind, d in self.events if kind == "delta")

    def first(self, kind: str) -> float | None:
        return next((t for t, k, _ in self.events if k == kind), None)


def _submit(user, thread, content: str) -> Run:
    return turn_submit(user=user, thread=thread, content=content)[1]


@pytest.mark.django_db(transaction=True)
def test_text_reaches_a_follower_while_the_model_writes_it(alice, fake_anthropic):
    fake_anthropic.script(slow_stream(text_reply(REPLY), chunk_delay=0.08))
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "count to twelve")
    follower = Follower(str(run.pk))
    follower.start()
    started = time.monotonic()
    run_execute(run_id=str(run.pk))
    finished = time.monotonic()
    follower.join(10)

    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    assert fake_anthropic.message_requests()[0]["stream"] is True  # the SDK's streaming call
    first_delta = follower.first("delta")
    # 12 words 80 ms apart: the first words arrive about a second before the reply is complete.
    assert first_delta is not None and first_delta - started < (finished - started) - 0.5
    assert len([k for _, k, _ in follower.events if k == "delta"]) >= 3
    assert follower.text() == REPLY == reply_text(run)
    assert follower.events[-1][1:] == ("end", {"status": "completed"})
    assert follower.events[-1][0] - finished < 1.0  # woken by the completion's NOTIFY, not a timeout
    # One that follows after the end still reads the whole reply (a follower behind by the last
    # words once lost them: the end cleared the streamed copy before it read the tail).
    late = Follower(str(run.pk))
    late.start()
    late.join(10)
    assert late.text() == REPLY and late.events[-1][1:] == ("end", {"status": "completed"})


@pytest.mark.django_db(transaction=True)
def test_tool_steps_stream_as_they_happen_and_the_texts_are_separated(alice, fake_anthropic):
    fake_anthropic.script(
        tool_use_reply("get_current_date", {}, text="Let me check the date."),
        text_reply("Today is a fine day."),
    )
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "what day is it?")
    follower = Follower(str(run.pk))
    follower.start()
    run_execute(run_id=str(run.pk))
    follower.join(10)

    # Kept up or fell behind (the machine loaded), a follower reads the second text after the step.
    kinds = [k for _, k, _ in follower.events]
    second = [
        i for i, (_, k, d) in enumerate(follower.events) if k == "delta" and d["text"].lstrip().startswith("Today")
    ]
    assert second and kinds.index("tool") < second[0]
    assert [d for _, k, d in follower.events if k == "tool"] == [{"name": "get_current_date"}]
    assert follower.text() == "Let me check the date.\n\nToday is a fine day."
    # One that comes after the end reads it all at once, and still sees the step between the texts.
    late = Follower(str(run.pk))
    late.start()
    late.join(10)
    assert [(k, d) for _, k, d in late.events] == [
        ("delta", {"text": "Let me check the date."}),
        ("tool", {"name": "get_current_date"}),
        ("delta", {"text": "\n\nToday is a fine day."}),
        ("end", {"status": "completed"}),
    ]


@pytest.mark.django_db(transaction=True)
def test_cancelling_a_run_stops_its_stream(alice, fake_anthropic):
    long_reply = " ".join(f"word{i}" for i in range(60))
    fake_anthropic.script(slow_stream(text_reply(long_reply), chunk_delay=0.05))  # 3 s to write
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "talk for a while")
    follower = Follower(str(run.pk))
    follower.start()

    def cancel_after_first_words() -> None:
        deadline = time.monotonic() + 10
        while follower.first("delta") is None and time.monotonic() < deadline:
            time.sleep(0.02)
        run_cancel(run=Run.objects.get(pk=run.pk))
        connection.close()

    canceller = threading.Thread(target=cancel_after_first_words)
    canceller.start()
    started = time.monotonic()
    run_execute(run_id=str(run.pk))
    elapsed = time.monotonic() - started
    canceller.join(10)
    follower.join(10)

    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert elapsed < 2.0  # the worker stopped reading the model's stream
    assert follower.events[-1][1:] == ("end", {"status": "cancelled"})
    assert len(follower.text()) < len(long_reply)
    # What was written until then is kept, marked as stopped: at least what the follower saw.
    stopped = Message.objects.get(thread=thread, role="assistant", run=run)
    assert stopped.content[-1] == {"type": "text", "text": STOPPED_MARK}
    assert stopped.content[0]["text"].startswith(follower.text()) and len(stopped.content[0]["text"]) < len(long_reply)


@pytest.mark.django_db(transaction=True)
def test_the_stored_reply_is_the_same_with_and_without_streaming(alice, fake_anthropic, settings):
    stored = {}
    for streaming in (True, False):
        settings.STREAM_REPLIES = streaming
        fake_anthropic.script(
            tool_use_reply("get_current_date", {}, text="Checking.", tool_id="toolu_same"),
            slow_stream(text_reply(REPLY, input_tokens=40, output_tokens=12), chunk_delay=0.01),
        )
        thread = thread_create(owner=alice)
        run = run_turn(alice, thread, "what day is it?")
        msgs = Message.objects.filter(thread=thread).order_by("sequence")
        stored[streaming] = (
            [(m.role, m.content) for m in msgs if m.role != "tool"],
            (run.tokens_in, run.tokens_out, run.status),
        )
    assert stored[True] == stored[False]
    assert fake_anthropic.message_requests()[0]["stream"] is True
    assert "stream" not in fake_anthropic.message_requests()[-1]


@pytest.mark.django_db(transaction=True)
def test_a_stream_that_fails_midway_fails_the_run_and_keeps_the_message(alice, fake_anthropic):
    fake_anthropic.script(stream_error("overloaded_error", after_words=3))
    thread = thread_create(owner=alice)
    run = run_turn(alice, thread, "hello?")
    assert run.status == RunStatus.FAILED and run.error_code == "model_unavailable"
    assert Message.objects.filter(thread=thread, role="user").count() == 1
    assert not Message.objects.filter(thread=thread, role="assistant").exists()


@pytest.mark.django_db(transaction=True)
def test_a_follower_resumes_from_its_cursor(alice, fake_anthropic):
    # Words a second apart: the follower reconnects while the run still writes, even on a
    # loaded machine.
    fake_anthropic.script(slow_stream(text_reply(REPLY), chunk_delay=1.0))
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "count")
    runner = threading.Thread(target=lambda: (run_execute(run_id=str(run.pk)), connection.close()))
    runner.start()
    first = next(e for e in follow_run(run_id=str(run.pk)) if e.kind == "delta")
    connection.close()
    # A client that saw the first words and reconnects with the last id gets the rest, nothing twice.
    rest = [e for e in follow_run(run_id=str(run.pk), cursor=first.cursor)]
    runner.join(10)
    assert first.data["text"] + "".join(e.data["text"] for e in rest if e.kind == "delta") == REPLY
    assert rest[-1].kind == "end"
    # Reconnecting after the end still gets what the cursor had not read, then the end.
    after = [(e.kind, e.data) for e in follow_run(run_id=str(run.pk), cursor="5.0")]
    assert after == [("delta", {"text": REPLY[5:]}), ("end", {"status": "completed"})]


def test_the_offline_model_streams_its_reply_in_words():
    chunks: list[str] = []
    model = OfflineModel()
    messages = [{"role": "user", "content": [{"type": "text", "text": "hello there, how are you?"}]}]
    reply = model.complete(system=[], messages=messages, tools=[], max_tokens=100, on_text=chunks.append)
    assert len(chunks) > 3
    assert "".join(chunks) == reply.text


@pytest.mark.django_db(transaction=True)
def test_the_events_api_streams_deltas_then_the_run(alice, fake_anthropic, client):
    from rest_framework.authtoken.models import Token

    fake_anthropic.script(slow_stream(text_reply(REPLY), chunk_delay=0.05))
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "count to twelve")
    token = Token.objects.create(user=alice)

    def work() -> None:
        time.sleep(0.2)
        run_execute(run_id=str(run.pk))
        connection.close()

    worker = threading.Thread(target=work)
    worker.start()
    response = client.get(
        f"/api/runs/{run.pk}/events", HTTP_AUTHORIZATION=f"Token {token.key}", HTTP_ACCEPT="text/event-stream"
    )
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    events = []
    for chunk in response.streaming_content:
        for block in chunk.decode().split("\n\n"):
            lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
            if "event" in lines:
                events.append((lines["event"], json.loads(lines["data"]), lines.get("id")))
    worker.join(10)
    deltas = [d["text"] for kind, d, _ in events if kind == "delta"]
    assert len(deltas) >= 2 and "".join(deltas) == REPLY
    kind, final, _ = events[-1]
    assert kind == "run" and final["status"] == "completed" and final["reply"]["text"] == REPLY
    assert events[0][2] and events[0][2] != events[-2][2]  # ids are cursors that advance


@pytest.mark.django_db
def test_another_users_run_events_answer_404(alice, bob, client):
    from rest_framework.authtoken.models import Token

    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "private")
    token = Token.objects.create(user=bob)
    response = client.get(f"/api/runs/{run.pk}/events", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 404
    assert response.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "cursor", ["2147483647.0", "0.2147483647", "99999999999999999999.0", "-1.0", "abc", "1.2.3.4", "1.2."]
)
def test_an_events_cursor_out_of_range_or_malformed_answers_400_before_any_stream(alice, client, cursor):
    from rest_framework.authtoken.models import Token

    run = run_turn(alice, thread_create(owner=alice), "hello")
    assert run.status == "completed"
    token = Token.objects.create(user=alice)
    auth = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    by_query = client.get(f"/api/runs/{run.pk}/events", {"cursor": cursor}, **auth)
    by_header = client.get(f"/api/runs/{run.pk}/events", HTTP_LAST_EVENT_ID=cursor, **auth)
    for response in (by_query, by_header):
        assert response.status_code == 400, response
        assert "cursor" in response.json()["message"]


@pytest.mark.django_db
def test_the_largest_cursor_a_reply_can_reach_still_streams(alice, client):
    from rest_framework.authtoken.models import Token

    run = run_turn(alice, thread_create(owner=alice), "hello")
    token = Token.objects.create(user=alice)
    response = client.get(
        f"/api/runs/{run.pk}/events", {"cursor": "2147483646.7"}, HTTP_AUTHORIZATION=f"Token {token.key}"
    )
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    assert "event: run" in body and "Traceback" not in body


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("runs_not_enqueued")
def test_a_run_that_starts_over_tells_its_followers_and_streams_the_new_text_from_its_start(alice):
    """A run sent back to the queue (an outage, a dead worker) writes its reply again from
    the start. A follower that showed the first attempt's words used to get the second
    attempt's text from its old position (words cut in the middle, or nothing)."""
    thread = thread_create(owner=alice)
    run = _submit(alice, thread, "count")
    first_claim = run_claim(run_id=run.pk)
    run_stream_append(run_id=run.pk, text="The first attempt's words")
    live = Follower(str(run.pk))
    live.start()
    wait_for(lambda: live.text(), timeout=10, what="the first attempt's words")
    seen = next(e for e in follow_run(run_id=str(run.pk)) if e.kind == "delta")
    connection.close()

    assert run_requeue_claim(run_id=run.pk, started_at=first_claim) and run_claim(run_id=run.pk)
    run_stream_append(run_id=run.pk, text="Second")
    run_fail(run_id=run.pk, code="timeout", message="slow")
    live.join(10)

    kinds = [kind for _, kind, _ in live.events]
    assert kinds == ["delta", "restart", "delta", "end"], live.events
    assert live.events[2][2] == {"text": "Second"}
    # A client reconnecting with the first attempt's cursor is told too.
    again = [(e.kind, e.data, e.cursor) for e in follow_run(run_id=str(run.pk), cursor=seen.cursor)]
    assert [(kind, data) for kind, data, _ in again] == [
        ("restart", {}),
        ("delta", {"text": "Second"}),
        ("end", {"status": "failed"}),
    ]
    assert seen.cursor == f"{len(seen.data['text'])}.0.1" and again[0][2] == "0.0.2"
