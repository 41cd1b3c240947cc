"""A value kept for a while in this process: for rows that change rarely and are read often."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class TimedValue(Generic[T]):
    """One value, computed on first use and again once ``seconds`` have passed.

    Per process: another process sees a change when its own copy expires, or at once
    if the code that made the change calls ``clear`` there.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._value: T | None = None
        self._expires = 0.0

    def get(self, compute: Callable[[], T]) -> T:
        if self._value is None or self._expires <= time.monotonic():
            self._value = compute()
            self._expires = time.monotonic() + self.seconds
        return self._value

    def clear(self) -> None:
        self._value, self._expires = None, 0.0
