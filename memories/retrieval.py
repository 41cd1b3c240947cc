"""Every search the product makes, one function each: the single place to change method.

- ``search_memories``: a user's active long-term memories relevant to a query.
- ``search_history``: verbatim messages of one thread relevant to a query.
- ``search_threads``: the same across all of a user's threads.

Scores are ordinal only: callers may sort by them, never compare them across calls.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.postgres.search import TrigramWordSimilarity
from django.db.models import Q
from django.utils import timezone

from conversations.models import Message, Thread
from memories.models import Memory, MemoryStatus


@dataclass(frozen=True)
class MemoryHit:
    memory: Memory
    score: float


@dataclass(frozen=True)
class HistoryHit:
    message_id: int
    thread_id: uuid.UUID
    sequence: int
    role: str
    created_at: datetime
    excerpt: str
    score: float


def _active_memories(user: AbstractBaseUser):
    return Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
    )


def search_memories(
    *, user: AbstractBaseUser, query: str, kinds: list[str] | None = None, limit: int = 8
) -> list[MemoryHit]:
    """The user's active memories ranked by trigram word similarity to ``query``."""
    qs = _active_memories(user)
    if kinds:
        qs = qs.filter(kind__in=kinds)
    qs = (
        qs.annotate(score=TrigramWordSimilarity(query, "content"))
        .filter(score__gt=0.1)
        .order_by("-score", "-importance", "-id")[:limit]
    )
    return [MemoryHit(memory=m, score=float(m.score)) for m in qs]


def _excerpt(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def search_history(
    *, thread: Thread, query: str, before_sequence: int | None = None, limit: int = 10
) -> list[HistoryHit]:
    """Messages of ``thread`` (older than ``before_sequence`` when given) ranked for ``query``."""
    qs = Message.objects.filter(thread=thread).exclude(text="")
    if before_sequence is not None:
        qs = qs.filter(sequence__lt=before_sequence)
    qs = (
        qs.annotate(score=TrigramWordSimilarity(query, "text"))
        .filter(score__gt=0.1)
        .order_by("-score", "-sequence")[:limit]
    )
    return [
        HistoryHit(
            message_id=m.id,
            thread_id=m.thread_id,
            sequence=m.sequence,
            role=m.role,
            created_at=m.created_at,
            excerpt=_excerpt(m.text),
            score=float(m.score),
        )
        for m in qs
    ]


def search_threads(*, user: AbstractBaseUser, query: str, limit: int = 20) -> list[HistoryHit]:
    """Messages across all of the user's threads ranked for ``query``."""
    qs = (
        Message.objects.filter(thread__owner=user)
        .exclude(text="")
        .annotate(score=TrigramWordSimilarity(query, "text"))
        .filter(score__gt=0.1)
        .order_by("-score", "-created_at")[:limit]
    )
    return [
        HistoryHit(
            message_id=m.id,
            thread_id=m.thread_id,
            sequence=m.sequence,
            role=m.role,
            created_at=m.created_at,
            excerpt=_excerpt(m.text),
            score=float(m.score),
        )
        for m in qs
    ]
