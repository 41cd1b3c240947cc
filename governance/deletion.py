"""Deleting one thread or one message, with DESIGN.md's derived-data rule.

A thread deleted by its owner or staff takes with it the memories whose only source
it was, its checkpoints, runs and traces. A deleted message takes the memories drawn
from it and every summary that covered it (the next turn summarizes again from the
verbatim history), and its text is removed from the traces of the runs that saw it.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Greatest

from agents import checkpointer
from agents.models import Run, RunStatus, TraceEvent
from conversations.models import Message, Thread, ThreadSummary
from liamemory.errors import Forbidden
from liamemory.roles import is_staff
from memories.models import Memory

logger = logging.getLogger(__name__)

REDACTED_PAYLOAD = {"redacted": "a message this step saw was deleted"}


class DeletionForbidden(Forbidden):
    pass


def _check_actor(*, owner_id: int, actor: AbstractBaseUser) -> None:
    if actor.pk != owner_id and not is_staff(actor):
        raise DeletionForbidden("Only the owner or staff can delete this.")


def _delete_memories(memories, actor: AbstractBaseUser) -> int:
    """Delete one by one so the audit history records who did it."""
    n = 0
    for memory in memories:
        memory._history_user = actor
        memory.delete()
        n += 1
    return n


def thread_delete(*, thread: Thread, actor: AbstractBaseUser) -> dict[str, int]:
    """Delete a thread and what was derived only from it. Returns counts per store."""
    _check_actor(owner_id=thread.owner_id, actor=actor)
    with transaction.atomic():
        # Memories can only have one source, so "only source" means "this source":
        # drawn from the thread, one of its messages or one of its runs.
        derived = Memory.objects.filter(
            Q(source_thread=thread)
            | Q(source_thread_ref=thread.pk)
            | Q(source_message__thread=thread)
            | Q(source_run__thread=thread)
        ).distinct()
        memories = _delete_memories(list(derived), actor)
        cp = checkpointer.delete_checkpoints([str(thread.pk)])
        _, per_model = Thread.objects.filter(pk=thread.pk).delete()
    logger.info("thread %s deleted by user %s", thread.pk, actor.pk)
    return {
        "threads": per_model.get("conversations.Thread", 0),
        "messages": per_model.get("conversations.Message", 0),
        "summaries": per_model.get("conversations.ThreadSummary", 0),
        "runs": per_model.get("agents.Run", 0),
        "trace_events": per_model.get("agents.TraceEvent", 0),
        "memories": memories,
        **cp,
    }


def message_delete(*, message: Message, actor: AbstractBaseUser) -> dict[str, int]:
    """Delete one message, the memories drawn from it and the summaries covering it."""
    thread = message.thread
    _check_actor(owner_id=thread.owner_id, actor=actor)
    with transaction.atomic():
        # Lock the thread: the summarizer and the turn writer take the same lock, so a
        # summary covering this message cannot be written between our steps.
        Thread.objects.select_for_update().filter(pk=thread.pk).first()
        memories = _delete_memories(list(Memory.objects.filter(source_message=message)), actor)
        summaries, _ = ThreadSummary.objects.filter(thread=thread, covers_through__gte=message.sequence).delete()
        # The runs of this thread from this message on had it in their context: their
        # traces may quote it. Their token counts and timings stay; payloads go.
        traces = TraceEvent.objects.filter(run__thread=thread, run__created_at__gte=message.created_at).update(
            payload=REDACTED_PAYLOAD
        )
        # Checkpoints hold working state that may quote the message; they are only
        # needed by a run that is still going or waiting for approval.
        busy = Run.objects.filter(
            thread=thread, status__in=[RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.INTERRUPTED]
        ).exists()
        cp = {} if busy else checkpointer.delete_checkpoints([str(thread.pk)])
        Thread.objects.filter(pk=thread.pk).update(
            history_tokens=Greatest(F("history_tokens") - message.token_estimate, Value(0))
        )
        messages, _ = Message.objects.filter(pk=message.pk).delete()
    logger.info("message %s of thread %s deleted by user %s", message.pk, thread.pk, actor.pk)
    return {"messages": messages, "memories": memories, "summaries": summaries, "trace_events_redacted": traces, **cp}


def memory_erase(*, memory: Memory, actor: AbstractBaseUser) -> dict[str, int]:
    """Erase one memory without a trace of its content: a compliance officer's act.

    Unlike a delete (whose audit keeps the text from before), the memory, the older
    versions it replaced and the content of every audit row about them go; the audit
    rows stay as tombstones (who, when, which id), as in a person's erasure.
    """
    from governance.erasure import _delete_memories as erase_rows
    from governance.erasure import _scrub_history
    from liamemory.roles import is_compliance_officer

    if not is_compliance_officer(actor):
        raise DeletionForbidden("Only compliance officers can erase; staff can delete, which keeps the audit.")
    with transaction.atomic():
        ids, frontier = [memory.pk], [memory.pk]
        while frontier:
            frontier = list(
                Memory.objects.filter(user_id=memory.user_id, superseded_by_id__in=frontier).values_list(
                    "pk", flat=True
                )
            )
            ids += frontier
        counts = erase_rows(ids)
        history = list(Memory.history.model.objects.filter(id__in=ids).values_list("history_id", flat=True))
        counts.update(_scrub_history(history))
    logger.info("memories %s of user %s erased by user %s", ids, memory.user_id, actor.pk)
    return counts
