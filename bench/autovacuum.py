"""Autovacuum for a benchmark's database, as a production PostgreSQL runs it.

The shared server here runs with ``autovacuum = off`` (a server-wide setting, not ours to
change), so a benchmark's tables kept the statistics of their last manual ``ANALYZE`` while
a soak's threads grew from nothing to thousands of messages: the planner took each client's
thread for a handful of rows, and the turn's reads on a long thread cost ×3 the pages they
cost with statistics taken as autovacuum takes them (bench/README.md, "Session 17"). Production
PostgreSQL, and the embedded one ``make run`` starts, run autovacuum.

``Autovacuum`` does what the launcher would: every ``autovacuum_naptime`` it reads each table's
counters and runs ``VACUUM`` or ``ANALYZE`` on the tables past the server's thresholds (or the
table's own storage parameters), the vacuum with autovacuum's cost delay. On a server whose
autovacuum is on it does nothing: the server does it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

import psycopg

_TABLES = """
SELECT s.schemaname, s.relname, s.n_mod_since_analyze, s.n_dead_tup, s.n_ins_since_vacuum,
       greatest(c.reltuples, 0), c.relpages, coalesce(c.reloptions, '{}')
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
"""
_SETTINGS = (
    "autovacuum",
    "autovacuum_naptime",
    "autovacuum_analyze_threshold",
    "autovacuum_analyze_scale_factor",
    "autovacuum_vacuum_threshold",
    "autovacuum_vacuum_scale_factor",
    "autovacuum_vacuum_insert_threshold",
    "autovacuum_vacuum_insert_scale_factor",
    "autovacuum_vacuum_cost_delay",
    "autovacuum_vacuum_cost_limit",
    "vacuum_cost_limit",
    "default_statistics_target",
)
_BUFFERS = re.compile(r"buffer usage: (\d+) hits, (\d+) misses")


@dataclass
class Autovacuum:
    """A thread doing autovacuum's passes on the database ``dsn`` names while a benchmark runs.

    ``pages`` counts the pages its own passes touched (VACUUM's buffer usage; for ANALYZE the
    pages it samples, at most 300 × ``default_statistics_target``), so that a benchmark can
    leave them out of the pages its turns read.
    """

    dsn: str
    naptime: float = 0.0  # 0: the server's autovacuum_naptime
    pages: int = 0
    analyzed: int = 0
    vacuumed: int = 0
    failed: int = 0
    server_runs_it: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _settings(self, cur) -> dict[str, str]:
        cur.execute("SELECT name, setting FROM pg_settings WHERE name = ANY (%s)", [list(_SETTINGS)])
        return dict(cur.fetchall())

    def run_once(self) -> list[str]:
        """One pass: vacuum and analyze what autovacuum would now; returns what it did."""
        done: list[str] = []
        notices: list[str] = []
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
            cur = conn.cursor()
            conf = self._settings(cur)
            self.server_runs_it = conf["autovacuum"] == "on"
            if self.server_runs_it:
                return done
            limit = conf["autovacuum_vacuum_cost_limit"]
            cur.execute(f"SET vacuum_cost_delay = {float(conf['autovacuum_vacuum_cost_delay'])}")
            cur.execute(f"SET vacuum_cost_limit = {int(limit) if int(limit) > 0 else int(conf['vacuum_cost_limit'])}")
            sample_pages = 300 * int(conf["default_statistics_target"])
            cur.execute(_TABLES)
            for schema, table, modified, dead, inserted, tuples, relpages, options in cur.fetchall():
                own = dict(o.split("=", 1) for o in options)

                def knob(name: str, own=own, conf=conf) -> float:
                    return float(own.get(name, conf[name]))

                vacuum = (
                    dead > knob("autovacuum_vacuum_threshold") + knob("autovacuum_vacuum_scale_factor") * tuples
                    or inserted
                    > knob("autovacuum_vacuum_insert_threshold")
                    + knob("autovacuum_vacuum_insert_scale_factor") * tuples
                )
                analyze = (
                    modified > knob("autovacuum_analyze_threshold") + knob("autovacuum_analyze_scale_factor") * tuples
                )
                name = f'"{schema}"."{table}"'
                if vacuum:
                    notices.clear()
                    cur.execute(f"VACUUM (VERBOSE) {name}")
                    pages = sum(int(h) + int(m) for h, m in _BUFFERS.findall("\n".join(notices)))
                    with self._lock:
                        self.pages += pages
                        self.vacuumed += 1
                    done.append(f"vacuum {table}")
                if analyze:
                    cur.execute(f"ANALYZE {name}")
                    with self._lock:
                        self.pages += min(relpages, sample_pages)
                        self.analyzed += 1
                    done.append(f"analyze {table}")
        return done

    def start(self) -> Autovacuum:
        """A first pass at once (the database as autovacuum would have left it), then one every naptime."""
        self.run_once()
        if self.server_runs_it:
            return self
        with psycopg.connect(self.dsn) as conn:
            nap = self.naptime or float(self._settings(conn.cursor())["autovacuum_naptime"])

        def loop() -> None:
            while not self._stop.wait(nap):
                try:
                    self.run_once()
                except psycopg.Error as exc:  # a busy or restarting server: autovacuum tries again next time
                    with self._lock:
                        self.failed += 1
                    print(f"autovacuum's pass failed ({exc.__class__.__name__}); the next in {nap:.0f} s", flush=True)

        self._thread = threading.Thread(target=loop, name="autovacuum", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=600)

    @property
    def label(self) -> str:
        if self.server_runs_it:
            return "the server's autovacuum"
        failed = f", {self.failed} passes failed" if self.failed else ""
        return f"autovacuum's passes by the benchmark ({self.analyzed} analyze, {self.vacuumed} vacuum{failed})"


def database_pages() -> int:
    """Pages (shared buffer hits and reads) every session of this database has touched so far."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()")
        return int(cur.fetchone()[0])


def dsn() -> str:
    """The benchmark database's connection string (Django's settings, as the product connects)."""
    from django.db import connection

    params = connection.get_connection_params()
    keys = ("host", "port", "dbname", "user", "password")
    return " ".join(f"{k}={params[k]}" for k in keys if params.get(k))
