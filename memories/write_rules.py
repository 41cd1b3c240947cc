"""What every memory write must satisfy, and the bookkeeping each one does.

Refusals are :class:`MemoryWriteRefused`, whose ``error`` and ``how_to_fix`` are
written so a model can act on them. The writes themselves are ``memories/services.py``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User

from liamemory import embeddings
from liamemory.errors import ApplicationError
from liamemory.task_sending import task_send_on_commit
from memories.models import Memory, MemoryKind, WriterType
from memories.selectors import memory_preference_for
from memories.tasks import embed_memories

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
        """What a tool answers the model (``usecases/turn/tools.py``)."""
        return {"ok": False, "error": self.error, "how_to_fix": self.how_to_fix}


def review_kinds() -> tuple[str, ...]:
    return tuple(getattr(settings, "MEMORY_REVIEW_KINDS", DEFAULT_REVIEW_KINDS))


def setting(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


def concrete(memory: Memory) -> Memory:
    """simple-history listens to ``Memory``'s signals only: a proxy instance (the admin's
    review queue) would be saved without an audit row, so it is swapped for the real one."""
    return memory if type(memory) is Memory else Memory.objects.get(pk=memory.pk)


def audit(memory: Memory, *, actor: User | None, reason: str) -> None:
    """Who and why, picked up by simple-history on the next save or delete."""
    who = actor if actor is not None and actor.is_authenticated else None
    memory._history_user = who  # type: ignore[attr-defined]
    memory._change_reason = reason[:100]  # type: ignore[attr-defined]


def embed_later(memory: Memory) -> None:
    # A new or edited content gets its vector after commit, in a worker; until then
    # recall ignores the stale vector (its hash differs) and ranks the memory lexically.
    if embeddings.enabled():
        task_send_on_commit(embed_memories, [memory.pk])


def clean_content(content: str | None) -> str:
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


def check_importance(importance: Any) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int) or not 1 <= importance <= 5:
        raise MemoryWriteRefused(
            f"Importance {importance!r} is not allowed.",
            "Use a whole number from 1 (minor) to 5 (critical); 3 is the usual value.",
            code="bad_importance",
        )
    return importance


def check_kind(kind: str, allowed_kinds: tuple[str, ...] | list[str] | None) -> str:
    allowed = list(allowed_kinds) if allowed_kinds is not None else list(MemoryKind.values)
    if kind not in MemoryKind.values or kind not in allowed:
        raise MemoryWriteRefused(
            f"Kind {kind!r} cannot be written here.",
            f"Use one of: {', '.join(allowed)} (or leave kind out for 'fact').",
            code="bad_kind",
        )
    return kind


def check_switches(*, user: User, source_thread) -> None:
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
    if not memory_preference_for(user=user):
        raise MemoryWriteRefused(
            "The user has turned long-term memory off.",
            "Do not retry. Use the information only within this conversation; if the user wants it kept, "
            "they can turn long-term memory back on in their settings.",
            code="memory_off",
        )
