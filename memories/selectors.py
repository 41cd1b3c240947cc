"""Reads on long-term memories. Ownership scoping lives here."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.postgres.search import TrigramWordSimilarity
from django.db.models import F, OuterRef, QuerySet, Subquery

from liamemory.errors import NotFound
from memories.models import Memory, MemoryPreference

# Staff type whole words: below this word similarity a hit shares only stray trigrams.
STAFF_SEARCH_MIN_SIMILARITY = 0.3


class MemoryNotFound(NotFound):
    """A memory that does not exist or is not the caller's: the two are indistinguishable."""

    def __init__(self, memory_id: object = None) -> None:
        super().__init__("Memory not found.", extra={"memory_id": str(memory_id)} if memory_id is not None else {})


def memory_list_for_user(*, user: User, kind: str | None = None, status: str | None = None) -> QuerySet[Memory]:
    qs = Memory.objects.for_user(user)
    if kind:
        qs = qs.filter(kind=kind)
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-updated_at", "-id")


def memory_get_for_user(*, user: User, memory_id: int | str) -> Memory:
    try:
        return Memory.objects.for_user(user).get(pk=int(memory_id))
    except (Memory.DoesNotExist, ValueError, TypeError) as exc:
        raise MemoryNotFound(memory_id) from exc


def memory_get_for_staff(*, memory_id: int | str) -> Memory:
    """Any user's memory (staff and compliance APIs; the role is checked by the caller)."""
    try:
        return Memory.objects.select_related("user").get(pk=int(memory_id))
    except (Memory.DoesNotExist, ValueError, TypeError) as exc:
        raise MemoryNotFound(memory_id) from exc


def memory_preference_for(*, user: User) -> bool:
    """The user's own switch (absent row = on), whatever the installation's setting."""
    return memory_preference_value(
        MemoryPreference.objects.filter(user=user).values_list("long_term_enabled", flat=True).first()
    )


def memory_preference_of(user_field: str) -> Subquery:
    """The user's own switch as an expression over a row whose ``user_field`` names the user:
    another read takes it along (the turn's read of its run) instead of a query of its own.
    Read it back with ``memory_preference_value``."""
    return Subquery(MemoryPreference.objects.filter(user=OuterRef(user_field)).values("long_term_enabled")[:1])


def memory_preference_sql(user_param: str) -> str:
    """The same switch as a scalar SQL expression over the statement's parameter ``user_param``
    (the user's id), for a raw read that takes it along (the context's first read,
    ``conversations.selectors.summary_and_window``). Read it back with ``memory_preference_value``."""
    return f"(SELECT p.long_term_enabled FROM {MemoryPreference._meta.db_table} p WHERE p.user_id = %({user_param})s)"


def memory_preference_value(stored: bool | None) -> bool:
    """The switch from its stored value: an absent row (None) is on."""
    return stored is not False


def memory_list_for_staff(
    *,
    q: str | None = None,
    user_id: int | None = None,
    kind: str | None = None,
    status: str | None = None,
    writer_type: str | None = None,
) -> QuerySet[Memory]:
    """Every user's memories for staff; ``q`` ranks by trigram word similarity (served by the GIN index)."""
    qs = Memory.objects.select_related("user")
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    if kind:
        qs = qs.filter(kind=kind)
    if status:
        qs = qs.filter(status=status)
    if writer_type:
        qs = qs.filter(writer_type=writer_type)
    if q:
        return memories_ranked(qs, q=q)
    return qs.order_by("-created_at", "-id")


def memories_ranked(qs: QuerySet[Memory], *, q: str) -> QuerySet[Memory]:
    """``qs`` ranked by trigram word similarity to ``q`` (served by the GIN index), weak hits out.

    The staff search of the API and of the admin.
    """
    return (
        qs.annotate(score=TrigramWordSimilarity(q, "content"))
        .filter(score__gt=STAFF_SEARCH_MIN_SIMILARITY)
        .order_by("-score", "-id")
    )


def long_term_enabled_for(*, user: User, preference: bool | None = None) -> bool:
    """Whether long-term memory may be read or written for ``user`` (the thread's incognito aside).

    ``preference``: the user's switch, when the caller read it along (``memory_preference_of``).
    """
    if not settings.LONG_TERM_MEMORY_ENABLED:
        return False
    return memory_preference_for(user=user) if preference is None else preference


def long_term_memory_allowed(*, user: User, thread, preference: bool | None = None) -> bool:
    """The memory switch of a turn: off for incognito threads, for users who switched it
    off, and installation-wide by setting. The one place that decides it (``preference``:
    as in ``long_term_enabled_for``)."""
    return not thread.incognito and long_term_enabled_for(user=user, preference=preference)


def pinned_memories(*, user: User, kinds: tuple[str, ...] = ("rule",), limit: int = 10) -> list[Memory]:
    """Active memories of the pinned kinds, put in every context regardless of the message."""
    return list(Memory.objects.for_user(user).active().of_kind(*kinds).order_by("-importance", "-id")[:limit])


def newest_memories(*, user: User, kinds: Sequence[str], exclude: Sequence[int] = (), limit: int = 8) -> list[Memory]:
    """The person's newest active memories of ``kinds`` but those of ``exclude``."""
    if limit <= 0:
        return []
    rows = Memory.objects.for_user(user).active().of_kind(*kinds).exclude(pk__in=list(exclude))
    return list(rows.order_by("-updated_at", "-id")[:limit])


def forgotten_source_messages(*, user: User) -> set[int]:
    """Messages that were the source of one of ``user``'s memories since deleted ("forget my order").

    Recall across conversations leaves them out: what the person asked to forget must not
    come back from another conversation. Read from the memories' audit rows (which keep
    the source, never the forgotten text).
    """
    return set(
        Memory.history.model.objects.filter(user_id=user.pk, history_type="-", source_message_id__isnull=False)
        .values_list("source_message_id", flat=True)
        .distinct()
    )


def memory_chain_ids(*, ids: Sequence[int]) -> list[int]:
    """These memories and every older version of them (what they superseded, and so on),
    newest first: what forgetting or erasing them takes along, so no older value comes
    back. The one walk of the supersession chain. Only the same person's memories: a
    chain never crosses people."""
    found, frontier = list(dict.fromkeys(ids)), list(ids)
    while frontier:
        frontier = list(
            Memory.objects.filter(superseded_by_id__in=frontier, user_id=F("superseded_by__user_id"))
            .exclude(pk__in=found)
            .values_list("pk", flat=True)
        )
        found += frontier
    return found
