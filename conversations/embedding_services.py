"""Message vectors for the history search, written in the background.

Called by ``conversations.tasks.embed_messages`` (enqueued on commit by the writers of
messages) and by the ``embeddings_backfill`` command. Each write is one INSERT ... SELECT
joined to the messages, so a message deleted meanwhile (an erasure, a purge) gets no vector.

Tool calls and tool results get none: no search compares them (``conversations.search``
leaves the agent's workings out of every scope), so one thread's vectors are the rows it
searches and its scan needs no look at the messages (migration 0009 removed the earlier ones).
"""

from __future__ import annotations

import logging

from django.db.models import QuerySet

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
