"""Memory vectors for memory recall, written in the background.

Called by ``memories.tasks.embed_memories`` (enqueued on commit when a memory's content
is written) and by the ``embeddings_backfill`` command. Each write is one INSERT ...
SELECT joined to the memories, so a memory deleted meanwhile gets no vector, and one
edited since it was read gets none for its old text.
"""

from __future__ import annotations

import hashlib
import logging

import numpy as np
from django.db import connection

from liamemory import embeddings
from liamemory.vector_rows import vector_rows_write
from memories.models import Memory

logger = logging.getLogger(__name__)

_MEMORIES_SQL = """
INSERT INTO memories_memoryembedding (memory_id, model, content_md5, vector, embedded_at)
SELECT m.id, %(model)s, v.md5, v.vector, now()
FROM unnest(%(ids)s::bigint[], %(md5s)s::text[], %(vectors)s::bytea[]) AS v(id, md5, vector)
JOIN memories_memory m ON m.id = v.id AND md5(m.content) = v.md5
ON CONFLICT (memory_id) DO UPDATE
    SET model = EXCLUDED.model, content_md5 = EXCLUDED.content_md5, vector = EXCLUDED.vector, embedded_at = now()
"""


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
    return memory_vectors_store(rows=[(pk, content, v) for (pk, content), v in zip(rows, vectors, strict=True)])


def memory_vectors_store(*, rows: list[tuple[int, str, np.ndarray]]) -> int:
    """Store (memory id, the content embedded, its passage vector) rows; the number written.

    A memory whose content is no longer the one embedded gets none (the statement joins
    the memories by the content's digest). A write that embedded texts to judge a new
    statement hands them here, so that no worker embeds the same text again.
    """
    if not rows:
        return 0
    params = {
        "model": embeddings.MODEL_NAME,
        "ids": [pk for pk, _, _ in rows],
        "md5s": [content_md5(content) for _, content, _ in rows],
        "vectors": [embeddings.to_bytes(v) for _, _, v in rows],
    }
    return vector_rows_write(_MEMORIES_SQL, params)


def memory_embeddings_backfill(*, batch_size: int = 256, limit: int | None = None) -> int:
    """Embed every memory that lacks a vector of its current content, oldest first, in batches (resumable)."""
    done = 0
    if not embeddings.enabled():
        return done
    last = 0
    while limit is None or done < limit:
        ids = list(Memory.objects.filter(id__gt=last).order_by("id").values_list("id", flat=True)[:batch_size])
        if not ids:
            break
        last = ids[-1]
        done += memory_embeddings_update(memory_ids=ids)
    return done


_PENDING_SQL = """
SELECT count(*) FROM memories_memory m
  LEFT JOIN memories_memoryembedding e
    ON e.memory_id = m.id AND e.model = %(model)s AND e.content_md5 = md5(m.content)
  WHERE e.memory_id IS NULL
"""


def memories_without_vector() -> int:
    """How many memories still lack a vector of their current content."""
    with connection.cursor() as cur:
        cur.execute(_PENDING_SQL, {"model": embeddings.MODEL_NAME})
        return cur.fetchone()[0]
