"""Message vectors searchable by pgvector, where the server has it; nothing otherwise.

Conditional and reversible: on a server with the ``vector`` extension available (the
embedded PostgreSQL ships pgvector 0.8), create the extension, a ``halfvec(384)``
column filled from the stored float16 bytes, and an HNSW index for inner product (the
vectors have unit length, so it is their cosine). On a server without it (Debian's
PostgreSQL 15) this does nothing, and search keeps the exact scan in numpy:
``conversations.vector_search`` probes which of the two it has. The column is not in the
Django model, so ``makemigrations`` sees no change either way.
"""

import numpy as np
from django.db import DatabaseError, migrations, transaction

TABLE = "conversations_messageembedding"
INDEX = "msg_embedding_hnsw_idx"
DIM = 384
BATCH = 2_000
SETTINGS = {"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "100"}


def _halfvec_text(blob: bytes) -> str | None:
    if len(blob) != 2 * DIM:
        return None
    return "[" + ",".join(f"{x:.6g}" for x in np.frombuffer(blob, dtype="<f2").astype(np.float32)) + "]"


def add_pgvector(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cur.fetchone() is None:
            return
        try:
            with transaction.atomic(using=connection.alias):
                cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except DatabaseError:
            return  # available but not ours to create (no privilege): the exact scan serves
        cur.execute(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS embedding halfvec({DIM})")
        last = 0
        while True:
            cur.execute(
                f"SELECT message_id, vector FROM {TABLE} WHERE message_id > %s ORDER BY message_id LIMIT %s",
                [last, BATCH],
            )
            rows = cur.fetchall()
            if not rows:
                break
            last = rows[-1][0]
            cur.execute(
                f"UPDATE {TABLE} e SET embedding = v.hv::halfvec "
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, hv) WHERE e.message_id = v.id",
                [[r[0] for r in rows], [_halfvec_text(bytes(r[1])) for r in rows]],
            )
        cur.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON {TABLE} USING hnsw (embedding halfvec_ip_ops)")
        # A scope filter (one thread, one user's threads) keeps the index walking until
        # enough rows of the scope are found, and the fusion takes up to 400 of them:
        # set for every new session of this database, and for this one.
        database = schema_editor.quote_name(connection.settings_dict["NAME"])
        for name, value in SETTINGS.items():
            try:
                with transaction.atomic(using=connection.alias):
                    cur.execute(f"ALTER DATABASE {database} SET {name} = '{value}'")
            except DatabaseError:
                pass  # not the database's owner: pgvector's defaults (fewer rows across threads)
            cur.execute("SELECT set_config(%s, %s, false)", [name, value])


def remove_pgvector(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cur:
        database = schema_editor.quote_name(connection.settings_dict["NAME"])
        for name in SETTINGS:
            try:
                with transaction.atomic(using=connection.alias):
                    cur.execute(f"ALTER DATABASE {database} RESET {name}")
            except DatabaseError:
                pass
        cur.execute(f"DROP INDEX IF EXISTS {INDEX}")
        cur.execute(f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS embedding")
        try:
            with transaction.atomic(using=connection.alias):
                cur.execute("DROP EXTENSION IF EXISTS vector")
        except DatabaseError:
            pass  # something else of this database uses the extension: it stays


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0004_message_embedding_cascade"),
    ]

    operations = [migrations.RunPython(add_pgvector, remove_pgvector)]
