"""Writes of embeddings: messages and memories get their vectors, in the background.

Called by the tasks in ``memories.tasks`` (enqueued on commit when messages are
appended and when a memory's content is written) and by the ``embeddings_backfill``
command. Each write is one INSERT ... SELECT joined to the source rows, so a message
or memory deleted meanwhile (an erasure, a purge) gets no vector, and a memory edited
since it was read gets none for its old text.
"""

from __future__ import annotations

import hashlib
import logging

from django.db import IntegrityError, connection, transaction

from conversations.models import Message
from memories import embeddings, vector_search
from memories.models import Memory

logger = logging.getLogger(__name__)

_MESSAGES_SQL = """
INSERT INTO conversations_messageembedding (message_id, thread_id, sequence, model, vector, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[]) AS v(id, vector)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE SET model = EXCLUDED.model, vector = EXCLUDED.vector, created_at = now()
"""

# Where the database has pgvector (``memories.vector_search``) the same vector also goes
# to the ``halfvec`` column its HNSW index covers; the bytes stay the source of truth.
_MESSAGES_PGVECTOR_SQL = """
INSERT INTO conversations_messageembedding (message_id, thread_id, sequence, model, vector, embedding, created_at)
SELECT m.id, m.thread_id, m.sequence, %(model)s, v.vector, v.hv::halfvec, now()
FROM unnest(%(ids)s::bigint[], %(vectors)s::bytea[], %(halfvecs)s::text[]) AS v(id, vector, hv)
JOIN conversations_message m ON m.id = v.id
ON CONFLICT (message_id) DO UPDATE
    SET model = EXCLUDED.model, vector = EXCLUDED.vector, embedding = EXCLUDED.embedding, created_at = now()
"""

_MEMORIES_SQL = """
INSERT INTO memories_memoryembedding (memory_id, model, content_md5, vector, embedded_at)
SELECT m.id, %(model)s, v.md5, v.vector, now()
FROM unnest(%(ids)s::bigint[], %(md5s)s::text[], %(vectors)s::bytea[]) AS v(id, md5, vector)
JOIN memories_memory m ON m.id = v.id AND md5(m.content) = v.md5
ON CONFLICT (memory_id) DO UPDATE
    SET model = EXCLUDED.model, content_md5 = EXCLUDED.content_md5, vector = EXCLUDED.vector, embedded_at = now()
"""


def _write(sql: str, params: dict) -> int:
    # The foreign keys are checked at commit: a source row deleted between our read
    # and our commit fails the write, and the next attempt skips it.
    for attempt in (1, 2):
        try:
            with transaction.atomic(), connection.cursor() as cur:
                cur.execute(sql, params)
                return cur.rowcount
        except IntegrityError:
            if attempt == 2:
                raise
    return 0


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
        return _write(_MESSAGES_PGVECTOR_SQL, params)
    return _write(_MESSAGES_SQL, params)


def content_md5(content: str) -> str:
    # Same digest as PostgreSQL's md5(text) of the UTF-8 database.
    return hashlib.md5(content.encode("utf-8"), usedforsecurity=False).hexdigest()


def memory_embeddings_update(*, memory_ids: list[int]) -> int:
    """Embed those of the memories whose current content has no vector of the current model."""
    if not memory_ids or not embeddings.enabled():
        return 0
    rows = [
        (pk, content)
        for pk, content, model, md5 in Memory.objects.filter(id__in=memory_ids)
        .order_by("id")
        .values_list("id", "content", "embedding__model", "embedding__content_md5")
        if model != embeddings.MODEL_NAME or md5 != content_md5(content)
    ]
    if not rows:
        return 0
    vectors = embeddings.passage_vectors([content for _, content in rows])
    params = {
        "model": embeddings.MODEL_NAME,
        "ids": [pk for pk, _ in rows],
        "md5s": [content_md5(content) for _, content in rows],
        "vectors": [embeddings.to_bytes(v) for v in vectors],
    }
    return _write(_MEMORIES_SQL, params)


def embeddings_backfill(*, batch_size: int = 256, limit: int | None = None) -> dict[str, int]:
    """Embed every message and memory that lacks a current vector, oldest first, in batches.

    Resumable: what is done stays done; a second run finds nothing left.
    """
    done = {"messages": 0, "memories": 0}
    if not embeddings.enabled():
        return done
    sources = (
        (
            "messages",
            Message.objects.exclude(text="").exclude(embedding__model=embeddings.MODEL_NAME),
            message_embeddings_update,
            "message_ids",
        ),
        ("memories", Memory.objects.all(), memory_embeddings_update, "memory_ids"),
    )
    for store, queryset, update, arg in sources:
        last = 0
        while limit is None or done[store] < limit:
            ids = list(queryset.filter(id__gt=last).order_by("id").values_list("id", flat=True)[:batch_size])
            if not ids:
                break
            last = ids[-1]
            done[store] += update(**{arg: ids})
    return done


_PENDING_SQL = """
SELECT
    (SELECT count(*) FROM conversations_message m
      LEFT JOIN conversations_messageembedding e ON e.message_id = m.id AND e.model = %(model)s
      WHERE m.text <> '' AND e.message_id IS NULL),
    (SELECT count(*) FROM memories_memory m
      LEFT JOIN memories_memoryembedding e
        ON e.memory_id = m.id AND e.model = %(model)s AND e.content_md5 = md5(m.content)
      WHERE e.memory_id IS NULL)
"""


def pending_counts() -> dict[str, int]:
    """How many messages and memories still lack a current vector."""
    with connection.cursor() as cur:
        cur.execute(_PENDING_SQL, {"model": embeddings.MODEL_NAME})
        messages, memories = cur.fetchone()
    return {"messages": messages, "memories": memories}
