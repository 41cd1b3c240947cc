"""Celery tasks of the memories app: memory vectors, made after commit, never inside a turn."""

from __future__ import annotations

from celery import shared_task

from memories.embedding_services import memory_embeddings_update


# Idempotent (only rows without a current vector are embedded), so late acks are safe:
# a broker that redelivers gives a batch lost with a dead worker to another one, and
# the backfill command catches whatever a broker without redelivery dropped.
@shared_task(
    name="memories.embed_memories", acks_late=True, reject_on_worker_lost=True, soft_time_limit=120, ignore_result=True
)
def embed_memories(memory_ids: list[int]) -> int:
    return memory_embeddings_update(memory_ids=memory_ids)
