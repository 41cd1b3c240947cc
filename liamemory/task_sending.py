"""Sending a task through a broker outage: what was committed is sent as soon as the broker is back.

Every task the product sends goes through here, from the web process and from the worker alike (a
turn's run, a message's or a memory's vector, the after-turn check and summary, an erasure, the
reapers' sends again); ``tests/liamemory/test_task_sending.py`` fails on a direct ``delay``.
A task is enqueued once its rows are committed. When the broker
refuses it (Redis restarting, unreachable), Celery's own publish retries (``task_publish_retry_policy``:
three more tries within about a second) end in kombu's ``OperationalError``, after the commit: the
request would answer 500 for a message that was saved, and its run wait for the reaper's
``RUN_QUEUED_STALE_AFTER``. Instead the task joins this process's resender, a thread that sends the
waiting tasks again, oldest first, every ``RESEND_EVERY_MAX`` seconds at most, until the broker takes
them. While it holds any, a new task joins the line at once: the order is kept, and a request in an
outage does not spend a second on tries bound to fail.

What the resender holds lives in the process: a process that dies with tasks waiting leaves them to
the reapers (a run still queued is sent again after ``RUN_QUEUED_STALE_AFTER``, an erasure asked for
after ``ERASURE_START_STALE_AFTER``), to the ``embeddings_backfill`` command (vectors) and to the
thread's next turn (its summary), as before; an after-turn check is lost. Past ``RESEND_FOR`` a task
is dropped, logged.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from celery import Task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

logger = logging.getLogger(__name__)

RESEND_EVERY_FIRST = 0.5
RESEND_EVERY_MAX = 2.0
# Well past the reaper's sending again of a queued run (RUN_QUEUED_STALE_AFTER, 3 minutes): a run
# waiting longer is also the reaper's, but the resender sends it within seconds of the broker's return.
RESEND_FOR = 600.0


@dataclass
class _Waiting:
    task: Task
    args: tuple[Any, ...]
    since: float = field(default_factory=time.monotonic)


class _Resender:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.lock = threading.Lock()
        self.waiting: deque[_Waiting] = deque()
        self.thread: threading.Thread | None = None

    def holds_any(self) -> bool:
        with self.lock:
            return bool(self.waiting)

    def add(self, item: _Waiting) -> None:
        with self.lock:
            self.waiting.append(item)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="task-resender", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        pause = RESEND_EVERY_FIRST
        while True:
            time.sleep(pause)
            sent, refused = self._send_waiting()
            with self.lock:
                if not self.waiting:
                    self.thread = None
                    return
            pause = RESEND_EVERY_FIRST if sent and not refused else min(pause * 2, RESEND_EVERY_MAX)

    def _send_waiting(self) -> tuple[int, bool]:
        """Send the waiting tasks in order, up to the first the broker refuses. Only this thread
        removes from the left, and ``add`` only appends: the leftmost is the one just tried."""
        with self.lock:
            batch = list(self.waiting)
        sent = 0
        for item in batch:
            waited = time.monotonic() - item.since
            if waited > RESEND_FOR:
                logger.error("broker: %s not sent, refused for %.0f s; dropped", item.task.name, waited)
            else:
                try:
                    item.task.apply_async(item.args)
                except BrokerUnavailable:
                    return sent, True
                except Exception:  # not the broker's outage: trying again would fail the same way
                    logger.exception("broker: %s could not be sent; dropped", item.task.name)
                else:
                    sent += 1
                    logger.info("broker: %s sent %.1f s late, the broker back", item.task.name, waited)
            with self.lock:
                self.waiting.popleft()
        return sent, False


_resender = _Resender()
# A forked child (a prefork worker) starts with its own empty line and no thread: the parent's
# waiting tasks are the parent's to send, and its lock may have been held at the fork.
os.register_at_fork(after_in_child=_resender.reset)


def task_send(task: Task, *args: Any) -> None:
    """Send ``task`` now or, if the broker refuses it, as soon as the broker is back (see the module)."""
    if not _resender.holds_any():
        try:
            task.apply_async(args)
            return
        except BrokerUnavailable as exc:
            logger.warning("broker unavailable (%s): %s waits to be sent", type(exc).__name__, task.name)
    _resender.add(_Waiting(task, args))


def task_send_on_commit(task: Task, *args: Any) -> None:
    """``task_send`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: task_send(task, *args))
