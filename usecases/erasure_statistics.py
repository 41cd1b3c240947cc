"""The planner statistics after an erasure: rebuilt, and emptied where a table is empty.

``pg_stats`` keeps samples of column values (most common values, histogram bounds, the
same for expression indexes) from the last ANALYZE, readable by anyone who may read the
table. ANALYZE replaces them only when it finds rows: a table the erasure emptied (the
last person of a small installation) kept the person's words until a later ANALYZE found
rows again, so the statistics of an empty table are removed outright.

Only a table's owner (or the database's, or a superuser) may ANALYZE it: for anyone
else PostgreSQL skips the table with a warning and the old samples stay. The tables the
database role cannot rebuild are found first (``statistics_not_rebuildable``), left out,
and named in the receipt instead of a claim that nothing is left.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import DatabaseError, connection, transaction

logger = logging.getLogger(__name__)


def statistics_not_rebuildable(*, tables: Iterable[str]) -> list[str]:
    """Those of ``tables`` whose statistics the database role cannot rebuild: it is not a
    superuser and has the rights of neither the table's owner nor the database's."""
    names = sorted(set(tables))
    if not names:
        return []
    with connection.cursor() as cur:
        cur.execute(
            """SELECT c.relname FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
               WHERE c.relname = ANY(%s)
                 AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                 AND NOT pg_has_role(current_user, c.relowner, 'USAGE')
                 AND NOT pg_has_role(current_user,
                       (SELECT datdba FROM pg_database WHERE datname = current_database()), 'USAGE')
               ORDER BY c.relname""",
            [names],
        )
        return [row[0] for row in cur.fetchall()]


def statistics_rebuild(*, tables: Iterable[str], catalogue_writable: bool | None = None) -> dict[str, int]:
    """ANALYZE ``tables``, then remove the statistics of those that are empty; the tables
    the role may not analyse (``statistics_not_rebuildable``) are left out and counted.

    Removing them takes write access to ``pg_statistic`` (a superuser); a table owner
    without it gets the same effect by re-declaring each column with its own type, which
    drops that column's statistics and those of the indexes over it (on an empty table,
    at once), except for a column a generated column reads. ``catalogue_writable``
    chooses the way (None: as the role's rights allow). Returns how many tables were
    analysed, emptied and skipped.
    """
    qn = connection.ops.quote_name
    skipped = statistics_not_rebuildable(tables=tables)
    names = sorted(set(tables) - set(skipped))
    if skipped:
        logger.warning("erasure: the database role may not analyse %d tables; their statistics stay", len(skipped))
    if not names:
        return {"analysed": 0, "emptied": 0, "skipped": len(skipped)}
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("ANALYZE " + ", ".join(qn(t) for t in names))
    if catalogue_writable is None:
        with connection.cursor() as cur:
            cur.execute("SELECT has_table_privilege('pg_catalog.pg_statistic', 'DELETE')")
            catalogue_writable = bool(cur.fetchone()[0])
    emptied = 0
    for table in names:
        try:
            with transaction.atomic(), connection.cursor() as cur:
                cur.execute("SET LOCAL lock_timeout = '2s'")
                cur.execute(f"SELECT EXISTS (SELECT 1 FROM {qn(table)})")
                if cur.fetchone()[0] or not _has_statistics(cur, table):
                    continue
                _clear(cur, table, catalogue_writable=catalogue_writable)
                emptied += 1
        except DatabaseError as error:
            # Logged without values (the error's class only); the receipt says the next
            # ANALYZE refreshes them.
            logger.warning("erasure: the statistics of table %s could not be removed (%s)", table, type(error).__name__)
    return {"analysed": len(names), "emptied": emptied, "skipped": len(skipped)}


def _has_statistics(cur, table: str) -> bool:
    cur.execute(
        """SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = 'public' AND (tablename = %s
             OR tablename IN (SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                              WHERE i.indrelid = %s::regclass)))""",
        [table, connection.ops.quote_name(table)],
    )
    return bool(cur.fetchone()[0])


def _clear(cur, table: str, *, catalogue_writable: bool) -> None:
    rel = connection.ops.quote_name(table)
    if catalogue_writable:
        cur.execute(
            """DELETE FROM pg_statistic WHERE starelid = %s::regclass
               OR starelid IN (SELECT indexrelid FROM pg_index WHERE indrelid = %s::regclass)""",
            [rel, rel],
        )
        cur.execute(
            """DELETE FROM pg_statistic_ext_data
               WHERE stxoid IN (SELECT oid FROM pg_statistic_ext WHERE stxrelid = %s::regclass)""",
            [rel],
        )
        return
    cur.execute(
        """SELECT a.attname, format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attcollation <> t.typcollation THEN co.collname END
           FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
           LEFT JOIN pg_collation co ON co.oid = a.attcollation
           WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''""",
        [rel],
    )
    qn = connection.ops.quote_name
    kept = []
    for column, type_name, collation in cur.fetchall():
        collate = f" COLLATE {qn(collation)}" if collation else ""
        try:
            with transaction.atomic():
                cur.execute(f"ALTER TABLE {rel} ALTER COLUMN {qn(column)} TYPE {type_name}{collate}")
        except DatabaseError:
            kept.append(column)  # a generated column reads it: its type cannot be re-declared
    if kept:
        logger.warning("erasure: statistics of %s kept for columns %s until rows return", table, ", ".join(kept))
