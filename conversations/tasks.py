"""Celery tasks of the conversations app. They take ids and call services."""

from __future__ import annotations

import logging
import random

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from conversations.embedding_services import message_embeddings_update
from conversations.summary_services import thread_summary_update
from liamemory.llm import RETRYABLE_CODES, ModelError

logger = logging.getLogger(__name__)

MAX_RETRIES = 5


@shared_task(
    name="conversations.summarize_thread",
    bind=True,
    # Idempotent (a per-thread claim, and a cut computed from the thread's state), so
    # it may be acknowledged late: a broker that redelivers (Redis, RabbitMQ) gives a
    # summary lost with a dead worker to another one. The filesystem broker does not
    # redeliver; there the next turn's enqueue produces the summary instead.
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=MAX_RETRIES,
    soft_time_limit=120,
    time_limit=150,
    ignore_result=True,
)
def summarize_thread(self, thread_id: str, run_id: str | None = None) -> dict[str, object]:
    """Background: a new summary version of the thread when its older messages pay for one."""
    try:
        outcome = thread_summary_update(thread_id=thread_id, run_id=run_id)
    except ModelError as exc:
        if exc.code in RETRYABLE_CODES and self.request.retries < MAX_RETRIES:
            # Exponential backoff with jitter: 10 s, 20 s, 40 s ... capped at 5 minutes.
            countdown = min(300, 10 * 2**self.request.retries) + random.uniform(0, 5)
            logger.info("summary retry thread=%s code=%s in=%.0fs", thread_id, exc.code, countdown)
            raise self.retry(exc=exc, countdown=countdown) from exc
        # Out of retries, or a refusal that retrying will not fix: the extractive
        # summarizer keeps the context bounded until the model is back.
        logger.warning("summary model failed thread=%s code=%s; extractive fallback", thread_id, exc.code)
        outcome = thread_summary_update(thread_id=thread_id, run_id=run_id, use_model=False)
    except SoftTimeLimitExceeded:
        # The transaction was rolled back and the claim released; the next turn enqueues again.
        logger.warning("summary timed out thread=%s", thread_id)
        return {"status": "timed_out"}
    result: dict[str, object] = {"status": outcome.status}
    if outcome.summary is not None:
        result.update(version=outcome.summary.version, covers_through=outcome.summary.covers_through)
    return result


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
