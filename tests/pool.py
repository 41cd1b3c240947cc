"""A connection pool held by another thread, as a burst of turns or requests holds it.

With the ``tiny_pool`` or ``tiny_checkpoint_pool`` fixture (``tests/conftest.py``) the pool
has one connection: while a ``PoolHog`` holds it, the code under test waits 0.5 s and
meets the pool's ``PoolTimeout``, as 32 worker threads sharing 12 connections did.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

from agents.checkpointer import shared_saver


def take_django_connection() -> Callable[[], None]:
    """This thread takes a connection of Django's pool; the callable gives it back."""
    connection.ensure_connection()
    return connection.close


def take_checkpoint_connection() -> Callable[[], None]:
    """A connection of the LangGraph checkpointer's pool; the callable gives it back."""
    pool = shared_saver().conn
    held = pool.getconn()
    return lambda: pool.putconn(held)


class PoolHog(threading.Thread):
    """Takes a pool's one connection and keeps it until released (Django's, unless told)."""

    def __init__(self, take: Callable[[], Callable[[], None]] = take_django_connection) -> None:
        super().__init__(daemon=True)
        self.take = take
        self.holding, self.release = threading.Event(), threading.Event()

    def run(self) -> None:
        give_back = self.take()
        try:
            self.holding.set()
            self.release.wait(30)
        finally:
            give_back()

    def hold(self) -> None:
        self.start()
        assert self.holding.wait(10)

    def stop(self) -> None:
        assert self.is_alive(), "the pool was given back before the code under test needed it"
        self.release.set()
        self.join(10)
