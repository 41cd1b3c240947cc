"""Celery tasks of the use cases: the thread summary, the erasure and the purge (the turn's
are ``usecases/turn/tasks.py``).

They take ids (or nothing) and call a use case. They sit beside the use cases, not above
them, because the use cases enqueue them (on commit): a task module in a layer above
would make every enqueue an upward import.
"""

from __future__ import annotations

import logging
import random

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from governance.models import ErasureRequest
from liamemory.llm import RETRYABLE_CODES, ModelError
from liamemory.task_sending import task_send_on_commit
from usecases import purge
from usecases.erasure_execution import AUTOMATIC_ATTEMPTS, erasure_execute, erasures_reap_interrupted
from usecases.memory_changes import message_changes_memory
from usecases.thread_summary import thread_summarize

logger = logging.getLogger(__name__)

MAX_RETRIES = 5


@shared_task(
    name="conversations.summarize_thread",
    bind=True,
    # Idempotent (a per-thread claim held by the task id, and a cut computed from the thread's state), so
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
        outcome = thread_summarize(thread_id=thread_id, run_id=run_id, claim=self.request.id)
    except ModelError as exc:
        if exc.code in RETRYABLE_CODES and self.request.retries < MAX_RETRIES:
            # Exponential backoff with jitter: 10 s, 20 s, 40 s ... capped at 5 minutes.
            countdown = min(300, 10 * 2**self.request.retries) + random.uniform(0, 5)
            logger.info("summary retry thread=%s code=%s in=%.0fs", thread_id, exc.code, countdown)
            raise self.retry(exc=exc, countdown=countdown) from exc
        # Out of retries, or a refusal that retrying will not fix: the extractive
        # summarizer keeps the context bounded until the model is back.
        logger.warning("summary model failed thread=%s code=%s; extractive fallback", thread_id, exc.code)
        outcome = thread_summarize(thread_id=thread_id, run_id=run_id, use_model=False, claim=self.request.id)
    except SoftTimeLimitExceeded:
        # Nothing was written and the claim is released; the next turn enqueues again.
        logger.warning("summary timed out thread=%s", thread_id)
        return {"status": "timed_out"}
    result: dict[str, object] = {"status": outcome.status}
    if outcome.summary is not None:
        result.update(version=outcome.summary.version, covers_through=outcome.summary.covers_through)
    return result


@shared_task(name="governance.execute_erasure", acks_late=True, soft_time_limit=1800, time_limit=1900)
def execute_erasure(request_id: str) -> dict[str, str]:
    """Run one erasure request. Idempotent and resumable, so late acks are safe:
    a redelivered task continues where the dead worker stopped, or does nothing."""
    request = erasure_execute(request_id=request_id)
    return {"request_id": str(request.pk), "status": request.status}


@shared_task(name="memories.message_changes_memory", soft_time_limit=60, time_limit=90, ignore_result=True)
def check_message_changes(message_id: int) -> dict[str, object]:
    """Background, after a turn: whether the person's message changed a memory the turn left active."""
    outcome = message_changes_memory(message_id=message_id)
    return {"action": outcome.action if outcome else "none"}


# Periodic (django-celery-beat, governance migration 0006).
@shared_task(name="governance.reap_stale_erasures", soft_time_limit=60, time_limit=90, ignore_result=True)
def reap_stale_erasures() -> dict[str, int]:
    """Find erasures a dead worker left ``running``, or lost before their claim (still
    ``pending`` a while after execution was asked for): failed, and resumed in the worker
    unless they were already started a few times."""
    reaped = erasures_reap_interrupted()
    for request in ErasureRequest.objects.filter(pk__in=reaped, attempts__lt=AUTOMATIC_ATTEMPTS):
        task_send_on_commit(execute_erasure, str(request.pk))
    return {"interrupted": len(reaped)}


# Periodic (django-celery-beat, see migration 0002). Late ack is safe: overlapping or
# repeated purges delete nothing twice.
@shared_task(name="governance.purge_expired", acks_late=True, soft_time_limit=900, time_limit=960, ignore_result=True)
def purge_expired() -> dict[str, int]:
    """Delete what expired (threads, runs, memories and what lives with them)."""
    record = purge.purge_expired()
    return {**record.counts, "skipped_held_users": record.skipped_held_users}
