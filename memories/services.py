"""Writes on long-term memories: the one place that decides what may be remembered.

Agents' tools, the API and the admin all come through here, and what they store reads
as a fact (``memories.text.memory_text``). Every refusal is a
:class:`MemoryWriteRefused` whose ``error`` and ``how_to_fix`` are written so a model
can act on them. Every change is recorded by django-simple-history with who made it
(``_history_user``) and why (``_change_reason``): agent writes, which have no human
actor, record the writer's name as the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from liamemory import embeddings
from liamemory.errors import ApplicationError, Conflict
from liamemory.personal_data import Event
from liamemory.retention import memory_expires_at
from memories.contradiction_model import model_enabled, model_replaced
from memories.deletion import memories_delete
from memories.embedding_services import content_md5, memory_vectors_store
from memories.matching import Verdict
from memories.matching.change import choose, close_candidates
from memories.models import Memory, MemoryEmbedding, MemoryKind, MemoryPreference, MemoryStatus, WriterType
from memories.text import memory_text
from memories.thread_evidence import SAID_HERE, corrected_text, thread_correction
from memories.write_rules import (
    REVIEWED_WRITERS,
    UPDATABLE_FIELDS,
    MemoryWriteRefused,
    audit,
    check_importance,
    check_kind,
    check_switches,
    clean_content,
    concrete,
    embed_later,
    review_kinds,
    setting,
)

# full_clean skips these: they are handed over as instances (no existence queries).
RELATED_FIELDS = ["user", "source_thread", "source_message", "source_run", "superseded_by"]

RememberAction = Literal["created", "updated", "superseded", "pending"]


@dataclass(frozen=True)
class RememberOutcome:
    memory: Memory
    action: RememberAction
    # The memory that was updated in place or superseded by ``memory``, when any.
    previous_id: int | None = None
    # Every memory ``memory`` superseded, oldest statement first: (id, content, why).
    superseded: tuple[tuple[int, str, str], ...] = ()

    def as_tool_result(self) -> dict[str, Any]:
        """What the remember tool answers, worded for the model."""
        replaced = "; ".join(f'#{pk} "{content}"' for pk, content, _ in self.superseded)
        notes = {
            "created": "Remembered.",
            "updated": "A memory already said this; it was updated instead of adding another.",
            "superseded": f"Remembered. It replaces memory {replaced or f'#{self.previous_id}'}, which said "
            "otherwise: that memory is kept as history (superseded) and will no longer be recalled.",
            "pending": "Stored for staff review: it will not be used until a staff member approves it. "
            "Tell the user it is waiting for review.",
        }
        result: dict[str, Any] = {
            "ok": True,
            "memory_id": self.memory.pk,
            "action": self.action,
            "status": self.memory.status,
            "note": notes[self.action],
        }
        if self.superseded:
            result["superseded"] = [{"memory_id": pk, "content": c, "why": why} for pk, c, why in self.superseded]
        return result


def _lock_user(user: User) -> None:
    """Serialize one user's memory writes: the cap and the duplicate check read, then write.

    ``FOR NO KEY UPDATE``: it excludes the other writers of the person, not a row that
    merely refers to them (a memory inserted by a correction holding that memory's lock,
    which a supersession here waits for: with a plain ``FOR UPDATE`` the two deadlocked).
    """
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk", flat=True).first()


# Bounded anyway by the cap on active memories; pending ones are reviewed before more pile up.
CANDIDATES_LIMIT = 200


def _candidates(*, user: User, kind: str, statuses: Sequence[str]) -> list[Memory]:
    """The person's memories a new one may restate or replace: any kind, newest first.

    A change is recognised by meaning, not by kind ("I sold my car" may be a fact, the car a
    preference). Memories of a kind that needs staff review are only weighed against their
    own kind: an agent's statement does not retire a reviewed policy.
    """
    now = timezone.now()
    rows = (
        Memory.objects.for_user(user)
        .filter(status__in=statuses)
        .exclude(expires_at__lte=now)
        .exclude(~Q(kind=kind) & Q(kind__in=review_kinds()))
        .order_by("-id")
    )
    return list(rows[:CANDIDATES_LIMIT])


# Memories written moments ago may not have their vector yet (it is made after commit, in
# a worker): up to this many are embedded inline, so a change said in the same chat is seen.
INLINE_EMBED = 4


@dataclass(frozen=True)
class _Closeness:
    """How close a statement is in meaning to each memory, with the vectors that said it."""

    cosines: dict[int, float] = field(default_factory=dict)
    # The statement's own vector, and each memory's compared to it (none without embeddings).
    vector: np.ndarray | None = None
    old_vectors: dict[int, np.ndarray] = field(default_factory=dict)
    # The memories that had no stored vector and were embedded here: (id, content, vector).
    embedded: tuple[tuple[int, str, np.ndarray], ...] = ()


def _closeness(content: str, rows: list[Memory]) -> _Closeness:
    """e5 cosine of ``content`` to each memory, ``content``'s own vector and the memories'.

    Stored vectors of the current text are used; a few recent memories without one are
    embedded here (about 20 ms each), the rest are judged lexically.
    """
    if not rows or not embeddings.enabled():
        return _Closeness()
    by_pk = {m.pk: m for m in rows}
    stored = {
        pk: bytes(vector)
        for pk, md5, vector in MemoryEmbedding.objects.filter(
            memory_id__in=list(by_pk), model=embeddings.MODEL_NAME
        ).values_list("memory_id", "content_md5", "vector")
        if md5 == content_md5(by_pk[pk].content)
    }
    missing = [m for m in rows if m.pk not in stored][:INLINE_EMBED]
    vectors = embeddings.passage_vectors([content] + [m.content for m in missing])
    pks = list(stored) + [m.pk for m in missing]
    matrix = np.vstack([embeddings.from_bytes(list(stored.values())) if stored else vectors[1:1], vectors[1:]])
    cosines = matrix @ vectors[0]
    return _Closeness(
        cosines={pk: float(c) for pk, c in zip(pks, cosines, strict=True)},
        vector=vectors[0],
        old_vectors=dict(zip(pks, matrix, strict=True)),
        embedded=tuple((m.pk, m.content, v) for m, v in zip(missing, vectors[1:], strict=True)),
    )


def _keep_vectors(memory: Memory, *, said: str, close: _Closeness) -> None:
    """Store the vectors this write made to judge ``said``: the memories embedded inline, and
    ``memory``'s own when it is stored as said (most are); else its vector is made after commit.

    Each text is then embedded once: before, the embedding worker embedded both again
    (bench/README.md, "The memory layer's cost per turn").
    """
    mine = [(memory.pk, memory.content, close.vector)] if close.vector is not None and memory.content == said else []
    memory_vectors_store(rows=[*close.embedded, *mine])
    if not mine:
        embed_later(memory)


def change_verdicts(
    content: str,
    candidates: list[tuple[int, str, float | None]],
    *,
    vector: np.ndarray | None,
    old_vectors: dict[int, np.ndarray] | None,
    same_thread: frozenset[int] = frozenset(),
    only_corrections: bool = False,
) -> list[tuple[int, Verdict]]:
    """The memories (id, text, closeness) ``content`` restates or supersedes, by this installation's
    thresholds: what every write decides, also run without a database (``bench.productchat.facts``).

    ``same_thread``: the candidates drawn from the conversation ``content`` is said in. When the pair
    test supersedes nothing, a correction of one of them said there replaces it
    (``memories.thread_evidence``), unless the statement restates another memory. With
    ``only_corrections`` that is the only verdict asked for.
    """
    if only_corrections:
        found = thread_correction(content, [c for c in candidates if c[0] in same_thread])
        return [found] if found else []
    decided = choose(
        content,
        candidates,
        vector=vector,
        old_vectors=old_vectors,
        duplicate_similarity=setting("MEMORY_DUPLICATE_SIMILARITY", 0.6),
        subject_similarity=setting("MEMORY_SUBJECT_SIMILARITY", 0.8),
    )
    if not same_thread or any(v.relation == "supersedes" for _, v in decided):
        return decided
    found = thread_correction(content, [c for c in candidates if c[0] in same_thread])
    if found is None:
        return decided
    others = [(pk, v) for pk, v in decided if pk != found[0]]
    return decided if others else [found]


def _judged_candidates(
    *,
    user: User,
    kind: str,
    content: str,
    statuses: Sequence[str],
    source_thread=None,
    only_corrections: bool = False,
) -> tuple[list[tuple[Memory, Verdict]], _Closeness]:
    """(memory, verdict) for the memories ``content`` restates or supersedes (the rest are left
    alone), and the closeness they were judged by; ``source_thread`` is where ``content`` was said
    (``change_verdicts``).

    ``memories.matching.change.choose`` decides (measured by ``python -m bench.contradictions``):
    the slot grammar, then closeness in meaning plus what the new statement says happened.
    A restatement updates a memory of the same kind only.
    """
    rows = _candidates(user=user, kind=kind, statuses=statuses)
    close = _closeness(content, rows)
    by_pk = {m.pk: m for m in rows}
    candidates = [(m.pk, m.content, close.cosines.get(m.pk)) for m in rows]
    thread_id = source_thread.pk if source_thread is not None else None
    same_thread = frozenset(m.pk for m in rows if thread_id is not None and m.source_thread_id == thread_id)
    picked = change_verdicts(
        content,
        candidates,
        vector=close.vector,
        old_vectors=close.old_vectors,
        same_thread=same_thread,
        only_corrections=only_corrections,
    )
    judged = [(by_pk[pk], v) for pk, v in picked if v.relation == "supersedes" or by_pk[pk].kind == kind]
    judged.sort(key=lambda pair: pair[1].similarity, reverse=True)
    return judged, close


def _count_towards_cap(user: User) -> int:
    # Pending memories count too: approving them must not break the cap.
    now = timezone.now()
    return (
        Memory.objects.for_user(user)
        .filter(status__in=[MemoryStatus.ACTIVE, MemoryStatus.PENDING])
        .exclude(expires_at__lte=now)
        .count()
    )


def _asked_model(*, user: User, kind: str, content: str) -> dict[int, str]:
    """Active memories the fast model says ``content`` replaces (id → its reason), among the close ones kept.

    One small call, only when some memory is close in meaning and the offline decision kept it.
    """
    if not model_enabled():
        return {}
    rows = _candidates(user=user, kind=kind, statuses=[MemoryStatus.ACTIVE])
    closeness = _closeness(content, rows)
    candidates = [(m.pk, m.content, closeness.cosines.get(m.pk)) for m in rows]
    decided = {pk for pk, _ in choose(content, candidates, vector=closeness.vector, old_vectors=closeness.old_vectors)}
    close = close_candidates(content, [c for c in candidates if c[0] not in decided])
    return model_replaced(new=content, earlier=close)


def memory_remember(
    *,
    user: User,
    content: str,
    kind: str = MemoryKind.FACT,
    importance: int = 3,
    writer_type: str = WriterType.AGENT,
    writer_name: str = "",
    allowed_kinds: tuple[str, ...] | list[str] | None = None,
    source_thread=None,
    source_message=None,
    source_run=None,
    actor: User | None = None,
    only_if_it_replaces: bool = False,
    only_if_it_corrects: bool = False,
    supersedes_if: Callable[[str, str], bool] | None = None,
) -> RememberOutcome:
    """Store one short fact about ``user``, or say precisely why not.

    A near-duplicate of an active memory of the same kind updates it; a statement that
    changes what a memory said (close in meaning, and saying what happened: another
    value, an end, a correction, a negation) supersedes it, with why in its history; a kind
    that needs review is stored ``pending``. ``actor`` is the human behind the write
    (user or staff), None for agents and workflows. ``only_if_it_replaces``: a change said
    in passing ("padel moved to Wednesday") is kept only as the newer version of a memory it
    supersedes; otherwise it is plans or someone else's news, and is refused.
    ``only_if_it_corrects``: a correction said in passing ("wait no, misread the email, it's 41782")
    is kept only as the correction of a memory drawn from ``source_thread``
    (``memories.thread_evidence``); the pair test is not asked. ``supersedes_if(said, memory's text)``:
    only the memory nearest to the statement in meaning may be superseded, and only if it passes this
    further test (the change check after a turn, ``usecases.memory_changes``).
    """
    # Judged as said ("actually", "now" tell a change), stored as a fact (``memory_text``).
    said = clean_content(content)
    content = memory_text(said)
    kind = check_kind(kind, allowed_kinds)
    importance = check_importance(importance)
    check_switches(user=user, source_thread=source_thread)
    needs_review = kind in review_kinds() and writer_type in REVIEWED_WRITERS
    reason = f"{writer_type}:{writer_name}" if writer_name else writer_type
    # The optional model is asked before the user's lock is taken (no network call
    # under it); what it names is applied below only if still active and not judged already.
    by_model = {} if needs_review or only_if_it_corrects else _asked_model(user=user, kind=kind, content=said)
    only_if_it_replaces = only_if_it_replaces or only_if_it_corrects

    with transaction.atomic():
        _lock_user(user)
        statuses = [MemoryStatus.PENDING] if needs_review else [MemoryStatus.ACTIVE]
        judged, close = _judged_candidates(
            user=user,
            kind=kind,
            content=said,
            statuses=statuses,
            source_thread=source_thread,
            only_corrections=only_if_it_corrects,
        )
        if supersedes_if is not None:
            # Only the memory nearest in meaning, and only if the further test holds.
            nearest = max(close.cosines, key=close.cosines.__getitem__, default=None)
            judged = [
                (m, v)
                for m, v in judged
                if v.relation != "supersedes" or (m.pk == nearest and supersedes_if(said, m.content))
            ]
        if only_if_it_replaces and not by_model and all(v.relation != "supersedes" for _, v in judged):
            raise MemoryWriteRefused(
                "It replaces no stored fact, and a change on its own is not one to keep.",
                "Do not retry. Store it as a plain fact only if it is a lasting fact about the user.",
                code="replaces_nothing",
            )
        duplicate = next((m for m, verdict in judged if verdict.relation == "same"), None)
        if duplicate is not None:
            _restate(duplicate, content=content, importance=importance, actor=actor, reason=reason)
            _keep_vectors(duplicate, said=said, close=close)
            return RememberOutcome(
                memory=duplicate, action="pending" if needs_review else "updated", previous_id=duplicate.pk
            )
        # A value that changed is a new version, never an edit in place: the old one is
        # kept, linked and no longer recalled. Review kinds are left to the reviewer.
        contradicted = [] if needs_review else [(m, v) for m, v in judged if v.relation == "supersedes"]
        judged_pks = {m.pk for m, _ in judged}
        contradicted += [
            (m, Verdict("supersedes", f"the fast model: {by_model[m.pk]}", 0.0))
            for m in Memory.objects.for_user(user).filter(pk__in=by_model, status=MemoryStatus.ACTIVE)
            if m.pk not in judged_pks
        ]
        if not contradicted:
            _check_cap(user)
        content = _corrected(content, said=said, contradicted=contradicted)
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
        memory.full_clean(exclude=RELATED_FIELDS)
        audit(memory, actor=actor, reason=reason)
        memory.save()
        _keep_vectors(memory, said=said, close=close)
        if contradicted:
            return _supersede(contradicted, by=memory, actor=actor, reason=reason)
    return RememberOutcome(memory=memory, action="pending" if needs_review else "created")


def _corrected(content: str, *, said: str, contradicted: list[tuple[Memory, Verdict]]) -> str:
    """A correction of one memory of this conversation, stored as that memory put right when it gives
    one number or code in place of the memory's ("wait no, it's 41782": "My bib number came through,
    41782."): a fact in the memory's words, not the talk of the moment."""
    if len(contradicted) != 1 or not contradicted[0][1].reason.startswith(SAID_HERE):
        return content
    fixed = corrected_text(contradicted[0][0].content, said)
    return memory_text(fixed) if fixed else content


def _restate(memory: Memory, *, content: str, importance: int, actor: User | None, reason: str) -> None:
    """A near-duplicate updates the memory in place: the newer wording, the higher importance."""
    memory.content = content
    memory.importance = max(memory.importance, importance)
    memory.full_clean(exclude=RELATED_FIELDS)
    audit(memory, actor=actor, reason=f"{reason} restated (near-duplicate)")
    memory.save()


def _check_cap(user: User) -> None:
    cap = settings.MEMORY_MAX_ACTIVE_PER_USER
    if _count_towards_cap(user) >= cap:
        raise MemoryWriteRefused(
            f"The user already has {cap} memories, the most allowed.",
            "Forget one that is no longer true or useful (forget_fact with its memory_id), or restate an "
            "existing memory in its own words so that it is updated instead of a new one being added.",
            code="cap_reached",
        )


def _supersede(
    contradicted: list[tuple[Memory, Verdict]], *, by: Memory, actor: User | None, reason: str
) -> RememberOutcome:
    """The memories ``by`` contradicts become its history: superseded, linked, no longer recalled."""
    contradicted.sort(key=lambda pair: pair[0].pk)
    for old, verdict in contradicted:
        old.status = MemoryStatus.SUPERSEDED
        old.superseded_by = by
        audit(old, actor=actor, reason=f"{reason} superseded by #{by.pk}: {verdict.reason}")
        old.save(update_fields=["status", "superseded_by", "updated_at"])
    return RememberOutcome(
        memory=by,
        action="superseded",
        previous_id=contradicted[-1][0].pk,
        superseded=tuple((m.pk, m.content, v.reason) for m, v in contradicted),
    )


def memory_forget(*, user: User, memory_id: int | str, reason: str = "forgotten by the user") -> bool:
    """Delete one of the user's own memories and the older versions it replaced.

    Someone else's id behaves exactly like a missing one (False). The versions it
    superseded go too: "forget my order" must not leave the previous order number.
    Their audit rows stay (who changed what, when: the deletion is recorded) without
    the text: what the person asked to forget must not come back in their export or
    in an admin's history page. A staff delete keeps the text in the audit.
    """
    try:
        memory = Memory.objects.for_user(user).get(pk=int(memory_id))
    except (Memory.DoesNotExist, ValueError, TypeError):
        return False
    with transaction.atomic():
        memories_delete(ids=[memory.pk], event=Event.FORGET, actor=user, reason=reason)
    return True


def _writer_for(actor: User, memory: Memory) -> str:
    return WriterType.USER if actor.pk == memory.user_id else WriterType.STAFF


def memory_correct(*, actor: User, memory: Memory, content: str) -> Memory:
    """Replace ``memory`` by a corrected text: a new memory, the old one superseded.

    The new one is active, or pending when its kind needs review and the corrector is not staff.
    A memory drawn from a statement is corrected under that statement's lock, taken first
    (``usecases/memory_correction.py``, ``usecases/message_correction.py``).
    """
    content = memory_text(clean_content(content))
    writer_type = _writer_for(actor, memory)
    with transaction.atomic():
        # Locked and read again: of parallel corrections the first supersedes the memory
        # and the others find it superseded (409), never six successors.
        locked = Memory.objects.select_for_update().filter(pk=memory.pk).first()
        if locked is None:
            raise Conflict("This memory no longer exists.")
        memory = locked
        if memory.status not in (MemoryStatus.ACTIVE, MemoryStatus.PENDING):
            raise Conflict(
                f"Memory #{memory.pk} is {memory.status}; only active or pending memories can be corrected.",
                extra={"successor_id": memory.superseded_by_id},
            )
        # A correction of a review kind by anyone but staff waits for staff like the
        # original did: correcting must not be a way around the review.
        needs_review = memory.kind in review_kinds() and writer_type in REVIEWED_WRITERS
        new = Memory(
            user_id=memory.user_id,
            kind=memory.kind,
            content=content,
            importance=memory.importance,
            status=MemoryStatus.PENDING if needs_review else MemoryStatus.ACTIVE,
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
        audit(new, actor=actor, reason=f"{writer_type} correction of #{memory.pk}")
        new.save()
        embed_later(new)
        memory.status = MemoryStatus.SUPERSEDED
        memory.superseded_by = new
        audit(memory, actor=actor, reason=f"{writer_type} corrected as #{new.pk}")
        memory.save(update_fields=["status", "superseded_by", "updated_at"])
    return new


def memory_update(*, actor: User, memory: Memory, **fields: Any) -> Memory:
    """Edit content, kind, importance or expiry in place (status changes have their own services)."""
    memory = concrete(memory)
    unknown = set(fields) - UPDATABLE_FIELDS
    if unknown:
        raise ApplicationError(
            f"Cannot change {', '.join(sorted(unknown))} here.",
            extra={"allowed": sorted(UPDATABLE_FIELDS)},
        )
    if "content" in fields:
        fields["content"] = memory_text(clean_content(fields["content"]))
    if "kind" in fields:
        check_kind(fields["kind"], None)
    if "importance" in fields:
        check_importance(fields["importance"])
    for name, value in fields.items():
        setattr(memory, name, value)
    memory.full_clean(exclude=RELATED_FIELDS)
    audit(memory, actor=actor, reason=f"{_writer_for(actor, memory)} edit")
    memory.save()
    if "content" in fields:
        embed_later(memory)
    return memory


def _require_pending(memory: Memory, verb: str) -> None:
    if memory.status != MemoryStatus.PENDING:
        raise Conflict(f"Memory #{memory.pk} is {memory.status}; only pending memories can be {verb}.")


def memory_approve(*, actor: User, memory: Memory) -> Memory:
    """Make a pending memory visible to agents."""
    memory = concrete(memory)
    _require_pending(memory, "approved")
    memory.status = MemoryStatus.ACTIVE
    audit(memory, actor=actor, reason="approved")
    memory.save(update_fields=["status", "updated_at"])
    return memory


def memory_reject(*, actor: User, memory: Memory, reason: str = "") -> Memory:
    """Keep a pending memory out of every context; the reason goes into its history."""
    memory = concrete(memory)
    _require_pending(memory, "rejected")
    memory.status = MemoryStatus.REJECTED
    audit(memory, actor=actor, reason=f"rejected: {reason}" if reason else "rejected")
    memory.save(update_fields=["status", "updated_at"])
    return memory


def memory_expire_now(*, actor: User, memory: Memory) -> Memory:
    """Hide a memory from agents at once; the retention purge deletes it on its next pass."""
    memory = concrete(memory)
    memory.expires_at = timezone.now()
    audit(memory, actor=actor, reason="expired now")
    memory.save(update_fields=["expires_at", "updated_at"])
    return memory


def memory_delete(*, actor: User, memory: Memory) -> None:
    memory = concrete(memory)
    with transaction.atomic():
        memories_delete(
            ids=[memory.pk], event=Event.DELETE, actor=actor, reason=f"deleted by {_writer_for(actor, memory)}"
        )


def memory_touch_used(*, memory_ids: list[int]) -> int:
    """Record that memories went into a context. Not a content change: no history row."""
    if not memory_ids:
        return 0
    return Memory.objects.filter(pk__in=memory_ids).update(last_used_at=timezone.now())


def memory_preference_set(*, user: User, enabled: bool) -> MemoryPreference:
    """Turn long-term memory on or off for ``user`` (stored memories are kept, not read)."""
    pref, _ = MemoryPreference.objects.update_or_create(user=user, defaults={"long_term_enabled": bool(enabled)})
    return pref
