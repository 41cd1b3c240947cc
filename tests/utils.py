"""Small helpers for tests that wait on another process."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import close_old_connections


def wait_for(predicate: Callable[[], object], *, timeout: float = 30, what: str = "condition") -> object:
    """Poll ``predicate`` until it is truthy; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        close_old_connections()
        result = predicate()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
