"""What the agents store about people (the declarations: ``liamemory/personal_data.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents import checkpointer
from liamemory.personal_data import Event, Key, OnParent, Parent, Store

DELETE, UNLINK = OnParent.DELETE, OnParent.UNLINK


def _delete_checkpoints(*, ids: Sequence[Any], **_: Any) -> dict[str, int]:
    # Looked up when called: the checkpointer's one deletion of its three tables.
    return checkpointer.delete_checkpoints([str(i) for i in ids])


STORES = (
    Store(
        "runs",
        model="agents.Run",
        keys=(
            Key("thread", Parent.THREAD, DELETE),
            Key("user", Parent.PERSON, DELETE),
            Key("request_message", Parent.MESSAGE, UNLINK),
            Key("retry_of", Parent.RUN, UNLINK),
        ),
        content=("error_message", "context_report", "partial_text", "partial_steps"),
        exported=True,
        description="the assistant's work on each of your messages",
    ),
    Store(
        "approvals",
        model="agents.Approval",
        keys=(
            Key("run", Parent.RUN, DELETE),
            # The staff member who decided: their erasure leaves the decision, unsigned,
            # also when their account is kept (the account's deletion alone would clear it).
            Key(
                "decided_by",
                Parent.PERSON,
                UNLINK,
                on=((Event.ERASE, OnParent.PSEUDONYMIZE),),
                scrubs=("decided_by",),
                counted_as="references_cleared",
            ),
        ),
        content=("reason", "note"),
        exported=True,
        description="the actions the assistant asked staff to allow for you, and their decisions",
    ),
    Store(
        "trace_events",
        model="agents.TraceEvent",
        keys=(Key("run", Parent.RUN, DELETE),),
        content=("payload",),
        exported=True,
        description="the steps of that work (model calls, tools, searches)",
    ),
    Store(
        "run_transitions",
        model="agents.RunTransition",
        keys=(Key("run", Parent.RUN, DELETE),),
        content=(),
        description="when that work started, waited, ended and why",
    ),
    # LangGraph's checkpointer: keyed by the thread id, without a foreign key.
    *(
        Store(
            table,
            table=table,
            keys=(Key("thread_id", Parent.THREAD, DELETE),),
            content=content,
            description="the assistant's working state, to resume a step",
            delete_with=_delete_checkpoints if table == "checkpoints" else None,
            goes_with="" if table == "checkpoints" else "checkpoints",
        )
        for table, content in (
            ("checkpoints", ("checkpoint", "metadata")),
            ("checkpoint_blobs", ("blob",)),
            ("checkpoint_writes", ("blob",)),
        )
    ),
)
