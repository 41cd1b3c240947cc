"""Generated scale data for the latency benchmarks, built in SQL and reused between runs.

Each data set is a PostgreSQL schema holding its own copies of the product's tables
(``CREATE TABLE … (LIKE public.… INCLUDING ALL)``: same columns, generated tsvector
columns, defaults and indexes), filled with ``generate_series``. A benchmark puts the
schema first on the connection's ``search_path``, so the product's own code (ORM and
raw SQL alike, which name tables unqualified) reads that data set without knowing it.
Foreign keys are not copied: other users are plain integers, only the one user the
benchmarks act as exists in ``auth_user``.

A schema is rebuilt only when its spec or the product's table definitions changed
(a migration adding a column or an index): a fingerprint of both is stored with it.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import connection

from conversations import embedding_services as message_vectors
from conversations.models import Message
from liamemory import embeddings
from memories import embedding_services as memory_vectors
from memories.models import Memory

SCALE_USER = "bench-scale"
TABLES = ("conversations_thread", "conversations_message", "conversations_threadsummary", "memories_memory")
# Other users' ids: far above any real auth_user id (no foreign keys in the copies).
OTHER_USER_BASE = 10_000_000
FILLER_THREAD_SIZE = 100

_VOCABULARY = (
    "order invoice delivery refund payment plan discount subscription account password address phone "
    "email meeting dentist doctor appointment flight train hotel booking ticket concert museum garden "
    "kitchen recipe pasta lemon basil coffee tea bicycle car insurance mortgage bank loan salary budget "
    "project deadline report review manager colleague team office holiday weekend birthday wedding gift "
    "daughter son sister brother mother father friend neighbour dog cat allergy peanuts gluten vegetarian "
    "running swimming yoga guitar piano novel documentary weather rain snow summer winter spring autumn "
    "milan rome turin london paris berlin madrid lisbon blue green red yellow small large quiet noisy "
    "early late monday tuesday wednesday thursday friday saturday sunday morning evening night warranty "
    "laptop phone charger battery screen printer router password backup cloud storage contract lawyer "
    "tax return pension doctor prescription pharmacy vitamins marathon training shoes jacket umbrella"
)
WORDS = tuple(_VOCABULARY.split())


@dataclass(frozen=True)
class Spec:
    name: str
    # Sizes of the benchmark user's threads (in messages).
    main_threads: tuple[int, ...] = ()
    # Other users' messages, in threads of FILLER_THREAD_SIZE.
    filler_messages: int = 0
    # Memories in the table; the benchmark user owns 20 active ones and 5 superseded.
    memories: int = 0
    # Tables this schema shadows (the rest come from the next schema on the path).
    tables: tuple[str, ...] = TABLES
    # Main threads up to this size get their messages' vectors (not in the fingerprint:
    # data sets built before this field existed stay current).
    embed_threads_up_to: int = field(default=2_000, repr=False)


def _words_sql(seed_expr: str, count: int) -> str:
    """SQL for ``count`` pseudo-random words from WORDS, picked by hashing ``seed_expr``."""
    array, n = "ARRAY[" + ",".join(f"'{w}'" for w in WORDS) + "]", len(WORDS)
    return (
        f"(SELECT string_agg(({array})"
        f"[1 + mod(mod(hashint8(({seed_expr})::bigint * 131 + j)::bigint, {n}) + {n}, {n})], ' ') "
        f"FROM generate_series(1, {count}) j)"
    )


# Tables that live with another one: copied into a schema along with it when the
# product has them (vectors of messages and memories).
COMPANIONS = {
    "conversations_message": "conversations_messageembedding",
    "memories_memory": "memories_memoryembedding",
}


def _tables(spec: Spec) -> tuple[str, ...]:
    with connection.cursor() as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        present = {r[0] for r in cur.fetchall()}
    extra = tuple(COMPANIONS[t] for t in spec.tables if t in COMPANIONS and COMPANIONS[t] in present)
    return spec.tables + extra


def _embed(spec: Spec, user_id: int) -> int:
    """Vectors for what the benchmarks search (the benchmark user's memories, the main
    threads up to ``embed_threads_up_to`` messages), made by the product's own service."""
    if not embeddings.enabled():
        return 0

    done = 0
    with using(spec.name):
        if "memories_memory" in spec.tables:
            ids = list(Memory.objects.filter(user_id=user_id).values_list("id", flat=True))
            done += memory_vectors.memory_embeddings_update(memory_ids=ids)
        for n in spec.main_threads:
            if "conversations_message" in spec.tables and n <= spec.embed_threads_up_to:
                ids = list(Message.objects.filter(thread_id=thread_id(spec, f"main-{n}")).values_list("id", flat=True))
                for start in range(0, len(ids), 256):
                    done += message_vectors.message_embeddings_update(message_ids=ids[start : start + 256])
    return done


def _fingerprint(spec: Spec, schema: str = "public") -> str:
    """The spec and the product's table definitions; of a data set's own copies with ``schema``
    (what they were built from, before any column a migration added since)."""
    spec = Spec(**{**spec.__dict__, "tables": _tables(spec)})
    with connection.cursor() as cur:
        cur.execute(
            "SELECT string_agg(table_name || column_name || data_type || coalesce(generation_expression, ''), ',' "
            "ORDER BY table_name, ordinal_position) FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = ANY (%s)",
            [schema, list(spec.tables)],
        )
        columns = cur.fetchone()[0]
        cur.execute(
            "SELECT string_agg(replace(indexdef, ' ON ' || %s || '.', ' ON public.'), ';' ORDER BY indexname) "
            "FROM pg_indexes WHERE schemaname = %s AND tablename = ANY (%s)",
            [schema, schema, list(spec.tables)],
        )
        indexes = cur.fetchone()[0]
    return hashlib.sha256(f"{spec}|{columns}|{indexes}|{WORDS}".encode()).hexdigest()


def _current(spec: Spec, fingerprint: str) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT to_regclass(%s)", [f"{spec.name}.bench_marker"])
        if cur.fetchone()[0] is None:
            return False
        cur.execute(f"SELECT fingerprint FROM {spec.name}.bench_marker")
        row = cur.fetchone()
        return bool(row) and row[0] == fingerprint


def current(spec: Spec) -> bool:
    """Whether the spec's schema exists and matches the spec and today's table definitions."""
    return _current(spec, _fingerprint(spec))


def scale_user():
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=SCALE_USER)
    return user


def thread_id(spec: Spec, label: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"liamemory-bench:{spec.name}:{label}")


def _fill_threads(s: str, spec: Spec, user_id: int) -> None:
    with connection.cursor() as cur:
        for n in spec.main_threads:
            tid = thread_id(spec, f"main-{n}")
            cur.execute(
                f"INSERT INTO {s}.conversations_thread (id, owner_id, title, agent, incognito, created_at, "
                "last_activity_at, tokens_sent, tokens_full_resend, next_sequence, history_tokens) "
                "VALUES (%s, %s, %s, 'assistant', false, now(), now(), 0, 0, %s, %s)",
                [tid, user_id, f"main {n}", n + 1, n * 30],
            )
            _insert_messages(cur, s, f"'{tid}'::uuid", n, f"mod(hashtext('{tid}'), 100000)")
            if n > 40:
                text = "- " + "\n- ".join(
                    f"User (#{k}): order {chr(65 + k % 8)}-{1000 + k * 37 % 9000} costs €{k * 13 % 900}.50"
                    for k in range(3, 3 * 25, 3)
                )
                cur.execute(
                    f"INSERT INTO {s}.conversations_threadsummary (thread_id, version, text, covers_through, model, "
                    "token_estimate, rebuilt_from_source, created_at) VALUES (%s, 1, %s, %s, 'extractive-v1', %s, "
                    "false, now())",
                    [tid, text, n - 20, len(text) // 3],
                )
        threads = spec.filler_messages // FILLER_THREAD_SIZE
        if threads:
            cur.execute(
                f"INSERT INTO {s}.conversations_thread (id, owner_id, title, agent, incognito, created_at, "
                "last_activity_at, tokens_sent, tokens_full_resend, next_sequence, history_tokens) "
                f"SELECT md5(%s || t)::uuid, {OTHER_USER_BASE} + t / 5, '', 'assistant', false, now(), now(), 0, 0, "
                f"{FILLER_THREAD_SIZE + 1}, 3000 FROM generate_series(1, %s) t",
                [spec.name, threads],
            )
            cur.execute(
                f"INSERT INTO {s}.conversations_message (thread_id, sequence, role, content, text, agent, "
                "token_estimate, created_at) "
                "SELECT md5(%s || t)::uuid, q, CASE WHEN mod(q, 2) = 1 THEN 'user' ELSE 'assistant' END, "
                "jsonb_build_array(jsonb_build_object('type', 'text', 'text', x.txt)), x.txt, '', 30, now() "
                "FROM generate_series(1, %s) t CROSS JOIN generate_series(1, %s) q "
                f"CROSS JOIN LATERAL (SELECT {_words_sql('t * 1000 + q', 14)} AS txt) x",
                [spec.name, threads, FILLER_THREAD_SIZE],
            )


def _insert_messages(cur, s: str, tid_sql: str, n: int, salt_sql: str) -> None:
    cur.execute(
        f"INSERT INTO {s}.conversations_message (thread_id, sequence, role, content, text, agent, "
        "token_estimate, created_at) "
        f"SELECT {tid_sql}, q, CASE WHEN mod(q, 2) = 1 THEN 'user' ELSE 'assistant' END, "
        "jsonb_build_array(jsonb_build_object('type', 'text', 'text', x.txt)), x.txt, '', 30, now() "
        f"FROM generate_series(1, {n}) q CROSS JOIN LATERAL (SELECT {_words_sql(f'q + {salt_sql}', 14)} AS txt) x"
    )


def _fill_memories(s: str, spec: Spec, user_id: int) -> None:
    if not spec.memories:
        return
    content = " || ".join(
        ["'user '", _words_sql("m", 3), "' and '", _words_sql("m + 7", 3), "' for '", _words_sql("m + 13", 2)]
    )
    with connection.cursor() as cur:
        # Rows 1..25 are the benchmark user's: 20 active, 5 superseded; the rest other users', 20 each.
        cur.execute(
            f"INSERT INTO {s}.memories_memory (user_id, kind, content, importance, status, source_expired, "
            "writer_type, writer_name, created_at, updated_at) "
            f"SELECT CASE WHEN m <= 25 THEN %s ELSE {OTHER_USER_BASE} + m / 20 END, 'fact', {content}, "
            "1 + mod(m, 5), CASE WHEN m <= 25 AND m > 20 THEN 'superseded' ELSE 'active' END, false, 'agent', "
            "'assistant', now(), now() FROM generate_series(1, %s) m",
            [user_id, spec.memories],
        )


# Django's defaults live in Python, not in the table: a column added since the fill
# statements were written (NOT NULL, no default there) gets its type's empty value in the copy.
_EMPTY = {
    "character varying": "''",
    "text": "''",
    "boolean": "false",
    "integer": "0",
    "bigint": "0",
    "smallint": "0",
    "double precision": "0",
    "jsonb": "'{}'::jsonb",
    "timestamp with time zone": "now()",
}


def _default_new_columns(cur, schema: str, tables: tuple[str, ...]) -> None:
    cur.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = %s AND table_name = ANY (%s) AND is_nullable = 'NO' AND column_default IS NULL "
        "AND is_generated = 'NEVER' AND is_identity = 'NO'",
        [schema, list(tables)],
    )
    for table, column, data_type in cur.fetchall():
        if data_type in _EMPTY:
            cur.execute(f'ALTER TABLE {schema}.{table} ALTER COLUMN "{column}" SET DEFAULT {_EMPTY[data_type]}')


# What fills a column a migration added, in a data set's copy of its table (the product's
# own fill, run with the data set first on the search path).
_FILLS = {"conversations_messageembedding": message_vectors.message_int8_copies_fill}


def _upgrade(spec: Spec, fingerprint: str) -> bool:
    """Bring a data set built before a migration up to today's tables in place: add the
    nullable columns and the indexes its copies lack, drop the indexes the product dropped, fill
    them as the migration filled the product's tables, and mark it current. False (nothing
    changed) when the copies differ otherwise: the spec or the product changed in a way only a
    rebuild follows.

    A rebuild of ``bench_v10k`` embeds 10,000 messages again (20+ minutes); adding the int8
    copies of its vectors takes seconds.
    """
    s = spec.name
    if not _current(spec, _fingerprint(spec, schema=s)):
        return False
    tables = list(_tables(spec))
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull OR a.attgenerated <> '' "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY (%s) AND a.attnum > 0 "
            "AND NOT a.attisdropped AND NOT EXISTS (SELECT 1 FROM information_schema.columns i "
            "WHERE i.table_schema = %s AND i.table_name = c.relname AND i.column_name = a.attname) "
            "ORDER BY c.relname, a.attnum",
            [tables, s],
        )
        added = cur.fetchall()
        if any(required for *_, required in added):
            return False
        for table, column, column_type, _ in added:
            cur.execute(f'ALTER TABLE {s}.{table} ADD COLUMN "{column}" {column_type}')
        cur.execute(
            "SELECT replace(p.indexdef, ' ON public.', ' ON ' || %s || '.') FROM pg_indexes p "
            "WHERE p.schemaname = 'public' AND p.tablename = ANY (%s) AND NOT EXISTS "
            "(SELECT 1 FROM pg_indexes q WHERE q.schemaname = %s AND q.indexname = p.indexname)",
            [s, tables, s],
        )
        for (indexdef,) in cur.fetchall():
            cur.execute(indexdef)
        # And without the indexes a migration dropped (else the data set keeps the old plans).
        cur.execute(
            "SELECT q.indexname FROM pg_indexes q WHERE q.schemaname = %s AND q.tablename = ANY (%s) AND NOT EXISTS "
            "(SELECT 1 FROM pg_indexes p WHERE p.schemaname = 'public' AND p.indexname = q.indexname)",
            [s, tables],
        )
        for (indexname,) in cur.fetchall():
            cur.execute(f'DROP INDEX {s}."{indexname}"')
    with using(s):
        for table in sorted({table for table, *_ in added}):
            if table in _FILLS:
                _FILLS[table]()
    with connection.cursor() as cur:
        for table in sorted({table for table, *_ in added}):
            cur.execute(f"VACUUM ANALYZE {s}.{table}")
        cur.execute(f"UPDATE {s}.bench_marker SET fingerprint = %s", [fingerprint])
    return _current(spec, fingerprint)


def ensure(spec: Spec) -> float:
    """Build the schema if missing or stale (or bring it up to today's tables in place, when a
    migration only added nullable columns or added or dropped indexes); returns the seconds spent (0 when reused)."""
    fingerprint = _fingerprint(spec)
    if _current(spec, fingerprint):
        return 0.0
    started = time.monotonic()
    if _upgrade(spec, fingerprint):
        return time.monotonic() - started
    user = scale_user()
    s = spec.name
    tables = _tables(spec)
    with connection.cursor() as cur:
        cur.execute(f"DROP SCHEMA IF EXISTS {s} CASCADE")
        cur.execute(f"CREATE SCHEMA {s}")
        for table in tables:
            cur.execute(f"CREATE TABLE {s}.{table} (LIKE public.{table} INCLUDING ALL EXCLUDING INDEXES)")
        _default_new_columns(cur, s, tables)
    if "conversations_message" in spec.tables:
        _fill_threads(s, spec, user.pk)
    if "memories_memory" in spec.tables:
        _fill_memories(s, spec, user.pk)
    with connection.cursor() as cur:
        # Indexes after the rows (much faster than maintaining them row by row).
        cur.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY (%s)", [list(tables)]
        )
        for (indexdef,) in cur.fetchall():
            cur.execute(indexdef.replace(" ON public.", f" ON {s}."))
    _embed(spec, user.pk)
    with connection.cursor() as cur:
        for table in tables:
            cur.execute(f"VACUUM ANALYZE {s}.{table}")
        cur.execute(f"CREATE TABLE {s}.bench_marker (fingerprint text)")
        cur.execute(f"INSERT INTO {s}.bench_marker VALUES (%s)", [fingerprint])
    return time.monotonic() - started


@contextmanager
def using(*schemas: str):
    """Put the data set schemas first on this connection's search_path for the block."""
    with connection.cursor() as cur:
        cur.execute("SHOW search_path")
        previous = cur.fetchone()[0]
        cur.execute(f"SET search_path TO {', '.join(schemas)}, public")
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute(f"SET search_path TO {previous}")


def row_counts(*tables: str) -> dict[str, int]:
    out = {}
    with connection.cursor() as cur:
        for table in tables:
            cur.execute(f"SELECT count(*) FROM {table}")
            out[table] = cur.fetchone()[0]
    return out
