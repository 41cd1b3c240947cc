"""The one deletion of memories, under the audit policy of why they go.

Every path that deletes a memory comes here: a person forgetting one, staff deleting
one, a thread deleted with the memories drawn from it, the retention purge, an erasure
(of a person, or of one memory by a compliance officer). The map of personal data hands
memories to it (``memories/personal_data.py``: ``delete_with``) because only this app
knows its audit: per event (``liamemory.personal_data.Event``)

- ``delete``: each memory deleted through the ORM, so the history records who did it
  and keeps the text (staff can look back at what was deleted);
- ``forget``: the same, then the history rows of the memories lose their text; the
  older versions the memories replaced go too;
- ``expire``: plain DELETEs, and their history goes with them;
- ``erase``: plain DELETEs (a "deleted" history row would copy the text), the older
  versions go too, and the history rows stay as tombstones (who, when, which id).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User

from liamemory.personal_data import Event, OnParent
from memories.models import Memory, MemoryEmbedding
from memories.selectors import memory_chain_ids
from memories.write_rules import audit

# The events under which the older versions of a memory go with it.
TAKES_CHAIN = (Event.FORGET, Event.ERASE)
# The events under which deleting leaves a history row naming who deleted.
AUDITED = frozenset({Event.DELETE, Event.FORGET})
# What each event does to the history rows of the memories deleted (the rest: kept).
# Declared on the history store's key to the memory (``memories/personal_data.py``).
HISTORY_ON = (
    (Event.FORGET, OnParent.SCRUB_HISTORY),  # the text goes; who, when and why stay
    (Event.EXPIRE, OnParent.DELETE),
    (Event.ERASE, OnParent.SCRUB_HISTORY),  # tombstones: no text, no pointers
)
# What a tombstone keeps: history_id, the memory id, kind, history_type, actor and time.
TOMBSTONE = {
    "content": "",
    "user": None,
    "writer_name": "",
    "source_thread": None,
    "source_thread_ref": None,
    "source_message": None,
    "source_run": None,
    "superseded_by": None,
    "history_change_reason": None,
}


def memories_delete(*, ids: Sequence[int], event: Event, actor: User | None = None, reason: str = "") -> dict[str, int]:
    """Delete these memories with their vectors and, per ``event``, their history.

    Counts per store: ``memories``, ``embeddings`` and ``memory_history`` (deleted, on
    expiry) or ``memory_history_scrubbed`` (emptied, on erasure). Call in a transaction.
    """
    ids = memory_chain_ids(ids=ids) if event in TAKES_CHAIN else list(ids)
    if not ids:
        return {"memories": 0, "embeddings": 0}
    # Newer versions outside the set keep existing: their pointer to a deleted one goes.
    Memory.objects.filter(superseded_by_id__in=ids).exclude(pk__in=ids).update(superseded_by=None)
    # The vectors would go by the database's cascade; deleted first to be counted.
    embeddings = MemoryEmbedding.objects.filter(memory_id__in=ids)
    counts = {"embeddings": embeddings._raw_delete(embeddings.db)}
    history = Memory.history.model.objects.filter(id__in=ids)
    if event in AUDITED:
        deleted = 0
        for memory in Memory.objects.filter(pk__in=ids).order_by("pk"):
            if reason:
                audit(memory, actor=actor, reason=reason)
            else:
                memory._history_user = actor  # type: ignore[attr-defined]
            memory.delete()
            deleted += 1
        counts["memories"] = deleted
        if event is Event.FORGET:
            history.update(content="")
        return counts
    rows = Memory.objects.filter(pk__in=ids)
    counts["memories"] = rows._raw_delete(rows.db)
    if event is Event.EXPIRE:
        counts["memory_history"] = history._raw_delete(history.db)
    else:
        counts["memory_history_scrubbed"] = history.update(**TOMBSTONE)
    return counts


def memory_history_scrub(*, history_ids: Sequence[int]) -> int:
    """Empty these history rows to tombstones (an erased person's rows about memories
    deleted before the erasure, whose history kept the text)."""
    return Memory.history.model.objects.filter(history_id__in=history_ids).update(**TOMBSTONE)
