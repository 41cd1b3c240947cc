"""The schema-wide leftover scan after an erasure, and the canaries it looks for.

Read-only. The scan reads the table list from the database's catalogue, so a table
added later is covered without a code change. What a person owns, store by store, is read
from the map of personal data (``usecases/personal_data.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection

from agents.checkpointer import CHECKPOINT_TABLES
from usecases.personal_data import person_rows, person_store_rows

# Canary tokens: long runs of word characters that contain a digit, or very long
# words. Common words rarely qualify, so a hit after erasure means a real leftover.
_TOKEN_RE = re.compile(r"[\w\-@.]{10,}")
MAX_CANARIES = 100
# Candidates checked against other people's rows, longest first: the check reads every
# cell of theirs once per candidate, so a person with 10,000 messages must not bring
# 10,000 of them.
MAX_CANDIDATES = 4 * MAX_CANARIES
_DATE_OR_NUMBER = re.compile(r"[\d\-:.+/_TZ]+")
MIN_USERNAME_NEEDLE = 4


def _tokens(text: str) -> Iterable[str]:
    for token in _TOKEN_RE.findall(text):
        token = token.strip(".-")
        if len(token) < 10 or _DATE_OR_NUMBER.fullmatch(token):
            # "2026-12-03", "2026-12-03T09:15:00+00:00", "00390115551234": anyone's rows
            # hold dates and numbers; a hit on one would fail the erasure, not find a leftover.
            continue
        if any(c.isdigit() for c in token) or len(token) >= 20:
            yield token


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def canaries_sample(*, user_id: int) -> set[str]:
    """Distinctive strings of the person's own data, to look for after deletion (at most
    ``MAX_CANARIES``). The result is only ever held in memory: it is personal data itself."""
    found = _longest(_tokens_of(user_id=user_id), MAX_CANDIDATES)
    return _longest(found - _shared_with_others(found, user_id=user_id))


def _longest(found: set[str], limit: int = MAX_CANARIES) -> set[str]:
    # Longest first: the most distinctive ones survive the cap.
    return set(sorted(found, key=lambda t: (-len(t), t))[:limit])


def _tokens_of(*, user_id: int) -> set[str]:
    """Distinctive strings of the person's data, to look for after deletion.

    The result is only ever held in memory: it is personal data itself.
    """
    found: set[str] = set()
    # The person's rows found by the map's keys; the columns whose words are theirs.
    read = {
        "messages": "text",
        "summaries": "text",
        "memories": "content",
        "memory_history_scrubbed": "content",
        "trace_events": "payload",
        "threads": "title",
    }
    rows = person_store_rows(user_id=user_id, names=read)
    sources = [rows[name].values_list(column, flat=True).iterator() for name, column in read.items()]
    for source in sources:
        for value in source:
            for text in _strings(value):
                found.update(_tokens(text))
    return found


def _shared_with_others(tokens: set[str], *, user_id: int) -> set[str]:
    """The tokens found, before anything is deleted, in other people's rows of the tables
    where people's data is known to live (their messages, an account's e-mail, a staff
    member's name in the access log), case-insensitive as the scan compares: a hit there
    after the erasure would be someone else's, not a leftover. A table outside that list
    is not asked: a copy of the person's words there is what the scan must find. Each
    cell is read once."""
    if not tokens:
        return set()
    by_lower: dict[str, set[str]] = {}
    for token in tokens:
        by_lower.setdefault(token.lower(), set()).add(token)
    lower = sorted(by_lower)
    qn = connection.ops.quote_name
    persons: dict[str, list[tuple[str, list[Any], tuple[str, ...] | None]]] = {}
    pk_columns: dict[str, str] = {}
    for model, rows, columns in person_rows(user_id=user_id):
        rows_sql, rows_params = rows.values(model._meta.pk.attname).query.sql_with_params()
        persons.setdefault(model._meta.db_table, []).append((rows_sql, list(rows_params), columns))
        pk_columns[model._meta.db_table] = str(model._meta.pk.column)
    shared: set[str] = set()
    catalogue = _catalogue()
    for table in persons:
        # The person's whole rows are left out of the scan once, in its WHERE; a row that is
        # theirs only in some columns (history scrubbed) has those cells read as NULL.
        whole = [(sql, p) for sql, p, columns in persons[table] if columns is None]
        pk = qn(pk_columns[table])
        reads: list[str] = []
        params: list[Any] = []
        for column, data_type in catalogue.get(table, []):
            if data_type not in _TEXT_TYPES:
                continue
            value = f"lower(t.{qn(column)}::text)"
            gone = [(sql, p) for sql, p, columns in persons[table] if columns is not None and column in columns]
            if gone:
                value = f"CASE WHEN {' OR '.join(f't.{pk} IN ({sql})' for sql, _ in gone)} THEN NULL ELSE {value} END"
                params += [v for _, p in gone for v in p]
            reads.append(f"({value})")
        if not reads:
            continue
        where = ""
        if whole:
            where = f" WHERE NOT ({' OR '.join(f't.{pk} IN ({sql})' for sql, _ in whole)})"
            params += [v for _, p in whole for v in p]
        # One pass over the table: each row's text cells unpivoted (LATERAL VALUES), in a
        # subquery the planner may not flatten (OFFSET 0); the person's query parameters
        # appear in the order of the SQL text.
        sql = (
            f"SELECT DISTINCT n FROM (SELECT c.v FROM {qn(table)} AS t"
            f" CROSS JOIN LATERAL (VALUES {', '.join(reads)}) AS c(v){where} OFFSET 0) AS r,"
            " unnest(%s::text[]) AS n WHERE strpos(r.v, n) > 0"
        )
        with connection.cursor() as cur:
            cur.execute(sql, [*params, lower])
            shared |= {row[0] for row in cur.fetchall()}
    return {token for lower_token in shared for token in by_lower[lower_token]}


def verification_strings(*, user: User) -> dict[str, list[str]]:
    """What the scan after the erasure looks for, chosen now, before anything is deleted:
    the person's distinctive strings, names and the ids of their threads and runs, less
    whatever also belongs to someone else. Personal data itself: the request keeps it only
    until the erasure completes."""
    names, uuids = identifiers_of(user=user)
    tokens = _longest(_tokens_of(user_id=user.pk), MAX_CANDIDATES)
    # The person's own: a string also in someone else's rows (a word, a shared code, a
    # colleague's address) would be found there after the erasure and fail it for
    # nothing. One pass over other people's rows for all of them.
    shared = _shared_with_others(tokens | names, user_id=user.pk)
    strings = _longest(tokens - shared) | (names - shared)
    return {"strings": sorted(strings), "uuids": sorted(uuids)}


def name_needles(*names: str) -> set[str]:
    """The person's username and e-mail worth looking for: a shorter one would be found
    inside anyone's text and fail the erasure for nothing."""
    return {s for s in names if s and len(s) >= MIN_USERNAME_NEEDLE}


def identifiers_of(*, user: User) -> tuple[set[str], set[str]]:
    """(strings naming the person, UUIDs of their threads and runs)."""
    strings = name_needles(user.get_username(), getattr(user, "email", ""))
    owned = person_store_rows(user_id=user.pk, names=("threads", "runs"))
    uuids = {str(i) for name in ("threads", "runs") for i in owned[name].values_list("pk", flat=True)}
    strings |= uuids
    return strings, uuids


# --- the schema-wide scan ------------------------------------------------------------

_TEXT_TYPES = {"text", "character varying", "character", "json", "jsonb"}
_INT_TYPES = {"integer", "bigint", "smallint"}
_REF_NAMES = re.compile(r"^(user_id|owner_id|.+_user_id|subject_id)$")


@dataclass
class ScanFindings:
    """What the scan found: counts and places only, never the values."""

    tables_scanned: int = 0
    columns_scanned: int = 0
    needles: int = 0
    scoped_tables: list[str] = field(default_factory=list)
    references: list[dict[str, Any]] = field(default_factory=list)
    identifiers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def references_found(self) -> int:
        return sum(f["rows"] for f in self.references)

    @property
    def identifiers_found(self) -> int:
        return sum(f["rows"] for f in self.identifiers)

    @property
    def clean(self) -> bool:
        return not self.references and not self.identifiers

    def summary(self) -> dict[str, Any]:
        return {
            "tables_scanned": self.tables_scanned,
            "columns_scanned": self.columns_scanned,
            "needles_checked": self.needles,
            "checkpoint_tables_scanned_by_thread": sorted(self.scoped_tables),
            "references_found": self.references_found,
            "strings_found": self.identifiers_found,
            "clean": self.clean,
        }


def _catalogue() -> dict[str, list[tuple[str, str]]]:
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT c.table_name, c.column_name, c.data_type
            FROM information_schema.columns c
            JOIN information_schema.tables t
              ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
            ORDER BY c.table_name, c.ordinal_position
            """
        )
        tables: dict[str, list[tuple[str, str]]] = {}
        for table, column, data_type in cur.fetchall():
            tables.setdefault(table, []).append((column, data_type))
    return tables


def _user_fk_columns() -> set[tuple[str, str]]:
    """Columns that point at the user table: FK constraints, plus ORM-only FKs (no constraint)."""
    user_model = get_user_model()
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT cl.relname, a.attname
            FROM pg_constraint co
            JOIN pg_class cl ON cl.oid = co.conrelid
            JOIN pg_namespace ns ON ns.oid = cl.relnamespace
            JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = ANY(co.conkey)
            WHERE co.contype = 'f' AND ns.nspname = 'public' AND co.confrelid = %s::regclass
            """,
            [user_model._meta.db_table],
        )
        return set(cur.fetchall())


def schema_scan(
    *,
    user_id: int,
    strings: Iterable[str],
    uuids: Iterable[str],
    exempt_rows: dict[str, tuple[str, Any]] | None = None,
    exempt_ref_columns: set[tuple[str, str]] | None = None,
) -> ScanFindings:
    """Look in every table of the public schema for the person.

    (a) any column pointing at the user table (by constraint, or named like ``user_id``)
    holding ``user_id``; (b) any text/JSON/bytea column containing one of ``strings``,
    any UUID column holding one of ``uuids``. ``exempt_rows`` maps a table to one
    ``(column, value)`` row left out (the account kept empty, the erasure request itself).
    """
    qn = connection.ops.quote_name
    exempt_rows = exempt_rows or {}
    exempt_ref_columns = exempt_ref_columns or set()
    user_table = get_user_model()._meta.db_table
    fk_columns = _user_fk_columns()
    needles = sorted({s for s in strings if s})
    lower_needles = sorted({s.lower() for s in needles})
    byte_needles = [s.encode() for s in needles]
    uuid_values = sorted({str(u) for u in uuids})
    findings = ScanFindings(needles=len(needles))
    params: dict[str, Any] = {"lower": lower_needles, "bytes": byte_needles, "uuids": uuid_values, "uid": user_id}

    for table, columns in _catalogue().items():
        # (kind, column, value read once per row, condition on that value as "{v}")
        checks: list[tuple[str, str, str, str]] = []
        for column, data_type in columns:
            col = qn(column)
            if data_type in _TEXT_TYPES and lower_needles:
                cast = f"{col}::text" if data_type in {"json", "jsonb"} else col
                cond = "EXISTS (SELECT 1 FROM unnest(%(lower)s::text[]) n WHERE strpos({v}, n) > 0)"
                checks.append(("string", column, f"lower({cast})", cond))
            elif data_type == "bytea" and byte_needles:
                cond = "EXISTS (SELECT 1 FROM unnest(%(bytes)s::bytea[]) n WHERE position(n IN {v}) > 0)"
                checks.append(("string", column, col, cond))
            elif data_type == "uuid" and uuid_values:
                checks.append(("string", column, col, "{v} = ANY(%(uuids)s::uuid[])"))
            elif data_type in _INT_TYPES and (table, column) not in exempt_ref_columns:
                is_ref = (table, column) in fk_columns or (table, column) == (user_table, "id")
                if is_ref or _REF_NAMES.match(column):
                    checks.append(("reference", column, col, "{v} = %(uid)s"))
        if not checks:
            continue
        findings.tables_scanned += 1
        findings.columns_scanned += len(checks)
        conditions = []
        if table in exempt_rows:
            ex_col, ex_val = exempt_rows[table]
            conditions.append(f"{qn(ex_col)} IS DISTINCT FROM %(exempt_{table})s")
            params[f"exempt_{table}"] = ex_val
        if table in CHECKPOINT_TABLES and any(c == "thread_id" for c, _ in columns):
            # A JSON copy of graph state per step of every thread ever run: by far the most
            # text in the schema. The person's rows are found by their threads and runs.
            conditions.append("thread_id = ANY(%(uuids)s::text[])")
            findings.scoped_tables.append(table)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        # Each cell is read (cast, lower-cased) once, in a subquery the planner may not
        # flatten (OFFSET 0); the strings are then looked for in that one value.
        reads = ", ".join(f"{expr} AS v{i}" for i, (_, _, expr, _) in enumerate(checks))
        counts = ", ".join(
            f"count(*) FILTER (WHERE {cond.format(v=f'r.v{i}')})" for i, (_, _, _, cond) in enumerate(checks)
        )
        with connection.cursor() as cur:
            cur.execute(f"SELECT {counts} FROM (SELECT {reads} FROM {qn(table)}{where} OFFSET 0) AS r", params)
            row = cur.fetchone()
        for (kind, column, _, _), rows in zip(checks, row, strict=True):
            if rows:
                target = findings.references if kind == "reference" else findings.identifiers
                target.append({"table": table, "column": column, "rows": rows})
    return findings
