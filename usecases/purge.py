"""Writes of the governance app: the retention purge."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import datetime

import psycopg
from django.db import OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone

from agents.checkpointer import CHECKPOINT_TABLES
from agents.models import Run
from agents.state_machine import WORKING
from conversations.models import Thread
from governance.models import LegalHold, PurgeRecord
from liamemory.models import RetentionScope
from liamemory.personal_data import Event, Parent
from liamemory.retention import lifetime
from memories.models import Memory, MemoryKind
from usecases.personal_data_plan import deletion_plan
from usecases.thread_deletion import threads_delete

logger = logging.getLogger(__name__)

PURGE_BATCH_SIZE = 500
# What a purge of threads counts (the plan counts the memories' vectors too: none here).
THREAD_COUNTS = ("threads", "trace_events", "run_transitions", "embeddings", "messages", "summaries", "runs")


def _held_users():
    """Users under a legal hold in force, as a subquery (re-read by every batch)."""
    return LegalHold.objects.in_force().values("user_id")


def _claim(queryset, limit: int) -> list:
    """Up to ``limit`` expired ids, locked for this transaction.

    ``FOR UPDATE SKIP LOCKED``: an overlapping purge (a second beat, a manual run)
    skips the rows this one holds and takes others, so nothing is deleted twice and
    neither waits nor fails; rows it already deleted are simply gone for us.
    """
    return list(
        queryset.order_by("expires_at").select_for_update(skip_locked=True).values_list("id", flat=True)[:limit]
    )


def _purge_thread_batch(*, now: datetime, limit: int) -> Counter | None:
    """Expired threads with their messages, summaries, runs, trace events and checkpoints."""
    with transaction.atomic():
        ids = _claim(
            Thread.objects.expired(now)
            .exclude(owner_id__in=_held_users())
            # A turn in flight means the thread is in use: its next append renews it.
            .exclude(runs__status__in=WORKING),
            limit,
        )
        if not ids:
            return None
        # Long-term memories outlive the thread (they have their own retention); their
        # provenance keeps the thread id as a plain value and says it expired.
        deleted = threads_delete(thread_ids=ids, event=Event.EXPIRE)
        counts: Counter = Counter({k: deleted.get(k, 0) for k in THREAD_COUNTS})
        counts["memories_source_expired"] = deleted.get("memories_source_expired", 0)
        counts["checkpoint_rows"] = sum(deleted.get(t, 0) for t in CHECKPOINT_TABLES[:3])
    return counts


def _purge_run_batch(*, now: datetime, limit: int) -> Counter | None:
    """Expired runs (of threads still alive) with their trace events."""
    with transaction.atomic():
        ids = _claim(Run.objects.expired(now).exclude(status__in=WORKING).exclude(user_id__in=_held_users()), limit)
        if not ids:
            return None
        counts: Counter = Counter(deletion_plan(event=Event.EXPIRE, parent=Parent.RUN, ids=ids).execute())
    return counts


def _purge_memory_batch(*, now: datetime, limit: int) -> Counter | None:
    """Expired long-term memories and their audit history (which holds their content)."""
    with transaction.atomic():
        ids = _claim(Memory.objects.expired(now).exclude(user_id__in=_held_users()), limit)
        if not ids:
            return None
        counts: Counter = Counter(deletion_plan(event=Event.EXPIRE, parent=Parent.MEMORY, ids=ids).execute())
    return counts


def _backfill_expiries() -> Counter:
    """Rows stored without an expiry get one from their own timestamps.

    Writers set ``expires_at`` when they store or touch a row; this catches rows
    stored before a policy existed, so that every row ends up with an expiry.
    """
    counts: Counter = Counter()
    for scope, incognito in ((RetentionScope.THREAD, False), (RetentionScope.INCOGNITO_THREAD, True)):
        life = lifetime(scope)
        if life is not None:
            counts["expiry_set_threads"] += Thread.objects.filter(expires_at__isnull=True, incognito=incognito).update(
                expires_at=F("last_activity_at") + life
            )
    life = lifetime(RetentionScope.RUN)
    if life is not None:
        counts["expiry_set_runs"] = Run.objects.filter(expires_at__isnull=True).update(
            expires_at=F("created_at") + life
        )
    for kind in MemoryKind.values:
        life = lifetime(RetentionScope.MEMORY, kind)
        if life is not None:
            counts["expiry_set_memories"] += Memory.objects.filter(expires_at__isnull=True, kind=kind).update(
                expires_at=F("created_at") + life
            )
    return counts


def _held_users_with_expired(now: datetime) -> int:
    held = Q(user_id__in=_held_users())
    users = set(Thread.objects.expired(now).filter(owner_id__in=_held_users()).values_list("owner_id", flat=True))
    users |= set(Run.objects.expired(now).filter(held).values_list("user_id", flat=True))
    users |= set(Memory.objects.expired(now).filter(held).values_list("user_id", flat=True))
    return len(users)


# A batch that PostgreSQL aborted to break a deadlock is run again this many times.
DEADLOCK_RETRIES = 5


def _retrying_deadlocks(purge_batch: Callable[..., Counter | None], *, now: datetime, limit: int) -> Counter | None:
    """One batch; if PostgreSQL chose it as a deadlock's victim, the batch again.

    Two purges (or a purge and a deletion) claim different rows, yet their cascading
    DELETEs and foreign-key checks can still wait on each other's row locks; PostgreSQL
    then aborts one transaction. The batch is one transaction, so nothing of it stayed
    and running it again deletes nothing twice.
    """
    for attempt in range(DEADLOCK_RETRIES):
        try:
            return purge_batch(now=now, limit=limit)
        except OperationalError as exc:
            if not isinstance(exc.__cause__, psycopg.errors.DeadlockDetected) or attempt == DEADLOCK_RETRIES - 1:
                raise
            logger.info("purge batch chosen as a deadlock victim; retrying attempt=%d", attempt + 1)
    return None


def purge_expired(*, now: datetime | None = None, batch_size: int = PURGE_BATCH_SIZE) -> PurgeRecord:
    """Delete every expired thread, run and memory, in batches; record counts, not content.

    Each batch is its own transaction, so a long purge holds no lock for long and an
    interrupted one keeps what it did. Users under a legal hold in force are skipped.
    Safe to run concurrently with itself (see ``_claim``).
    """
    now = now or timezone.now()
    record = PurgeRecord.objects.create()
    counts: Counter = _backfill_expiries()
    for purge_batch in (_purge_thread_batch, _purge_run_batch, _purge_memory_batch):
        while (batch := _retrying_deadlocks(purge_batch, now=now, limit=batch_size)) is not None:
            counts.update(batch)
    record.counts = {
        key: counts.get(key, 0)
        for key in (
            "threads",
            "messages",
            "summaries",
            "runs",
            "trace_events",
            "run_transitions",
            "checkpoint_rows",
            "memories",
            "memory_history",
            "embeddings",
            "memories_source_expired",
            "expiry_set_threads",
            "expiry_set_runs",
            "expiry_set_memories",
        )
    }
    record.skipped_held_users = _held_users_with_expired(now)
    record.finished_at = timezone.now()
    record.full_clean()
    record.save()
    logger.info(
        "purge finished record=%s counts=%s held_skipped=%d", record.pk, record.counts, record.skipped_held_users
    )
    return record
