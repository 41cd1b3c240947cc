"""Reads for erasure: requests, holds, and what a person owns, per store.

Everything here is read-only. The schema-wide leftover scan after an erasure (and the
canaries it looks for) is ``usecases/erasure_scan.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db.models import Q, QuerySet

from agents.models import Run
from conversations.models import Thread
from governance.models import ErasureRequest, LegalHold
from liamemory.models import StaffAccessLog
from memories.models import Memory

# The stores an erasure empties, in the order execution visits them. Dry run and
# execution report exactly these keys, so the two can be compared one to one.
STORES = (
    "admin_log_entries",
    "memories",
    "embeddings",
    "memory_history_scrubbed",
    "memory_history_actor_cleared",
    "threads",
    "messages",
    "summaries",
    "runs",
    "trace_events",
    "run_transitions",
    "approvals",
    "checkpoints",
    "checkpoint_blobs",
    "checkpoint_writes",
    "memory_preferences",
    "api_tokens",
    "sessions",
    "legal_holds_lifted",
    "references_cleared",
    "staff_access_pseudonymized",
    "account",
)


def hold_in_force(*, user_id: int) -> bool:
    return LegalHold.objects.in_force().filter(user_id=user_id).exists()


def erasure_request_list() -> QuerySet[ErasureRequest]:
    return ErasureRequest.objects.select_related("receipt").order_by("-created_at")


def legal_hold_list() -> QuerySet[LegalHold]:
    return LegalHold.objects.order_by("-placed_at")


# --- what the person owns ----------------------------------------------------------


def subject_threads(*, user_id: int) -> QuerySet[Thread]:
    return Thread.objects.filter(owner_id=user_id)


def subject_runs(*, user_id: int) -> QuerySet[Run]:
    return Run.objects.filter(Q(user_id=user_id) | Q(thread__owner_id=user_id))


def subject_history(*, user_id: int) -> QuerySet:
    """Audit rows about the person's memories that still carry content."""
    return Memory.history.model.objects.filter(user_id=user_id)


def subject_history_as_actor(*, user_id: int) -> QuerySet:
    """Audit rows about other people's memories in which the person was the actor."""
    return Memory.history.model.objects.filter(history_user_id=user_id).exclude(user_id=user_id)


def subject_sessions(*, user_id: int) -> Iterator[str]:
    """Session keys whose decoded ``_auth_user_id`` is the person (reads every session)."""
    store = SessionStore()
    wanted = str(user_id)
    for key, data in Session.objects.values_list("session_key", "session_data").iterator(chunk_size=1000):
        if str(store.decode(data).get("_auth_user_id", "")) == wanted:
            yield key


def subject_log_entries(*, user_id: int) -> QuerySet[LogEntry]:
    """Admin log rows written by the person or about their account, threads, runs, memories.

    ``object_repr`` and ``change_message`` can quote the object, so the row goes.
    """
    ct = ContentType.objects.get_for_model
    q = Q(user_id=user_id) | Q(content_type=ct(get_user_model()), object_id=str(user_id))
    for model, ids in (
        (Thread, subject_threads(user_id=user_id).values_list("id", flat=True)),
        (Run, subject_runs(user_id=user_id).values_list("id", flat=True)),
        (Memory, Memory.objects.filter(user_id=user_id).values_list("id", flat=True)),
    ):
        q |= Q(content_type=ct(model), object_id__in=[str(i) for i in ids])
    return LogEntry.objects.filter(q)


def subject_references(*, user_id: int, exclude_request_id: uuid.UUID | None = None) -> dict[str, QuerySet]:
    """Rows of other people's records that name the person in a nullable column."""
    other_requests = ErasureRequest.objects.filter(requested_by_id=user_id).exclude(subject_id=user_id)
    if exclude_request_id:
        other_requests = other_requests.exclude(pk=exclude_request_id)
    return {
        "holds_placed": LegalHold.objects.filter(placed_by_id=user_id).exclude(user_id=user_id),
        "requests_filed": other_requests,
    }


def subject_staff_access(*, user_id: int) -> QuerySet[StaffAccessLog]:
    """The audit of staff reads that names the person, as the one looked at or the one looking."""
    return StaffAccessLog.objects.filter(Q(subject_id=user_id) | Q(viewer_id=user_id))
