"""Writing a batch of vectors keyed by their source rows (messages, memories)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, connection, transaction


def vector_rows_write(sql: str, params: dict[str, Any]) -> int:
    """Run one batch insert of vectors; the number of rows written.

    The foreign keys are checked at commit: a source row deleted between our read and our
    commit fails the write, and the second attempt (whose SQL joins the source table)
    skips it.
    """
    for attempt in (1, 2):
        try:
            with transaction.atomic(), connection.cursor() as cur:
                cur.execute(sql, params)
                return cur.rowcount
        except IntegrityError:
            if attempt == 2:
                raise
    return 0
