"""Deleting threads with what hangs under them (docs/design.md's derived-data rule).

``threads_delete`` is the one place that deletes a thread with everything under it
(messages and their embeddings, summaries, runs and their trace events, checkpoints):
the owner's delete below, the retention purge, the erasure and the runner (a thread
deleted while its run was writing) all call it. It is a use case because those rows
belong to three apps (conversations, agents and its checkpoints); memories are left
to the callers' rules.

A thread deleted by its owner or staff takes with it the memories whose only source
it was.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q

from agents import checkpointer
from agents.models import Approval, Run, RunTransition, TraceEvent
from conversations.models import Message, MessageEmbedding, Thread, ThreadSummary
from liamemory.errors import Forbidden
from liamemory.roles import is_staff
from memories.models import Memory

logger = logging.getLogger(__name__)


class DeletionForbidden(Forbidden):
    pass


def _check_actor(*, owner_id: int, actor: User) -> None:
    if actor.pk != owner_id and not is_staff(actor):
        raise DeletionForbidden("Only the owner or staff can delete this.")


def _delete_memories_audited(memories, actor: User) -> int:
    """Delete one by one so the audit history records who did it (an erasure leaves no audit content)."""
    n = 0
    for memory in memories:
        memory._history_user = actor
        memory.delete()
        n += 1
    return n


def threads_delete(*, thread_ids: Sequence[uuid.UUID | str]) -> dict[str, int]:
    """Delete these threads and everything under them, in plain SQL; counts per store.

    Call inside a transaction (foreign keys are checked at commit). Memories are not
    deleted here: any still pointing at these threads, their messages or runs lose
    the pointer, as the ORM's SET_NULL would. Plain DELETEs, because Django's
    collector would load every message into memory to emulate cascades.
    """
    ids = [str(i) for i in thread_ids]
    counts: dict[str, int] = {}
    if not ids:
        return counts
    _lock_runs(ids)
    memory, message, run = Memory._meta.db_table, Message._meta.db_table, Run._meta.db_table
    thread_messages = f"SELECT id FROM {message} WHERE thread_id = ANY(%s::uuid[])"
    thread_runs = f"SELECT id FROM {run} WHERE thread_id = ANY(%s::uuid[])"
    with connection.cursor() as cur:
        cur.execute(f"UPDATE {memory} SET source_thread_id = NULL WHERE source_thread_id = ANY(%s::uuid[])", [ids])
        cur.execute(
            f"UPDATE {memory} SET source_message_id = NULL WHERE source_message_id IN ({thread_messages})", [ids]
        )
        cur.execute(f"UPDATE {memory} SET source_run_id = NULL WHERE source_run_id IN ({thread_runs})", [ids])
        for store, table, where in (
            ("trace_events", TraceEvent._meta.db_table, f"run_id IN ({thread_runs})"),
            ("run_transitions", RunTransition._meta.db_table, f"run_id IN ({thread_runs})"),
            ("approvals", Approval._meta.db_table, f"run_id IN ({thread_runs})"),
            ("embeddings", MessageEmbedding._meta.db_table, "thread_id = ANY(%s::uuid[])"),
            ("messages", message, "thread_id = ANY(%s::uuid[])"),
            ("summaries", ThreadSummary._meta.db_table, "thread_id = ANY(%s::uuid[])"),
            ("runs", run, "thread_id = ANY(%s::uuid[])"),
            ("threads", Thread._meta.db_table, "id = ANY(%s::uuid[])"),
        ):
            cur.execute(f"DELETE FROM {table} WHERE {where}", [ids])
            counts[store] = cur.rowcount
    # Checkpoints are keyed by the thread id with no foreign key: deleted explicitly.
    counts.update(checkpointer.delete_checkpoints(ids))
    return counts


def _lock_runs(thread_ids: Sequence[str]) -> None:
    """Lock the threads' runs first, in one order, before anything is deleted.

    A run still writing (a trace event, a tool's memory, its reply) holds or waits for
    its own row; with the rows locked here, its next write waits for this deletion and
    then finds the run gone, instead of committing a trace between our DELETE of the
    traces and our DELETE of the runs (the foreign key then failed this deletion: 500).
    The turn's writer locks the run before the thread, so taking runs first cannot
    deadlock with it.
    """
    list(Run.objects.select_for_update().filter(thread_id__in=thread_ids).order_by("pk").values_list("pk", flat=True))


def thread_delete(*, thread: Thread, actor: User) -> dict[str, int]:
    """Delete a thread and what was derived only from it. Returns counts per store."""
    _check_actor(owner_id=thread.owner_id, actor=actor)
    with transaction.atomic():
        _lock_runs([str(thread.pk)])
        # Memories can only have one source, so "only source" means "this source":
        # drawn from the thread, one of its messages or one of its runs.
        derived = Memory.objects.filter(
            Q(source_thread=thread)
            | Q(source_thread_ref=thread.pk)
            | Q(source_message__thread=thread)
            | Q(source_run__thread=thread)
        ).distinct()
        memories = _delete_memories_audited(list(derived), actor)
        counts = threads_delete(thread_ids=[thread.pk])
    logger.info("thread %s deleted by user %s", thread.pk, actor.pk)
    return {**counts, "memories": memories}
