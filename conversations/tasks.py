"""Celery tasks of the conversations app: message vectors, made after commit, never inside a turn."""

from __future__ import annotations

from celery import shared_task

from conversations.embedding_services import message_embeddings_update


# Idempotent (only rows without a current vector are embedded), so late acks are safe:
# a broker that redelivers gives a batch lost with a dead worker to another one, and
# the backfill command catches whatever a broker without redelivery dropped.
@shared_task(
    name="conversations.embed_messages",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=300,
    ignore_result=True,
)
def embed_messages(message_ids: list[int]) -> int:
    return message_embeddings_update(message_ids=message_ids)
