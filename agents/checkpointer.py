"""The LangGraph Postgres checkpointer on the project's own database.

Checkpoints hold a run's working state (pending tool calls, interrupts), keyed by the
thread UUID. The pool uses autocommit and disables prepared statements so that a
transaction-mode pooler in front of Postgres works.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connections

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres import PostgresSaver

CHECKPOINT_TABLES: tuple[str, ...] = ("checkpoint_writes", "checkpoint_blobs", "checkpoints", "checkpoint_migrations")


def conninfo(alias: str = "default") -> str:
    """A libpq conninfo string for the Django database ``alias``."""
    from psycopg.conninfo import make_conninfo

    s = connections[alias].settings_dict
    params = {
        "dbname": s["NAME"],
        "user": s.get("USER") or None,
        "password": s.get("PASSWORD") or None,
        "host": s.get("HOST") or None,
        "port": s.get("PORT") or None,
        # As Django's own connections: an unreachable server is given up on within seconds.
        "connect_timeout": (s.get("OPTIONS") or {}).get("connect_timeout"),
    }
    return make_conninfo(**{k: v for k, v in params.items() if v})


@contextmanager
def open_saver(alias: str = "default") -> Iterator[PostgresSaver]:
    """A ``PostgresSaver`` over a single autocommit connection (prepared statements off)."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    with psycopg.connect(conninfo(alias), autocommit=True, prepare_threshold=None, row_factory=dict_row) as conn:
        yield PostgresSaver(conn)


_pool = None
_pool_pid = None


def shared_saver() -> PostgresSaver:
    """A ``PostgresSaver`` over this process's connection pool (created on first use).

    The pool is made lazily and per process id, so a forked Celery worker child never
    reuses its parent's sockets.
    """
    global _pool, _pool_pid
    import os

    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    if _pool is None or _pool_pid != os.getpid():
        _pool = ConnectionPool(
            conninfo(),
            min_size=1,
            max_size=settings.CHECKPOINT_POOL_MAX_SIZE,
            kwargs={
                "autocommit": True,
                "prepare_threshold": None,
                "row_factory": dict_row,
            },
            # Tried before it is handed out: a connection that died with the server is replaced.
            check=ConnectionPool.check_connection,
            timeout=settings.DB_POOL_TIMEOUT,
            open=True,
        )
        _pool_pid = os.getpid()
    return PostgresSaver(_pool)  # type: ignore[arg-type]  # rows are dicts: row_factory above


def setup_tables(alias: str = "default") -> None:
    """Create or upgrade the checkpointer tables (it builds indexes concurrently)."""
    with open_saver(alias) as saver:
        saver.setup()


def drop_tables(alias: str = "default") -> None:
    import psycopg

    with psycopg.connect(conninfo(alias), autocommit=True) as conn:
        for table in CHECKPOINT_TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")


def delete_checkpoints(thread_ids: list[str], alias: str = "default") -> dict[str, int]:
    """Delete every checkpoint row of these threads (no FK ties them to ``Thread``).

    Used by the purge and by erasure. Returns rows deleted per table.
    """
    from django.db import connections

    ids = [str(t) for t in thread_ids]
    counts: dict[str, int] = {}
    if not ids:
        return dict.fromkeys(CHECKPOINT_TABLES[:3], 0)
    with connections[alias].cursor() as cur:
        for table in CHECKPOINT_TABLES[:3]:
            cur.execute(f"DELETE FROM {table} WHERE thread_id = ANY(%s)", [ids])
            counts[table] = cur.rowcount
    return counts


def close_shared_saver() -> None:
    """Close this process's checkpointer pool (tests, shutdown)."""
    global _pool, _pool_pid
    if _pool is not None:
        _pool.close()
    _pool, _pool_pid = None, None
