"""Expiry dates from the retention policies (docs/design.md, "Governance → Retention").

Every row that carries ``expires_at`` gets it from here when it is stored or
touched. Policies are rows of ``RetentionPolicy`` (editable in admin); a level with
no row falls back to ``DEFAULT_LIFETIME_DAYS``. A lifetime of None means kept until
deleted (or forgotten).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from liamemory.cache import TimedValue
from liamemory.models import RetentionPolicy, RetentionScope

DEFAULT_LIFETIME_DAYS: dict[str, int | None] = {
    RetentionScope.THREAD: 30,
    RetentionScope.INCOGNITO_THREAD: 1,
    RetentionScope.RUN: 30,
    RetentionScope.MEMORY: None,
}
# Policies are read on every message append; they change rarely, so each process
# keeps them this long (admin edits clear the cache of the process that saved them).
CACHE_SECONDS = 60
_policies_cache: TimedValue[dict[tuple[str, str], int | None]] = TimedValue(CACHE_SECONDS)

_MISSING = object()


def policy_cache_clear() -> None:
    _policies_cache.clear()


def _policies() -> dict[tuple[str, str], int | None]:
    return _policies_cache.get(
        lambda: {
            (scope, kind): days
            for scope, kind, days in RetentionPolicy.objects.values_list("scope", "memory_kind", "lifetime_days")
        }
    )


def lifetime(scope: str, memory_kind: str = "") -> timedelta | None:
    """The lifetime of a level (a memory kind's own row first, then the level's row)."""
    policies = _policies()
    days = _MISSING
    if memory_kind:
        days = policies.get((scope, memory_kind), _MISSING)
    if days is _MISSING:
        days = policies.get((scope, ""), _MISSING)
    if days is _MISSING:
        days = DEFAULT_LIFETIME_DAYS[scope]
    return None if days is None else timedelta(days=days)  # type: ignore[arg-type]


def _expiry(now: datetime | None, life: timedelta | None) -> datetime | None:
    return None if life is None else (now or timezone.now()) + life


def thread_expires_at(*, thread, now: datetime | None = None) -> datetime | None:
    """A thread lives ``lifetime`` after its last activity; incognito threads shortest."""
    scope = RetentionScope.INCOGNITO_THREAD if thread.incognito else RetentionScope.THREAD
    return _expiry(now, lifetime(scope))


def run_expires_at(*, run=None, thread=None, now: datetime | None = None) -> datetime | None:
    """A run (with its trace events) lives ``lifetime`` after it is stored or finished.

    A run never outlives its thread (the thread's purge takes its runs along), so a
    run of an incognito thread gets the incognito lifetime when that is shorter.
    """
    life = lifetime(RetentionScope.RUN)
    thread = thread if thread is not None else getattr(run, "thread", None)
    if thread is not None and thread.incognito:
        short = lifetime(RetentionScope.INCOGNITO_THREAD)
        life = short if life is None or (short is not None and short < life) else life
    return _expiry(now, life)


def memory_expires_at(*, kind: str, incognito: bool = False, now: datetime | None = None) -> datetime | None:
    """Long-term memories are kept until forgotten unless a policy for the kind says otherwise.

    A memory written from an incognito thread (should one ever be) lives no longer
    than that thread.
    """
    life = lifetime(RetentionScope.MEMORY, kind)
    if incognito:
        short = lifetime(RetentionScope.INCOGNITO_THREAD)
        life = short if life is None or (short is not None and short < life) else life
    return _expiry(now, life)
