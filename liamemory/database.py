"""What a database error says about the database: away, or only this process's pool busy."""

from __future__ import annotations

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
