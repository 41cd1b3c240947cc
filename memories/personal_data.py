"""What memories store about people (the declarations: ``liamemory/personal_data.py``)."""

from __future__ import annotations

from liamemory.personal_data import Audit, Key, OnParent, Parent, Store

DELETE, UNLINK = OnParent.DELETE, OnParent.UNLINK

_SOURCES = (
    Key("source_thread", Parent.THREAD, UNLINK),
    # The thread's id, kept without a foreign key once the thread expired.
    Key("source_thread_ref", Parent.THREAD, UNLINK),
    Key("source_message", Parent.MESSAGE, UNLINK),
    Key("source_run", Parent.RUN, UNLINK),
)

STORES = (
    Store(
        "memories",
        model="memories.Memory",
        keys=(Key("user", Parent.PERSON, DELETE), Key("superseded_by", Parent.MEMORY, UNLINK), *_SOURCES),
        content=("content", "writer_name"),
        exported=True,
        audit=Audit.HISTORY,
        description="what the assistant remembered about you",
    ),
    Store(
        "memory_history_scrubbed",
        model="memories.HistoricalMemory",
        keys=(
            Key("user", Parent.PERSON, OnParent.SCRUB_HISTORY),
            Key("history_user", Parent.PERSON, OnParent.PSEUDONYMIZE, scrubs=("history_user",)),
            Key("superseded_by", Parent.MEMORY, OnParent.SCRUB_HISTORY),
            *(Key(k.field, k.parent, OnParent.SCRUB_HISTORY) for k in _SOURCES),
        ),
        content=("content", "writer_name", "history_change_reason"),
        audit=Audit.SELF,
        description="the history of changes to those memories (kept as dates without content)",
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
