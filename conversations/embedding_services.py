"""Message vectors for the history search, written in the background.

Called by ``conversations.tasks.embed_messages`` (enqueued on commit by the writers of
messages) and by the ``embeddings_backfill`` command. Each write is one INSERT ... SELECT
joined to the messages, so a message deleted meanwhile (an erasure, a purge) gets no vector.

Tool calls and tool results get none: no search compares them (``conversations.search``
leaves the agent's workings out of every scope), so one thread's vectors are the rows it
searches and its scan needs no look at the messages (migration 0009 removed the earlier ones).

Every vector is written with its int8 copy (``vector_int8``, the exact scan's first pass);
``message_int8_copies_fill`` makes the copies of rows written before they existed (migration
0010, and the backfill command for rows an older worker wrote during a deploy).
"""

from __future__ import annotations

import logging

from django.db import connection, transaction
from django.db.models import QuerySet

from conversations import vector_search
from conversations.models import Message
from liamemory import embeddings
from liamemory.vector_rows import vector_rows_write

logger = logging.getLogger(__name__)

_MESSAGES_SQL = """
INSERT INTO conversations_messageembedding (message_id, thread_id, sequence, model, vector, vector_int8, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, v.vector_int8, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[], %(int8)s::bytea[]) AS v(id, vector, vector_int8)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE
    SET model = EXCLUDED.model, vector = EXCLUDED.vector, vector_int8 = EXCLUDED.vector_int8, created_at = now()
"""

# Where the database has pgvector (``conversations.vector_search``) the same vector also goes
# to the ``halfvec`` column its HNSW index covers; the bytes stay the source of truth.
_MESSAGES_PGVECTOR_SQL = """
INSERT INTO conversations_messageembedding
    (message_id, thread_id, sequence, model, vector, vector_int8, embedding, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, v.vector_int8, v.hv::halfvec, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[], %(int8)s::bytea[], %(halfvecs)s::text[])
     AS v(id, vector, vector_int8, hv)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE
    SET model = EXCLUDED.model, vector = EXCLUDED.vector, vector_int8 = EXCLUDED.vector_int8,
        embedding = EXCLUDED.embedding, created_at = now()
"""

# Rows without an int8 copy, oldest first; their copies, made from the stored float16 bytes.
_UNCOPIED_SQL = """
SELECT message_id, vector FROM conversations_messageembedding
WHERE vector_int8 IS NULL AND message_id > %s
ORDER BY message_id
LIMIT %s
"""
_COPIES_SQL = """
UPDATE conversations_messageembedding e SET vector_int8 = v.vector_int8
FROM unnest(%(ids)s::bigint[], %(int8)s::bytea[]) AS v(id, vector_int8)
WHERE e.message_id = v.id AND e.vector_int8 IS NULL
"""


def message_embeddings_update(*, message_ids: list[int]) -> int:
    """Embed those of the messages that have text, are no tool call or result, and lack a current vector."""
    if not message_ids or not embeddings.enabled():
        return 0
    rows = list(_without_vector().filter(id__in=message_ids).order_by("id").values_list("id", "text"))
    if not rows:
        return 0
    vectors = embeddings.passage_vectors([text for _, text in rows])
    params = {
        "model": embeddings.MODEL_NAME,
        "ids": [i for i, _ in rows],
        "vectors": [embeddings.to_bytes(v) for v in vectors],
        "int8": [embeddings.to_int8_bytes(v) for v in vectors],
    }
    if vector_search.database_has_pgvector():
        params["halfvecs"] = [vector_search.to_halfvec_text(v) for v in vectors]
        return vector_rows_write(_MESSAGES_PGVECTOR_SQL, params)
    return vector_rows_write(_MESSAGES_SQL, params)


def message_int8_copies_fill(*, batch_size: int = 2_000) -> int:
    """Give every stored vector without one its int8 copy, oldest first; the number written.

    From the stored bytes, no model: a batch a transaction, so a long table is filled
    without one long transaction, and an interrupted fill resumes where it stopped.
    """
    done, last = 0, 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_UNCOPIED_SQL, [last, batch_size])
            rows = cursor.fetchall()
            if not rows:
                return done
            last = rows[-1][0]
            vectors = embeddings.from_bytes([bytes(vector) for _, vector in rows])
            cursor.execute(
                _COPIES_SQL, {"ids": [i for i, _ in rows], "int8": [embeddings.to_int8_bytes(v) for v in vectors]}
            )
            done += cursor.rowcount


def message_embeddings_backfill(*, batch_size: int = 256, limit: int | None = None) -> int:
    """Embed every message that lacks a current vector, oldest first, in batches (resumable);
    first, give the vectors written without an int8 copy theirs."""
    done = 0
    if not embeddings.enabled():
        return done
    message_int8_copies_fill()
    queryset = _without_vector()
    last = 0
    while limit is None or done < limit:
        ids = list(queryset.filter(id__gt=last).order_by("id").values_list("id", flat=True)[:batch_size])
        if not ids:
            break
        last = ids[-1]
        done += message_embeddings_update(message_ids=ids)
    return done


def messages_without_vector() -> int:
    """How many messages that should have a vector of the current model lack one."""
    return _without_vector().count()


def _without_vector() -> QuerySet[Message]:
    """The messages with text, not tool calls nor results, without a vector of the current model."""
    return Message.objects.said().exclude(text="").exclude(embedding__model=embeddings.MODEL_NAME)
