"""Message vectors for the history search, written in the background.

Called by ``conversations.tasks.embed_messages`` (enqueued on commit by the writers of
messages) and by the ``embeddings_backfill`` command. Each write is one INSERT ... SELECT
joined to the messages, so a message deleted meanwhile (an erasure, a purge) gets no vector.
"""

from __future__ import annotations

import logging

from django.db import connection

from conversations import vector_search
from conversations.models import Message
from liamemory import embeddings
from liamemory.vector_rows import vector_rows_write

logger = logging.getLogger(__name__)

_MESSAGES_SQL = """
INSERT INTO conversations_messageembedding (message_id, thread_id, sequence, model, vector, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[]) AS v(id, vector)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE SET model = EXCLUDED.model, vector = EXCLUDED.vector, created_at = now()
"""

# Where the database has pgvector (``conversations.vector_search``) the same vector also goes
# to the ``halfvec`` column its HNSW index covers; the bytes stay the source of truth.
_MESSAGES_PGVECTOR_SQL = """
INSERT INTO conversations_messageembedding (message_id, thread_id, sequence, model, vector, embedding, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, v.hv::halfvec, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[], %(halfvecs)s::text[]) AS v(id, vector, hv)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE
    SET model = EXCLUDED.model, vector = EXCLUDED.vector, embedding = EXCLUDED.embedding, created_at = now()
"""


def message_embeddings_update(*, message_ids: list[int]) -> int:
    """Embed those of the messages that have text and no vector of the current model."""
    if not message_ids or not embeddings.enabled():
        return 0
    rows = list(
        Message.objects.filter(id__in=message_ids)
        .exclude(text="")
        .exclude(embedding__model=embeddings.MODEL_NAME)
        .order_by("id")
        .values_list("id", "text")
    )
    if not rows:
        return 0
    vectors = embeddings.passage_vectors([text for _, text in rows])
    params = {
        "model": embeddings.MODEL_NAME,
        "ids": [i for i, _ in rows],
        "vectors": [embeddings.to_bytes(v) for v in vectors],
    }
    if vector_search.database_has_pgvector():
        params["halfvecs"] = [vector_search.to_halfvec_text(v) for v in vectors]
        return vector_rows_write(_MESSAGES_PGVECTOR_SQL, params)
    return vector_rows_write(_MESSAGES_SQL, params)



def message_embeddings_backfill(*, batch_size: int = 256, limit: int | None = None) -> int:
    """Embed every message that lacks a current vector, oldest first, in batches (resumable)."""
    done = 0
    if not embeddings.enabled():
        return done
    queryset = Message.objects.exclude(text="").exclude(embedding__model=embeddings.MODEL_NAME)
    last = 0
    while limit is None or done < limit:
        ids = list(queryset.filter(id__gt=last).order_by("id").values_list("id", flat=True)[:batch_size])
        if not ids:
            break
        last = ids[-1]
        done += message_embeddings_update(message_ids=ids)
    return done


_PENDING_SQL = """
SELECT count(*) FROM conversations_message m
  LEFT JOIN conversations_messageembedding e ON e.message_id = m.id AND e.model = %(model)s
  WHERE m.text <> '' AND e.message_id IS NULL
"""


def messages_without_vector() -> int:
    """How many messages with text still lack a current vector."""
    with connection.cursor() as cur:
        cur.execute(_PENDING_SQL, {"model": embeddings.MODEL_NAME})
        return cur.fetchone()[0]

