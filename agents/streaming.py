"""Streaming replies: the worker publishes a run's text as the model writes it, the web follows it.

Where it lives: on the run's own row (``partial_text``, ``partial_steps``), appended by
one conditional UPDATE that also sends a PostgreSQL ``NOTIFY`` with the run id. So no
new server is needed, a cancelled or erased run takes no more text (the UPDATE wants
``running``: the worker then stops reading the model's stream), the partial reply is
deleted with the run by the purge and the erasure like every other column of it, and
it is cleared when the run completes (the messages hold the reply).

The worker side (:class:`RunStream`) coalesces the model's small deltas: the first
piece of each message is written at once, the rest at most every
``STREAM_FLUSH_SECONDS``, so a fast model costs a few writes per turn, not one per token.

The web side (:func:`follow_run`) waits on one ``LISTEN`` connection per process
(:class:`_Listener`, a thread) and reads only the new tail of the row when woken; while
waiting it holds no database connection of its own. If the listener cannot connect
(a transaction pooler refuses ``LISTEN``), followers poll the row every quarter second.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection

from agents import run_lifecycle, selectors
from agents.checkpointer import conninfo
from agents.state_machine import RUN_EVENTS_CHANNEL, WORKING
from liamemory.errors import ApplicationError

logger = logging.getLogger(__name__)

MESSAGE_SEPARATOR = "\n\n"


def release_db_connection() -> None:
    """Hand this thread's database connection back to the pool before a long wait (a model call).

    Only with ``DB_POOL_MAX_SIZE`` set: then a closed connection returns to the
    process's pool and many turns waiting on the model hold few connections. Without
    a pool closing would cost a reconnect, so the connection is kept.
    """
    if settings.DATABASES["default"].get("OPTIONS", {}).get("pool") and not connection.in_atomic_block:
        connection.close()


class RunStream:
    """The worker's publisher for one run: text deltas and tool steps, coalesced in time."""

    def __init__(self, run_id: uuid.UUID | str, flush_seconds: float | None = None) -> None:
        self.run_id = str(run_id)
        self.flush_seconds = settings.STREAM_FLUSH_SECONDS if flush_seconds is None else flush_seconds
        self._buffer: list[str] = []
        self._last_flush = 0.0
        self._message_has_text = False
        self._separator_due = False
        self._written = 0

    def text(self, delta: str) -> None:
        """A piece of the model's text; raises ``RunNoLongerActive`` when the run was cancelled."""
        if not delta:
            return
        if self._separator_due:
            self._buffer.append(MESSAGE_SEPARATOR)
            self._separator_due = False
        self._buffer.append(delta)
        self._message_has_text = True
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def end_message(self) -> None:
        """The model's message is complete: write what is buffered; the next message's text starts a paragraph."""
        self.flush()
        if self._message_has_text:
            self._separator_due = True
        self._message_has_text = False

    def tool(self, name: str) -> None:
        """A tool step starts (shown as it happens), with where in the text it came (``at``).

        A follower that fell behind reads text and steps together; the position lets it
        show the step between the texts around it, as one that kept up saw it.
        """
        self._write(steps=[{"name": name, "at": self._written + sum(map(len, self._buffer))}])

    def flush(self) -> None:
        if self._buffer:
            self._write()

    def _write(self, steps: list[dict[str, Any]] | None = None) -> None:
        text, self._buffer = "".join(self._buffer), []
        self._written += len(text)
        self._last_flush = time.monotonic()
        active = run_lifecycle.run_stream_append(run_id=self.run_id, text=text, steps=steps)
        release_db_connection()
        if not active:
            raise run_lifecycle.RunNoLongerActive(self.run_id)


class _Listener:
    """One ``LISTEN`` connection per web process, waking the followers of a run when it moves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[threading.Event]] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._conn: Any = None
        self.healthy = False
        self.pid = os.getpid()

    def subscribe(self, run_id: str) -> threading.Event:
        event = threading.Event()
        with self._lock:
            self._waiters.setdefault(run_id, set()).add(event)
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._loop, name="run-events-listener", daemon=True)
                self._thread.start()
        return event

    def unsubscribe(self, run_id: str, event: threading.Event) -> None:
        with self._lock:
            waiters = self._waiters.get(run_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[run_id]

    def _wake(self, run_id: str) -> None:
        with self._lock:
            for event in self._waiters.get(run_id, ()):
                event.set()

    def _wake_all(self) -> None:
        with self._lock:
            for events in self._waiters.values():
                for event in events:
                    event.set()

    def _loop(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo(), autocommit=True) as conn:
                    self._conn = conn
                    conn.execute(f"LISTEN {RUN_EVENTS_CHANNEL}")
                    self.healthy = True
                    self._wake_all()  # anything written while we were not listening
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            self._wake(note.payload)
            except Exception as exc:  # the database restarted, or LISTEN is refused
                if self._stop.is_set():
                    break
                logger.warning("run events listener: %s; followers poll meanwhile", type(exc).__name__)
                self.healthy = False
                self._stop.wait(2.0)
            finally:
                self._conn = None
                self.healthy = False

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(5)
        self._thread = None


_listener: _Listener | None = None
_listener_lock = threading.Lock()


def listener() -> _Listener:
    """This process's listener (made after a fork, never inherited)."""
    global _listener
    with _listener_lock:
        if _listener is None or _listener.pid != os.getpid():
            _listener = _Listener()
        return _listener


def stop_listener() -> None:
    """Close the listener's connection (tests, before the test database is dropped)."""
    global _listener
    with _listener_lock:
        if _listener is not None and _listener.pid == os.getpid():
            _listener.stop()
        _listener = None


@dataclass
class StreamEvent:
    kind: str  # "delta" | "tool" | "restart" | "end" | "ping" | "gone"
    data: dict[str, Any]
    cursor: str


# The largest position a cursor may name: PostgreSQL reads the text from position + 1,
# a 32-bit integer (a reply is far shorter than 2 GB anyway).
CURSOR_MAX = 2**31 - 2
_CURSOR = re.compile(r"([0-9]{1,10})\.([0-9]{1,10})(?:\.([0-9]{1,10}))?")


def parse_cursor(value: str | None) -> tuple[int, int, int | None]:
    """``"<characters>.<steps>.<attempt>"`` (an SSE ``Last-Event-ID``; the attempt may be
    left out); none starts from the beginning.

    The attempt is the run's claims when the positions were read: a run the database or
    a dead worker sent back to the queue writes its reply again from the start, and a
    follower that read the first attempt's text is told so (``restart``) instead of
    getting the new text from its old position. Anything else is refused (a 400 before
    the stream starts): a position past what the database can read would otherwise break
    the stream after its 200.
    """
    if not value:
        return 0, 0, None
    match = _CURSOR.fullmatch(value)
    numbers = tuple(int(part) for part in match.groups() if part is not None) if match else ()
    if not numbers or max(numbers) > CURSOR_MAX:
        raise ApplicationError(
            f"The cursor must be whole numbers 'characters.steps' or 'characters.steps.attempt', "
            f"each at most {CURSOR_MAX}.",
            {"field": "cursor"},
        )
    return numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else None


def _cursor(text_pos: int, steps_pos: int, attempt: int | None) -> str:
    return f"{text_pos}.{steps_pos}" if attempt is None else f"{text_pos}.{steps_pos}.{attempt}"


def _in_order(tail: str, text_pos: int, steps: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """The new text and steps as they were written: each step after the text before its ``at``.

    A step without a position (written before positions were kept) follows the whole tail.
    """
    for step in steps:
        at = step.get("at")
        cut = len(tail) if at is None else max(0, min(len(tail), at - text_pos))
        yield tail[:cut], {"name": step["name"]}
        tail, text_pos = tail[cut:], text_pos + cut
    if tail:
        yield tail, None


def follow_run(
    *, run_id: str, cursor: str | None = None, max_seconds: float | None = None, keepalive: float = 10.0
) -> Iterator[StreamEvent]:
    """What a run writes, as it writes it, until it leaves ``queued``/``running`` (the last event is ``end``).

    The caller has checked that the run is the user's. Between reads no database
    connection is held (it is closed, or handed back to the pool), so a web thread
    following a two-second model call costs the database nothing while it waits.
    """
    text_pos, steps_pos, attempt = parse_cursor(cursor)
    max_seconds = settings.STREAM_MAX_SECONDS if max_seconds is None else max_seconds
    source = listener()
    run_key = str(run_id)
    woken = source.subscribe(run_key)
    deadline = time.monotonic() + max_seconds
    last_sent = time.monotonic()
    try:
        while True:
            woken.clear()
            partial = selectors.run_partial_reply(run_id=run_key, text_from=text_pos, steps_from=steps_pos)
            if partial is None:
                yield StreamEvent("gone", {}, _cursor(text_pos, steps_pos, attempt))
                return
            if attempt is not None and partial.attempt != attempt and (text_pos or steps_pos):
                # Claimed again since the follower's last read: what it shows is another
                # attempt's text, and this one writes the reply from its start.
                attempt, text_pos, steps_pos = partial.attempt, 0, 0
                yield StreamEvent("restart", {}, _cursor(0, 0, attempt))
                continue
            attempt = partial.attempt
            for text, step in _in_order(partial.text, text_pos, partial.steps):
                if text:
                    text_pos += len(text)
                    yield StreamEvent("delta", {"text": text}, _cursor(text_pos, steps_pos, attempt))
                if step is not None:
                    steps_pos += 1
                    yield StreamEvent("tool", step, _cursor(text_pos, steps_pos, attempt))
                last_sent = time.monotonic()
            if partial.status not in WORKING:
                yield StreamEvent("end", {"status": partial.status}, _cursor(text_pos, steps_pos, attempt))
                return
            if not connection.in_atomic_block:
                connection.close()
            now = time.monotonic()
            if now >= deadline:
                return  # the client reconnects with its cursor
            woken.wait(min(deadline - now, 2.0 if source.healthy else 0.25))
            if not woken.is_set() and time.monotonic() - last_sent >= keepalive:
                yield StreamEvent("ping", {}, _cursor(text_pos, steps_pos, attempt))
                last_sent = time.monotonic()
    finally:
        source.unsubscribe(run_key, woken)
