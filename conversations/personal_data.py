"""What conversations store about people (the declarations: ``liamemory/personal_data.py``)."""

from __future__ import annotations

from liamemory.personal_data import Key, OnParent, Parent, Store

DELETE, UNLINK = OnParent.DELETE, OnParent.UNLINK

STORES = (
    Store(
        "threads",
        model="conversations.Thread",
        keys=(Key("owner", Parent.PERSON, DELETE),),
        content=("title",),
        exported=True,
        description="your conversations",
    ),
    Store(
        "messages",
        model="conversations.Message",
        keys=(
            Key("thread", Parent.THREAD, DELETE),
            Key("run", Parent.RUN, UNLINK),
            Key("corrects", Parent.MESSAGE, DELETE),
        ),
        content=("text", "content"),
        exported=True,
        description="what you and the assistant said in them",
    ),
    Store(
        "summaries",
        model="conversations.ThreadSummary",
        keys=(Key("thread", Parent.THREAD, DELETE),),
        content=("text",),
        exported=True,
        description="the summaries of your conversations",
    ),
    Store(
        "embeddings",
        model="conversations.MessageEmbedding",
        keys=(Key("thread", Parent.THREAD, DELETE), Key("message", Parent.MESSAGE, DELETE)),
        content=("vector", "vector_int8"),
        description="the search index of your messages",
    ),
)
