"""Deleting threads with what hangs under them (docs/design.md's derived-data rule).

``threads_delete`` is the one place that deletes a thread with everything under it
(messages and their embeddings, summaries, runs and their trace events, checkpoints):
the owner's delete below, the retention purge, the erasure and the runner (a thread
deleted while its run was writing) all call it. What goes and what is unlinked is the
map of personal data's plan (``usecases/personal_data_plan.py``), per event: a thread
deleted by its owner or staff takes the memories drawn from it (audited, by who
deleted), an expired one leaves them saying their source expired, an erased one
leaves them to the erasure.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction

from agents.models import Run
from conversations.models import Thread
from liamemory.errors import Forbidden
from liamemory.personal_data import Event, Parent
from liamemory.roles import is_staff
from usecases.personal_data_plan import deletion_plan

logger = logging.getLogger(__name__)


class DeletionForbidden(Forbidden):
    pass


def _check_actor(*, owner_id: int, actor: User) -> None:
    if actor.pk != owner_id and not is_staff(actor):
        raise DeletionForbidden("Only the owner or staff can delete this.")


def threads_delete(*, thread_ids: Sequence[uuid.UUID | str], event: Event, actor: User | None = None) -> dict[str, int]:
    """Delete these threads and everything under them; counts per store.

    Call inside a transaction (foreign keys are checked at commit). Memories drawn
    from the threads go (``delete``, audited with ``actor``) or stay without the
    pointer (``expire``: marked expired; ``erase``), as the map declares.
    """
    ids = [str(i) for i in thread_ids]
    if not ids:
        return {}
    _lock_runs(ids)
    return deletion_plan(event=event, parent=Parent.THREAD, ids=ids).execute(actor=actor)


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
        # Memories can only have one source, so "only source" means "this source":
        # drawn from the thread, one of its messages or one of its runs.
        counts = threads_delete(thread_ids=[thread.pk], event=Event.DELETE, actor=actor)
    logger.info("thread %s deleted by user %s", thread.pk, actor.pk)
    return counts
