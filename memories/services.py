"""Writes on long-term memories: the one place that decides what may be remembered.

Agents' tools, the API and the admin all come through here. Every refusal is a
:class:`MemoryWriteRefused` whose ``error`` and ``how_to_fix`` are written so a model
can act on them. Every change is recorded by django-simple-history with who made it
(``_history_user``) and why (``_change_reason``): agent writes, which have no human
actor, record the writer's name as the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection, transaction
from django.utils import timezone

from liamemory.errors import ApplicationError, Conflict
from liamemory.retention import memory_expires_at
from memories import embeddings
from memories.matching import analyse
from memories.models import Memory, MemoryKind, MemoryPreference, MemoryStatus, WriterType

RememberAction = Literal["created", "updated", "superseded", "pending"]

DEFAULT_REVIEW_KINDS = (MemoryKind.CLIENT_SETUP, MemoryKind.TEAM_POLICY)
# Writers whose memories of a review kind still need a second pair of eyes. Staff are
# the reviewers; what they write is active at once.
REVIEWED_WRITERS = frozenset(
    {WriterType.AGENT, WriterType.WORKFLOW, WriterType.ONBOARDING, WriterType.IMPORT, WriterType.USER}
)
UPDATABLE_FIELDS = frozenset({"content", "kind", "importance", "expires_at"})


class MemoryWriteRefused(ApplicationError):
    """A memory write that was not done, with what to do instead."""

    def __init__(self, error: str, how_to_fix: str, *, code: str = "refused") -> None:
        super().__init__(error, extra={"how_to_fix": how_to_fix, "code": code})
        self.error = error
        self.how_to_fix = how_to_fix
        self.code = code

    def as_tool_result(self) -> dict[str, Any]:
        return {"ok": False, "error": self.error, "how_to_fix": self.how_to_fix}


@dataclass(frozen=True)
class RememberOutcome:
    memory: Memory
    action: RememberAction
    # The memory that was updated in place or superseded by ``memory``, when any.
    previous_id: int | None = None

    def as_tool_result(self) -> dict[str, Any]:
        """What the remember tool answers, worded for the model."""
        notes = {
            "created": "Remembered.",
            "updated": "A memory already said this; it was updated instead of adding another.",
            "superseded": f"Remembered. It replaces memory #{self.previous_id}, which said otherwise.",
            "pending": "Stored for staff review: it will not be used until a staff member approves it. "
            "Tell the user it is waiting for review.",
        }
        return {
            "ok": True,
            "memory_id": self.memory.pk,
            "action": self.action,
            "status": self.memory.status,
            "note": notes[self.action],
        }


def review_kinds() -> tuple[str, ...]:
    return tuple(getattr(settings, "MEMORY_REVIEW_KINDS", DEFAULT_REVIEW_KINDS))


def _setting(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


def _concrete(memory: Memory) -> Memory:
    """simple-history listens to ``Memory``'s signals only: a proxy instance (the admin's
    review queue) would be saved without an audit row, so it is swapped for the real one."""
    return memory if type(memory) is Memory else Memory.objects.get(pk=memory.pk)


def _audit(memory: Memory, *, actor: AbstractBaseUser | None, reason: str) -> None:
    """Who and why, picked up by simple-history on the next save or delete."""
    memory._history_user = actor if actor is not None and actor.is_authenticated else None
    memory._change_reason = reason[:100]


def _embed_later(memory: Memory) -> None:
    # A new or edited content gets its vector after commit, in a worker; until then
    # recall ignores the stale vector (its hash differs) and ranks the memory lexically.
    if embeddings.enabled():
        from memories.tasks import embed_memories

        embed_memories.delay_on_commit([memory.pk])


def _clean_content(content: str | None) -> str:
    text = (content or "").strip()
    limit = settings.MEMORY_MAX_CHARS
    if not text:
        raise MemoryWriteRefused(
            "The memory is empty.",
            "Pass the fact to remember as one short sentence in `content`.",
            code="empty",
        )
    if len(text) > limit:
        raise MemoryWriteRefused(
            f"The memory is {len(text)} characters long; the limit is {limit}.",
            f"Keep one short fact per memory (at most {limit} characters): drop details that will not matter "
            "next month, or split it into separate facts and remember each one.",
            code="too_long",
        )
    return text


def _check_importance(importance: Any) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int) or not 1 <= importance <= 5:
        raise MemoryWriteRefused(
            f"Importance {importance!r} is not allowed.",
            "Use a whole number from 1 (minor) to 5 (critical); 3 is the usual value.",
            code="bad_importance",
        )
    return importance


def _check_kind(kind: str, allowed_kinds: tuple[str, ...] | list[str] | None) -> str:
    allowed = list(allowed_kinds) if allowed_kinds is not None else list(MemoryKind.values)
    if kind not in MemoryKind.values or kind not in allowed:
        raise MemoryWriteRefused(
            f"Kind {kind!r} cannot be written here.",
            f"Use one of: {', '.join(allowed)} (or leave kind out for 'fact').",
            code="bad_kind",
        )
    return kind


def _check_switches(*, user: AbstractBaseUser, source_thread) -> None:
    if not settings.LONG_TERM_MEMORY_ENABLED:
        raise MemoryWriteRefused(
            "Long-term memory is switched off in this installation.",
            "Do not retry. Answer from the current conversation only.",
            code="memory_disabled",
        )
    if source_thread is not None and source_thread.owner_id != user.pk:
        # Provenance must be the user's own conversation; callers take both from the run.
        raise MemoryWriteRefused(
            "The source conversation is not this user's.",
            "Do not retry. Memories can only come from the user's own conversations.",
            code="foreign_source",
        )
    if source_thread is not None and source_thread.incognito:
        raise MemoryWriteRefused(
            "This conversation is incognito: nothing from it is remembered.",
            "Do not retry. Use the information only within this conversation.",
            code="incognito",
        )
    if not _preference_enabled(user):
        raise MemoryWriteRefused(
            "The user has turned long-term memory off.",
            "Do not retry. Use the information only within this conversation; if the user wants it kept, "
            "they can turn long-term memory back on in their settings.",
            code="memory_off",
        )


def _preference_enabled(user: AbstractBaseUser) -> bool:
    value = MemoryPreference.objects.filter(user=user).values_list("long_term_enabled", flat=True).first()
    return value is not False


def _lock_user(user: AbstractBaseUser) -> None:
    """Serialize one user's memory writes: the cap and the duplicate check read, then write."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


def _candidates(*, user: AbstractBaseUser, kind: str, content: str, statuses: list[str]) -> list[tuple]:
    """Same user, same kind: (memory, similarity, subject similarity), most similar first.

    Both similarities are pg_trgm's, so a near-duplicate found here is what staff find
    with ``similarity()`` in SQL. The subject similarity compares the statements with
    their identifiers and negations removed (see ``memories.matching``).
    """
    now = timezone.now()
    rows = list(
        Memory.objects.for_user(user)
        .filter(kind=kind, status__in=statuses)
        .exclude(expires_at__lte=now)
        .annotate(similarity=TrigramSimilarity("content", content))
        .filter(similarity__gt=0.2)
        .order_by("-similarity", "-id")[:50]
    )
    if not rows:
        return []
    new_subject = analyse(content).subject
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT similarity(%s, s) FROM unnest(%s::text[]) WITH ORDINALITY AS t(s, i) ORDER BY i",
            [new_subject, [analyse(m.content).subject for m in rows]],
        )
        subject_sims = [float(r[0]) for r in cursor.fetchall()]
    return [(m, float(m.similarity), s) for m, s in zip(rows, subject_sims, strict=True)]


def _count_towards_cap(user: AbstractBaseUser) -> int:
    # Pending memories count too: approving them must not break the cap.
    now = timezone.now()
    return (
        Memory.objects.for_user(user)
        .filter(status__in=[MemoryStatus.ACTIVE, MemoryStatus.PENDING])
        .exclude(expires_at__lte=now)
        .count()
    )


def memory_remember(
    *,
    user: AbstractBaseUser,
    content: str,
    kind: str = MemoryKind.FACT,
    importance: int = 3,
    writer_type: str = WriterType.AGENT,
    writer_name: str = "",
    allowed_kinds: tuple[str, ...] | list[str] | None = None,
    source_thread=None,
    source_message=None,
    source_run=None,
    actor: AbstractBaseUser | None = None,
) -> RememberOutcome:
    """Store one short fact about ``user``, or say precisely why not.

    A near-duplicate of an active memory of the same kind updates it; a statement on
    the same subject with another value (or a flipped negation) supersedes it; a kind
    that needs review is stored ``pending``. ``actor`` is the human behind the write
    (user or staff), None for agents and workflows.
    """
    content = _clean_content(content)
    kind = _check_kind(kind, allowed_kinds)
    importance = _check_importance(importance)
    _check_switches(user=user, source_thread=source_thread)
    needs_review = kind in review_kinds() and writer_type in REVIEWED_WRITERS
    reason = f"{writer_type}:{writer_name}" if writer_name else writer_type

    with transaction.atomic():
        _lock_user(user)
        statuses = [MemoryStatus.PENDING] if needs_review else [MemoryStatus.ACTIVE]
        candidates = _candidates(user=user, kind=kind, content=content, statuses=statuses)
        new = analyse(content)
        duplicate = next(
            (
                m
                for m, sim, _ in candidates
                if sim >= _setting("MEMORY_DUPLICATE_SIMILARITY", 0.6) and not analyse(m.content).differs_from(new)
            ),
            None,
        )
        if duplicate is not None:
            duplicate.content = content
            duplicate.importance = max(duplicate.importance, importance)
            duplicate.full_clean(exclude=["user", "source_thread", "source_message", "source_run", "superseded_by"])
            _audit(duplicate, actor=actor, reason=f"{reason} restated (near-duplicate)")
            duplicate.save()
            _embed_later(duplicate)
            action: RememberAction = "pending" if needs_review else "updated"
            return RememberOutcome(memory=duplicate, action=action, previous_id=duplicate.pk)

        contradicted = None
        if not needs_review:
            contradicted = next(
                (
                    m
                    for m, _, subject_sim in candidates
                    if subject_sim >= _setting("MEMORY_SUBJECT_SIMILARITY", 0.8)
                    and analyse(m.content).differs_from(new)
                ),
                None,
            )
        if contradicted is None:
            cap = settings.MEMORY_MAX_ACTIVE_PER_USER
            if _count_towards_cap(user) >= cap:
                raise MemoryWriteRefused(
                    f"The user already has {cap} memories, the most allowed.",
                    "Forget one that is no longer true or useful (forget_fact with its memory_id), or restate an "
                    "existing memory in its own words so that it is updated instead of a new one being added.",
                    code="cap_reached",
                )

        memory = Memory(
            user=user,
            kind=kind,
            content=content,
            importance=importance,
            status=MemoryStatus.PENDING if needs_review else MemoryStatus.ACTIVE,
            writer_type=writer_type,
            writer_name=writer_name[:100],
            source_thread=source_thread,
            source_thread_ref=source_thread.pk if source_thread is not None else None,
            source_message=source_message,
            source_run=source_run,
            expires_at=memory_expires_at(kind=kind),
        )
        # Related rows were handed to us as instances: skip full_clean's existence queries.
        memory.full_clean(exclude=["user", "source_thread", "source_message", "source_run", "superseded_by"])
        _audit(memory, actor=actor, reason=reason)
        memory.save()
        _embed_later(memory)
        if contradicted is not None:
            contradicted.status = MemoryStatus.SUPERSEDED
            contradicted.superseded_by = memory
            _audit(contradicted, actor=actor, reason=f"{reason} superseded by #{memory.pk}")
            contradicted.save(update_fields=["status", "superseded_by", "updated_at"])
            return RememberOutcome(memory=memory, action="superseded", previous_id=contradicted.pk)
    return RememberOutcome(memory=memory, action="pending" if needs_review else "created")


def memory_forget(*, user: AbstractBaseUser, memory_id: int | str, reason: str = "forgotten by the user") -> bool:
    """Delete one of the user's own memories and the older versions it replaced.

    Someone else's id behaves exactly like a missing one (False). The versions it
    superseded go too: "forget my order" must not leave the previous order number.
    """
    try:
        memory = Memory.objects.for_user(user).get(pk=int(memory_id))
    except (Memory.DoesNotExist, ValueError, TypeError):
        return False
    with transaction.atomic():
        chain = [memory]
        frontier = [memory.pk]
        while frontier:
            older = list(Memory.objects.for_user(user).filter(superseded_by_id__in=frontier))
            chain.extend(older)
            frontier = [m.pk for m in older]
        for item in chain:
            _audit(item, actor=user, reason=reason)
            item.delete()
    return True


def _writer_for(actor: AbstractBaseUser, memory: Memory) -> str:
    return WriterType.USER if actor.pk == memory.user_id else WriterType.STAFF


def memory_correct(*, actor: AbstractBaseUser, memory: Memory, content: str) -> Memory:
    """Replace ``memory`` by a corrected text: a new active memory, the old one superseded."""
    memory = _concrete(memory)
    content = _clean_content(content)
    if memory.status not in (MemoryStatus.ACTIVE, MemoryStatus.PENDING):
        raise Conflict(
            f"Memory #{memory.pk} is {memory.status}; only active or pending memories can be corrected.",
            extra={"successor_id": memory.superseded_by_id},
        )
    writer_type = _writer_for(actor, memory)
    with transaction.atomic():
        new = Memory(
            user_id=memory.user_id,
            kind=memory.kind,
            content=content,
            importance=memory.importance,
            status=MemoryStatus.ACTIVE,
            writer_type=writer_type,
            writer_name=getattr(actor, "username", "")[:100],
            source_thread_id=memory.source_thread_id,
            source_thread_ref=memory.source_thread_ref,
            source_message_id=memory.source_message_id,
            source_run_id=memory.source_run_id,
            source_expired=memory.source_expired,
            expires_at=memory.expires_at,
        )
        new.full_clean(exclude=["user", "source_thread", "source_message", "source_run", "superseded_by"])
        _audit(new, actor=actor, reason=f"{writer_type} correction of #{memory.pk}")
        new.save()
        _embed_later(new)
        memory.status = MemoryStatus.SUPERSEDED
        memory.superseded_by = new
        _audit(memory, actor=actor, reason=f"{writer_type} corrected as #{new.pk}")
        memory.save(update_fields=["status", "superseded_by", "updated_at"])
    return new


def memory_update(*, actor: AbstractBaseUser, memory: Memory, **fields: Any) -> Memory:
    """Edit content, kind, importance or expiry in place (status changes have their own services)."""
    memory = _concrete(memory)
    unknown = set(fields) - UPDATABLE_FIELDS
    if unknown:
        raise ApplicationError(
            f"Cannot change {', '.join(sorted(unknown))} here.",
            extra={"allowed": sorted(UPDATABLE_FIELDS)},
        )
    if "content" in fields:
        fields["content"] = _clean_content(fields["content"])
    if "kind" in fields:
        _check_kind(fields["kind"], None)
    if "importance" in fields:
        _check_importance(fields["importance"])
    for name, value in fields.items():
        setattr(memory, name, value)
    memory.full_clean(exclude=["user", "source_thread", "source_message", "source_run", "superseded_by"])
    _audit(memory, actor=actor, reason=f"{_writer_for(actor, memory)} edit")
    memory.save()
    if "content" in fields:
        _embed_later(memory)
    return memory


def _require_pending(memory: Memory, verb: str) -> None:
    if memory.status != MemoryStatus.PENDING:
        raise Conflict(f"Memory #{memory.pk} is {memory.status}; only pending memories can be {verb}.")


def memory_approve(*, actor: AbstractBaseUser, memory: Memory) -> Memory:
    """Make a pending memory visible to agents."""
    memory = _concrete(memory)
    _require_pending(memory, "approved")
    memory.status = MemoryStatus.ACTIVE
    _audit(memory, actor=actor, reason="approved")
    memory.save(update_fields=["status", "updated_at"])
    return memory


def memory_reject(*, actor: AbstractBaseUser, memory: Memory, reason: str = "") -> Memory:
    """Keep a pending memory out of every context; the reason goes into its history."""
    memory = _concrete(memory)
    _require_pending(memory, "rejected")
    memory.status = MemoryStatus.REJECTED
    _audit(memory, actor=actor, reason=f"rejected: {reason}" if reason else "rejected")
    memory.save(update_fields=["status", "updated_at"])
    return memory


def memory_expire_now(*, actor: AbstractBaseUser, memory: Memory) -> Memory:
    """Hide a memory from agents at once; the retention purge deletes it on its next pass."""
    memory = _concrete(memory)
    memory.expires_at = timezone.now()
    _audit(memory, actor=actor, reason="expired now")
    memory.save(update_fields=["expires_at", "updated_at"])
    return memory


def memory_delete(*, actor: AbstractBaseUser, memory: Memory) -> None:
    memory = _concrete(memory)
    _audit(memory, actor=actor, reason=f"deleted by {_writer_for(actor, memory)}")
    memory.delete()


def memory_touch_used(*, memory_ids: list[int]) -> int:
    """Record that memories went into a context. Not a content change: no history row."""
    if not memory_ids:
        return 0
    return Memory.objects.filter(pk__in=memory_ids).update(last_used_at=timezone.now())


def memory_preference_set(*, user: AbstractBaseUser, enabled: bool) -> MemoryPreference:
    """Turn long-term memory on or off for ``user`` (stored memories are kept, not read)."""
    pref, _ = MemoryPreference.objects.update_or_create(user=user, defaults={"long_term_enabled": bool(enabled)})
    return pref
