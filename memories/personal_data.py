"""What memories store about people (the declarations: ``liamemory/personal_data.py``)."""

from __future__ import annotations

from liamemory.personal_data import Audit, Event, Key, OnParent, Parent, Store
from memories.deletion import HISTORY_ON, TAKES_CHAIN, memories_delete, memory_history_scrub

DELETE, UNLINK, DETACH, KEEP = OnParent.DELETE, OnParent.UNLINK, OnParent.DETACH, OnParent.KEEP
SCRUB = OnParent.SCRUB_HISTORY

# Where a memory came from. Deleting the source (its owner or staff) takes the memories
# drawn only from it; an expired source leaves them, saying so; otherwise the pointer goes.
_SOURCES = (
    Key(
        "source_thread",
        Parent.THREAD,
        UNLINK,
        on=((Event.DELETE, DELETE), (Event.EXPIRE, DETACH)),
        flag="source_expired",
        ref="source_thread_ref",
    ),
    # The thread's id, kept without a foreign key once the thread expired.
    Key("source_thread_ref", Parent.THREAD, UNLINK, on=((Event.DELETE, DELETE), (Event.EXPIRE, KEEP))),
    Key(
        "source_message",
        Parent.MESSAGE,
        UNLINK,
        on=((Event.DELETE, DELETE), (Event.EXPIRE, DETACH)),
        flag="source_expired",
    ),
    Key("source_run", Parent.RUN, UNLINK, on=((Event.DELETE, DELETE),)),
)


def _scrub_history(*, ids: list[int]) -> int:
    return memory_history_scrub(history_ids=ids)


STORES = (
    Store(
        "memories",
        model="memories.Memory",
        keys=(
            Key("user", Parent.PERSON, DELETE),
            # Forgetting or erasing a memory takes the older versions it replaced.
            Key("superseded_by", Parent.MEMORY, UNLINK, on=tuple((event, DELETE) for event in TAKES_CHAIN)),
            *_SOURCES,
        ),
        content=("content", "writer_name"),
        exported=True,
        audit=Audit.HISTORY,
        description="what the assistant remembered about you",
        delete_with=memories_delete,
    ),
    Store(
        "memory_history_scrubbed",
        model="memories.HistoricalMemory",
        keys=(
            Key("user", Parent.PERSON, SCRUB),
            # The person as the one who changed someone else's memory: the name goes.
            Key(
                "history_user",
                Parent.PERSON,
                OnParent.PSEUDONYMIZE,
                scrubs=("history_user",),
                counted_as="memory_history_actor_cleared",
            ),
            # The memory's id (no foreign key: the history outlives the memory). Its
            # history keeps the text on a deletion, loses it when forgotten or erased
            # (``memories_delete``) and goes when it expires.
            Key("id", Parent.MEMORY, KEEP, on=HISTORY_ON),
            Key("superseded_by", Parent.MEMORY, KEEP, on=((Event.ERASE, SCRUB),)),
            *(Key(k.field, k.parent, KEEP, on=((Event.ERASE, SCRUB),)) for k in _SOURCES),
        ),
        content=("content", "writer_name", "history_change_reason"),
        # Exported as the "audit" of the person's memories.
        exported=True,
        audit=Audit.SELF,
        description="the history of changes to those memories (kept as dates without content)",
        scrub_with=_scrub_history,
    ),
    Store(
        "embeddings",
        model="memories.MemoryEmbedding",
        keys=(Key("memory", Parent.MEMORY, DELETE),),
        content=("vector",),
        description="the search index of your memories",
    ),
    Store(
        "memory_preferences",
        model="memories.MemoryPreference",
        keys=(Key("user", Parent.PERSON, DELETE),),
        exported=True,
        description="your memory settings",
    ),
)
