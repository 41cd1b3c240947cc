"""Embed every message and memory without a current vector (after install, import or a model change)."""

from __future__ import annotations

from conversations.embedding_services import message_embeddings_backfill, messages_without_vector
from memories.embedding_services import memories_without_vector, memory_embeddings_backfill


def embeddings_backfill(*, batch_size: int = 256, limit: int | None = None) -> dict[str, int]:
    """Messages, then memories, oldest first, in batches; resumable (what is done stays done)."""
    return {
        "messages": message_embeddings_backfill(batch_size=batch_size, limit=limit),
        "memories": memory_embeddings_backfill(batch_size=batch_size, limit=limit),
    }


def pending_counts() -> dict[str, int]:
    """How many messages and memories still lack a current vector."""
    return {"messages": messages_without_vector(), "memories": memories_without_vector()}
