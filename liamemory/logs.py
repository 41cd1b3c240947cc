"""Log formatting that keeps people's content out of the logs: ids, never content.

Two leaks are closed here, for the web process and the Celery workers alike:

- a database error's message carries values: PostgreSQL's DETAIL ("Failing row contains
  (…)", "Key (…)=(…)"), CONTEXT ("JSON data, line 1: {"query": …") and even the first
  line ('invalid input syntax for type uuid: "…"'). A traceback shows instead the
  error's class, its SQLSTATE and the constraint, table and column it names;
- the development server's access lines ("GET /search?q=… HTTP/1.1") carry search
  words and other parameters: the query string is left out.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from django.db import Error as DjangoDatabaseError

# The driver's own errors, when a traceback shows the cause of Django's wrapper.
from psycopg import Error as DriverError

DATABASE_ERRORS = (DjangoDatabaseError, DriverError)
_REQUEST_LINE = re.compile(r"^(\S+ [^?\s]*)\?\S*")


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def database_error_summary(exc: BaseException) -> str:
    """What a database error is about, without a value: SQLSTATE and the names it gives."""
    driver = next((e for e in _chain(exc) if isinstance(e, DriverError) and e is not exc), exc)
    diag = getattr(driver, "diag", None)
    parts = [f"SQLSTATE {getattr(driver, 'sqlstate', None) or 'unknown'}"]
    for label in ("constraint_name", "table_name", "column_name"):
        value = getattr(diag, label, None) if diag is not None else None
        if value:
            parts.append(f"{label.split('_')[0]} {value}")
    return ", ".join(parts) + " (details withheld: they may hold people's content)"


class ContentFreeFormatter(logging.Formatter):
    def formatException(self, ei) -> str:
        swapped = []
        for exc in _chain(ei[1]):
            if isinstance(exc, DATABASE_ERRORS):
                swapped.append((exc, exc.args))
        # Summaries first (a wrapper's summary reads its cause's diagnostics), then swap.
        summaries = [(exc, database_error_summary(exc)) for exc, _ in swapped]
        try:
            for exc, summary in summaries:
                exc.args = (summary,)
            return super().formatException(ei)
        finally:
            for exc, args in swapped:
                exc.args = args

    def format(self, record: logging.LogRecord) -> str:
        if record.name == "django.server" and isinstance(record.args, tuple) and record.args:
            first = record.args[0]
            if isinstance(first, str) and "?" in first:
                record.args = (_REQUEST_LINE.sub(r"\1?…", first), *record.args[1:])
        return super().format(record)
