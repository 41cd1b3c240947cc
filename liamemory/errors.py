"""Domain errors: what services and selectors raise, with no HTTP in them.

A service refuses with an :class:`ApplicationError` (or a subclass) whose message a
user, or a model, can act on. The API layer (``liamemory/api.py``) maps each class to
its HTTP answer in one table; pages and tasks read ``message`` and ``extra``.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """A refusal a user can act on (answered 400 unless a subclass says otherwise)."""

    def __init__(self, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class NotFound(ApplicationError):
    """No such object, or not one the caller may see (never says which)."""

    def __init__(self, message: str = "Not found.", extra: dict[str, Any] | None = None) -> None:
        super().__init__(message, extra)


class Conflict(ApplicationError):
    """The object's state forbids this now (e.g. a run already finished)."""


class Forbidden(ApplicationError):
    """The actor's role does not allow this."""


class TooLarge(ApplicationError):
    """The input is bigger than this installation accepts."""
