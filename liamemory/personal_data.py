"""How an app declares what it stores about people: the types of the one map.

Each app declares its stores once (``<app>/personal_data.py``: ``STORES``): the model or
table, its keys to a person, thread, run, message or memory, what happens to a row when
that parent goes, the columns that hold what people said, whether export carries it,
and how its deletions are audited. The engine that reads the declarations crosses apps
and lives in the use cases (``usecases/personal_data.py``); a test fails the build when
a model that points at one of those parents is not declared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from django.apps import apps
from django.contrib.sessions.backends.db import SessionStore
from django.db.models import QuerySet


class Parent(StrEnum):
    """What a row hangs off."""

    PERSON = "person"
    THREAD = "thread"
    RUN = "run"
    MESSAGE = "message"
    MEMORY = "memory"
    # An admin log row names its object by content type and id: any of the above.
    ANY_OBJECT = "any_object"


class Event(StrEnum):
    """Why a parent goes: each event has its own audit policy (``memories_delete``)."""

    DELETE = "delete"  # its owner or staff deleted it (audited; the audit keeps the text)
    FORGET = "forget"  # the person asked to forget it (audited; the audit loses the text)
    EXPIRE = "expire"  # its retention ran out (gone with its audit)
    ERASE = "erase"  # the person is erased (no audit row; audit rows stay as tombstones)


class OnParent(StrEnum):
    """What happens to the row when its parent goes."""

    DELETE = "delete"  # the row goes with it
    UNLINK = "unlink"  # the pointer is cleared; the row is someone else's and stays
    # The pointer is cleared and the row says its source expired (``Key.flag``), keeping
    # the parent's id as a plain value where it has a column for it (``Key.ref``).
    DETACH = "detach"
    SCRUB_HISTORY = "scrub_history"  # an audit row stays as a tombstone, its content emptied
    PSEUDONYMIZE = "pseudonymize"  # the row outlives the person; the named columns are emptied
    KEEP = "keep"  # the row is the record of the erasure itself (emptied when it completes)


class Audit(StrEnum):
    """How deleting the store's rows is recorded."""

    NONE = "none"  # no audit row: plain deletion
    HISTORY = "history"  # every change leaves a history row (with content, until erased)
    SELF = "self"  # the store is itself an audit (who looked, who asked)


@dataclass(frozen=True)
class Key:
    """A column that points at a parent (a foreign key, or an id kept without one)."""

    field: str
    parent: Parent
    # What happens when the parent goes, whatever the event (unless ``on`` says otherwise).
    on_parent: OnParent
    # PSEUDONYMIZE: the columns emptied or replaced in the rows that stay.
    scrubs: tuple[str, ...] = ()
    # Per event, where it differs from ``on_parent``.
    on: tuple[tuple[Event, OnParent], ...] = ()
    # DETACH: the boolean column set, and the column that keeps the parent's id.
    flag: str = ""
    ref: str = ""
    # PSEUDONYMIZE: columns given a text naming the person by the receipt's pseudonym
    # (``{ref}``, formatted), and the count the erasure reports the rows under (the store's
    # name when empty).
    pseudonym: tuple[tuple[str, str], ...] = ()
    counted_as: str = ""

    def action(self, event: Event) -> OnParent:
        """What this event does to the row."""
        return dict(self.on).get(event, self.on_parent)


@dataclass(frozen=True)
class Store:
    """One store of personal data: a model (``app_label.Model``) or a table without one."""

    name: str
    keys: tuple[Key, ...]
    content: tuple[str, ...] = ()
    exported: bool = False
    audit: Audit = Audit.NONE
    model: str = ""
    table: str = ""
    # Plain words for the person's receipt.
    description: str = ""
    # The app's own deletion of these rows, for stores with an audit to write
    # (``delete_with(ids=..., event=..., actor=..., reason=...)`` -> counts per store):
    # it takes what hangs under the rows too, so the engine hands it the ids and stops.
    delete_with: Callable[..., dict[str, int]] | None = field(default=None, compare=False)
    # The store whose ``delete_with`` takes these rows too (the checkpointer deletes
    # its three tables in one call; an account takes its group links): the engine
    # leaves this one to it.
    goes_with: str = ""
    # SCRUB_HISTORY on a person's rows: the app's own emptying of them to tombstones
    # (``scrub_with(ids=...)`` -> rows emptied).
    scrub_with: Callable[..., int] | None = field(default=None, compare=False)
    # Where no declared key can be read by a query (a session's signed data): the
    # person's rows (``find_with(user_id)`` -> a queryset).
    find_with: Callable[[int], QuerySet] | None = field(default=None, compare=False)
    # The rows an erasure takes, of those the keys find (``field lookup``, value): a legal
    # hold in force stops the erasure instead.
    only: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if bool(self.model) == bool(self.table):
            raise ValueError(f"store {self.name}: give a model or a table, not both")


def sessions_of(user_id: int) -> QuerySet:
    """The sessions signed in as the person: their id is inside the signed data, so every
    session is read and decoded (a person has few; the table is small)."""
    # Looked up when called: this module is imported while the apps load.
    session = apps.get_model("sessions", "Session")
    store, wanted = SessionStore(), str(user_id)
    keys = [
        key
        for key, data in session.objects.values_list("session_key", "session_data").iterator(chunk_size=1000)
        if str(store.decode(data).get("_auth_user_id", "")) == wanted
    ]
    return session.objects.filter(session_key__in=keys)


# The stores of the framework's apps (accounts, tokens, sessions, the admin log) and the
# core's own audit of staff reads: declared here, where their models are first used.
FRAMEWORK_STORES = (
    Store(
        "account",
        model="auth.User",
        keys=(Key("id", Parent.PERSON, OnParent.DELETE),),
        content=("username", "email", "first_name", "last_name"),
        exported=True,
        description="your account (deleted, or kept empty when you keep it)",
    ),
    Store(
        "account_groups",
        model="auth.User_groups",
        keys=(Key("user", Parent.PERSON, OnParent.DELETE),),
        goes_with="account",
        description="your account's roles",
    ),
    Store(
        "account_permissions",
        model="auth.User_user_permissions",
        keys=(Key("user", Parent.PERSON, OnParent.DELETE),),
        goes_with="account",
        description="your account's permissions",
    ),
    Store(
        "api_tokens",
        model="authtoken.Token",
        keys=(Key("user", Parent.PERSON, OnParent.DELETE),),
        description="your API keys",
    ),
    Store(
        "sessions",
        model="sessions.Session",
        # The person is inside the signed session data, not in a column.
        keys=(Key("session_data", Parent.PERSON, OnParent.DELETE),),
        content=("session_data",),
        find_with=sessions_of,
        description="your sign-ins",
    ),
    Store(
        "admin_log_entries",
        model="admin.LogEntry",
        keys=(Key("user", Parent.PERSON, OnParent.DELETE), Key("object_id", Parent.ANY_OBJECT, OnParent.DELETE)),
        content=("object_repr", "change_message"),
        audit=Audit.SELF,
        description="the staff's record of changes to your data",
    ),
    Store(
        "staff_access_pseudonymized",
        model="liamemory.StaffAccessLog",
        keys=(
            # Who was looked at: named by the receipt's pseudonym; the ids of what was seen go.
            Key(
                "subject",
                Parent.PERSON,
                OnParent.PSEUDONYMIZE,
                scrubs=("subject", "object_ref"),
                pseudonym=(("subject_ref", "{ref}"),),
            ),
            # Who looked, when the person was the staff member looking.
            Key(
                "viewer",
                Parent.PERSON,
                OnParent.PSEUDONYMIZE,
                scrubs=("viewer",),
                pseudonym=(("viewer_username", "erased person {ref:.12}"),),
            ),
            # The id of what was looked at (a thread, a run, a memory).
            Key("object_ref", Parent.ANY_OBJECT, OnParent.PSEUDONYMIZE, scrubs=("object_ref",)),
        ),
        audit=Audit.SELF,
        description="the record of which staff looked at your data and when (kept, without your name)",
    ),
)
