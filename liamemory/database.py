"""What a database error says about the database: away, or only this process's pool busy."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from psycopg_pool import PoolTimeout


def pool_timed_out(exc: BaseException) -> bool:
    """The process's connection pool gave no connection in its wait (Django wraps the
    driver's ``PoolTimeout`` in its ``OperationalError``): busy, or the server away."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, PoolTimeout):
            return True
        seen = seen.__cause__
    return False


def database_error_behind(exc: BaseException | None) -> BaseException | None:
    """The database error (Django's) that ``exc`` is, or was raised while handling: a
    session's save that met it is Django's ``SessionInterrupted`` (a 400) over an
    ``UpdateError`` over the ``OperationalError``. None for anything else."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OperationalError | InterfaceError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
