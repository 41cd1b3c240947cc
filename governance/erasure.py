"""Right to erasure: requests, dry runs, legal holds, verified deletion, receipts.

Execution is resumable: every batch deletes rows and adds to the request's
``executed_counts`` in one transaction, so a worker that dies midway leaves exact
totals and a re-run continues where it stopped. The last step (account, scan,
receipt) is one transaction: the receipt exists only if the scan found nothing.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from agents import checkpointer
from agents.models import Run, RunStatus
from governance import erasure_selectors as sel
from governance.erasure_receipts import (
    receipt_build,
    receipt_canonical,
    receipt_hash,
    receipt_is_intact,
    subject_ref_for,
)
from governance.models import (
    ErasureReceipt,
    ErasureRequest,
    ErasureStatus,
    LegalHold,
)
from liamemory.errors import Conflict, Forbidden
from liamemory.roles import is_compliance_officer
from memories.models import Memory, MemoryPreference

logger = logging.getLogger(__name__)


class ErasureForbidden(Forbidden):
    pass


class ErasureRefused(Conflict):
    """The request cannot go on in its current state."""


def batch_size() -> int:
    return int(getattr(settings, "ERASURE_BATCH_SIZE", 500))


# --- requests --------------------------------------------------------------------


def erasure_request_create(
    *,
    subject: AbstractBaseUser,
    requested_by: AbstractBaseUser,
    reason: str = "",
    delete_account: bool = False,
    self_service: bool = False,
) -> ErasureRequest:
    """File a request. Compliance officers for anyone; a person for themselves only.

    A person has at most one open request: self-service returns it, others get 409.
    """
    if self_service:
        if requested_by.pk != subject.pk:
            raise ErasureForbidden("You can only erase your own data.")
    elif not is_compliance_officer(requested_by):
        raise ErasureForbidden("Only compliance officers can file erasure requests for other people.")
    existing = sel.erasure_request_open_for(user=subject)
    if existing is not None:
        if self_service:
            return existing
        raise Conflict("This person already has an open erasure request.", extra={"request_id": str(existing.pk)})
    held = sel.hold_in_force(user_id=subject.pk)
    request = ErasureRequest(
        subject=subject,
        subject_ref=subject_ref_for(subject.pk),
        requested_by=requested_by,
        self_service=self_service,
        reason=reason,
        delete_account=delete_account,
        status=ErasureStatus.HELD if held else ErasureStatus.PENDING,
    )
    request.full_clean()
    request.save()
    logger.info("erasure request %s filed (self_service=%s)", request.pk, self_service)
    return request


def erasure_dry_run(*, request: ErasureRequest) -> dict[str, int]:
    """Counts per store of what executing ``request`` would remove now; removes nothing."""
    if request.status == ErasureStatus.COMPLETED or request.subject_id is None:
        raise ErasureRefused("This erasure is already complete.")
    counts = sel.erasure_counts(user_id=request.subject_id, delete_account=request.delete_account)
    ErasureRequest.objects.filter(pk=request.pk).update(dry_run_counts=counts)
    request.dry_run_counts = counts
    return counts


def erasure_enqueue(*, request: ErasureRequest) -> None:
    """Start execution in the worker once the caller's transaction commits."""
    from governance.tasks import execute_erasure

    execute_erasure.delay_on_commit(str(request.pk))


# --- legal holds -----------------------------------------------------------------


def legal_hold_place(*, user: AbstractBaseUser, reason: str, actor: AbstractBaseUser) -> LegalHold:
    """Put a person under hold: open erasure requests wait (status ``held``)."""
    if not is_compliance_officer(actor):
        raise ErasureForbidden("Only compliance officers can place legal holds.")
    with transaction.atomic():
        hold = LegalHold(user=user, reason=reason, placed_by=actor)
        hold.full_clean()
        hold.save()
        # A running erasure sees the hold at its next batch and stops there.
        ErasureRequest.objects.filter(subject=user, status=ErasureStatus.PENDING).update(status=ErasureStatus.HELD)
    logger.info("legal hold %s placed", hold.pk)
    return hold


def legal_hold_lift(*, hold: LegalHold, actor: AbstractBaseUser) -> LegalHold:
    """Lift a hold; when none is left, waiting erasures of the person are started."""
    if not is_compliance_officer(actor):
        raise ErasureForbidden("Only compliance officers can lift legal holds.")
    if hold.lifted_at is not None:
        return hold
    with transaction.atomic():
        LegalHold.objects.filter(pk=hold.pk, lifted_at__isnull=True).update(lifted_at=timezone.now())
        hold.refresh_from_db()
        if not sel.hold_in_force(user_id=hold.user_id):
            for request in ErasureRequest.objects.filter(subject_id=hold.user_id, status=ErasureStatus.HELD):
                ErasureRequest.objects.filter(pk=request.pk).update(status=ErasureStatus.PENDING, error_message="")
                erasure_enqueue(request=request)
    logger.info("legal hold %s lifted", hold.pk)
    return hold


# --- execution -------------------------------------------------------------------


class _HoldPlaced(Exception):
    pass


def _lock_key(request_id: uuid.UUID) -> int:
    # A signed 64-bit key for pg_try_advisory_lock, derived from the request id.
    return int.from_bytes(uuid.UUID(str(request_id)).bytes[:8], "big", signed=True)


def _add_counts(request_id: uuid.UUID, delta: dict[str, int]) -> None:
    """Add to the request's progress counts; call inside the batch's transaction."""
    locked = ErasureRequest.objects.select_for_update().get(pk=request_id)
    if sel.hold_in_force(user_id=locked.subject_id):
        raise _HoldPlaced
    counts = dict(locked.executed_counts)
    for store, n in delta.items():
        counts[store] = counts.get(store, 0) + n
    ErasureRequest.objects.filter(pk=request_id).update(executed_counts=counts)


def _in_batches(request_id: uuid.UUID, next_ids: Callable[[], list[Any]], delete: Callable[[list[Any]], dict]) -> None:
    """Repeat ``delete(ids)`` on the next batch until none is left, one transaction each."""
    while True:
        with transaction.atomic():
            ids = next_ids()
            if not ids:
                return
            delta = delete(ids)
            _add_counts(request_id, delta)


def _delete_memories(ids: list[int]) -> dict[str, int]:
    # Raw DELETE: the ORM's delete would write a "deleted" audit row holding the
    # content we are erasing. Pointers from other memories are cleared first.
    # Their embeddings would go by the database's cascade; deleted first to be counted.
    Memory.objects.filter(superseded_by_id__in=ids).exclude(id__in=ids).update(superseded_by=None)
    with connection.cursor() as cur:
        cur.execute("DELETE FROM memories_memoryembedding WHERE memory_id = ANY(%s)", [ids])
        embeddings = cur.rowcount
        cur.execute("DELETE FROM memories_memory WHERE id = ANY(%s)", [ids])
        return {"memories": cur.rowcount, "embeddings": embeddings}


def _scrub_history(history_ids: list[int]) -> dict[str, int]:
    # Tombstones keep history_id, the memory id, kind, history_type, actor and time.
    model = Memory.history.model
    n = model.objects.filter(history_id__in=history_ids).update(
        content="",
        user=None,
        writer_name="",
        source_thread=None,
        source_thread_ref=None,
        source_message=None,
        source_run=None,
        superseded_by=None,
        history_change_reason=None,
    )
    return {"memory_history_scrubbed": n}


def _delete_messages(thread_ids: list[uuid.UUID]) -> dict[str, int]:
    """The threads' messages in SQL: the ORM's cascade would load every one of them.

    Does what the ORM would (no signal listens to these models): other rows' pointers
    cleared (SET_NULL), embeddings deleted (CASCADE), then the messages.
    """
    from conversations.models import Message, MessageEmbedding

    messages = f"SELECT id FROM {Message._meta.db_table} WHERE thread_id = ANY(%s)"
    with connection.cursor() as cur:
        for model, column in ((Memory, "source_message_id"), (Run, "request_message_id")):
            table = model._meta.db_table
            cur.execute(f"UPDATE {table} SET {column} = NULL WHERE {column} IN ({messages})", [thread_ids])
        cur.execute(f"DELETE FROM {MessageEmbedding._meta.db_table} WHERE message_id IN ({messages})", [thread_ids])
        embeddings = cur.rowcount
        cur.execute(f"DELETE FROM {Message._meta.db_table} WHERE thread_id = ANY(%s)", [thread_ids])
        return {"messages": cur.rowcount, "embeddings": embeddings}


def _delete_threads(ids: list[uuid.UUID]) -> dict[str, int]:
    cp = checkpointer.delete_checkpoints([str(i) for i in ids])
    from conversations.models import Thread

    done = _delete_messages(ids)
    _, per_model = Thread.objects.filter(id__in=ids).delete()
    return {
        "threads": per_model.get("conversations.Thread", 0),
        "messages": done["messages"] + per_model.get("conversations.Message", 0),
        "embeddings": done["embeddings"] + per_model.get("conversations.MessageEmbedding", 0),
        "summaries": per_model.get("conversations.ThreadSummary", 0),
        "runs": per_model.get("agents.Run", 0),
        "trace_events": per_model.get("agents.TraceEvent", 0),
        **cp,
    }


def _delete_runs(ids: list[uuid.UUID]) -> dict[str, int]:
    _, per_model = Run.objects.filter(id__in=ids).delete()
    return {"runs": per_model.get("agents.Run", 0), "trace_events": per_model.get("agents.TraceEvent", 0)}


def _start(request_id: uuid.UUID) -> ErasureRequest | None:
    """Claim the request; refuse while held; cancel the person's runs in the same transaction."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        if request.status == ErasureStatus.COMPLETED:
            return None
        if request.subject_id is None:
            raise ErasureRefused("The subject of this request no longer exists.")
        if sel.hold_in_force(user_id=request.subject_id):
            request.status = ErasureStatus.HELD
            request.error_message = "A legal hold is in force: the erasure waits until it is lifted."
            request.save(update_fields=["status", "error_message"])
            return request
        now = timezone.now()
        request.status = ErasureStatus.RUNNING
        request.started_at = request.started_at or now
        request.error_message = ""
        request.executed_counts = {store: request.executed_counts.get(store, 0) for store in sel.STORES}
        request.save(update_fields=["status", "started_at", "error_message", "executed_counts"])
        # The runner re-checks its run's status under a row lock before every write,
        # so once this commits no run of the person writes anything any more.
        sel.subject_runs(user_id=request.subject_id).filter(
            status__in=[RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.INTERRUPTED]
        ).update(status=RunStatus.CANCELLED, finished_at=now, error_message="Cancelled: the data is being erased.")
    return request


def _delete_everything(request: ErasureRequest) -> None:
    rid, uid, size = request.pk, request.subject_id, batch_size()
    _in_batches(
        rid,
        lambda: list(sel.subject_log_entries(user_id=uid).values_list("id", flat=True)[:size]),
        lambda ids: {"admin_log_entries": LogEntry.objects.filter(id__in=ids).delete()[0]},
    )
    _in_batches(
        rid,
        lambda: list(Memory.objects.filter(user_id=uid).order_by("id").values_list("id", flat=True)[:size]),
        _delete_memories,
    )
    _in_batches(
        rid,
        lambda: list(sel.subject_history(user_id=uid).values_list("history_id", flat=True)[:size]),
        _scrub_history,
    )
    _in_batches(
        rid,
        lambda: list(sel.subject_history_as_actor(user_id=uid).values_list("history_id", flat=True)[:size]),
        lambda ids: {
            "memory_history_actor_cleared": Memory.history.model.objects.filter(history_id__in=ids).update(
                history_user=None
            )
        },
    )
    _in_batches(
        rid,
        lambda: list(sel.subject_threads(user_id=uid).order_by("id").values_list("id", flat=True)[:size]),
        _delete_threads,
    )
    _in_batches(
        rid,
        lambda: list(sel.subject_runs(user_id=uid).values_list("id", flat=True)[:size]),
        _delete_runs,
    )
    with transaction.atomic():
        refs = sel.subject_references(user_id=uid, exclude_request_id=rid)
        _add_counts(
            rid,
            {
                "memory_preferences": MemoryPreference.objects.filter(user_id=uid).delete()[0],
                "api_tokens": Token.objects.filter(user_id=uid).delete()[0],
                "sessions": Session.objects.filter(session_key__in=list(sel.subject_sessions(user_id=uid))).delete()[0],
                "legal_holds_lifted": LegalHold.objects.filter(user_id=uid, lifted_at__isnull=False).delete()[0],
                "references_cleared": refs["holds_placed"].update(placed_by=None)
                + refs["requests_filed"].update(requested_by=None),
            },
        )


def _finish(request_id: uuid.UUID, canaries: set[str], identifiers: tuple[set[str], set[str]]) -> ErasureRequest:
    """Delete the account if asked, scan, and write the receipt: all or nothing."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        uid = request.subject_id
        account = 0
        exempt_rows: dict[str, tuple[str, Any]] = {ErasureRequest._meta.db_table: ("id", request.pk)}
        exempt_refs: set[tuple[str, str]] = set()
        user_model = get_user_model()
        if request.delete_account:
            _, per_model = user_model.objects.filter(pk=uid).delete()
            account = per_model.get(user_model._meta.label, 0)
        else:
            # The login stays, empty: its own row and group links are not leftovers.
            exempt_rows[user_model._meta.db_table] = ("id", uid)
            for through in (user_model.groups.through, user_model.user_permissions.through):
                exempt_refs.add((through._meta.db_table, "user_id"))
        strings, uuids = identifiers
        findings = sel.schema_scan(
            user_id=uid,
            strings=strings | canaries,
            uuids=uuids,
            exempt_rows=exempt_rows,
            exempt_ref_columns=exempt_refs,
        )
        if not findings.clean:
            transaction.set_rollback(True)
            places = ", ".join(f"{f['table']}.{f['column']}" for f in findings.references + findings.identifiers)
            failure = f"Verification found leftovers in: {places}"
        else:
            failure = ""
            counts = dict(request.executed_counts)
            counts["account"] = account
            now = timezone.now()
            body = receipt_build(request=request, counts=counts, verification=findings.summary(), finished_at=now)
            ErasureReceipt.objects.create(request=request, body=body, sha256=receipt_hash(body))
            ErasureRequest.objects.filter(pk=request.pk).update(
                status=ErasureStatus.COMPLETED,
                finished_at=now,
                executed_counts=counts,
                subject=None,
                requested_by_id=None if request.self_service else request.requested_by_id,
                reason="",
            )
    if failure:
        ErasureRequest.objects.filter(pk=request_id).update(status=ErasureStatus.FAILED, error_message=failure[:2000])
        logger.warning("erasure %s failed verification (%d places)", request_id, failure.count(",") + 1)
    return ErasureRequest.objects.get(pk=request_id)


def erasure_execute(*, request_id: uuid.UUID | str) -> ErasureRequest:
    """Erase the subject of the request. Idempotent and resumable.

    Completed: nothing happens. Held: status ``held``, nothing deleted. Otherwise the
    person's runs are cancelled, everything of theirs is deleted in batches, the
    schema is scanned and a receipt written. A concurrent execution of the same
    request returns at once (advisory lock).
    """
    request_id = uuid.UUID(str(request_id))
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", [_lock_key(request_id)])
        if not cur.fetchone()[0]:
            return ErasureRequest.objects.get(pk=request_id)
    try:
        request = _start(request_id)
        if request is None or request.status == ErasureStatus.HELD:
            return ErasureRequest.objects.get(pk=request_id)
        subject = get_user_model().objects.get(pk=request.subject_id)
        # Sampled before deletion and kept only in this process's memory.
        canaries = sel.canaries_sample(user_id=subject.pk)
        identifiers = sel.identifiers_of(user=subject)
        try:
            _delete_everything(request)
        except _HoldPlaced:
            ErasureRequest.objects.filter(pk=request_id).update(
                status=ErasureStatus.HELD,
                error_message="A legal hold was placed during the erasure: it waits until the hold is lifted.",
            )
            return ErasureRequest.objects.get(pk=request_id)
        result = _finish(request_id, canaries, identifiers)
        logger.info("erasure %s finished: %s", request_id, result.status)
        return result
    finally:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(request_id)])


def erasure_verify(*, subject_ids: dict[str, Any], canaries: set[str]) -> sel.ScanFindings:
    """Scan the whole schema for a person; ``subject_ids``: user_id, username, email, thread_ids."""
    strings = {subject_ids.get("username", ""), subject_ids.get("email", "")}
    strings = {s for s in strings if s and len(s) >= sel.MIN_USERNAME_NEEDLE}
    uuids = {str(t) for t in subject_ids.get("thread_ids", [])}
    return sel.schema_scan(user_id=subject_ids["user_id"], strings=strings | uuids | set(canaries), uuids=uuids)


def erasure_self_service(*, user: AbstractBaseUser, delete_account: bool = False) -> ErasureRequest:
    """ "Delete all my data": file the request on oneself and run it now.

    Runs in the request rather than the worker: the erasure ends the caller's
    sessions and tokens, so they could not come back to poll for the outcome.
    """
    request = erasure_request_create(
        subject=user, requested_by=user, delete_account=delete_account, self_service=True, reason="self-service"
    )
    return erasure_execute(request_id=request.pk)


__all__ = [
    "ErasureForbidden",
    "ErasureRefused",
    "erasure_dry_run",
    "erasure_execute",
    "erasure_request_create",
    "erasure_self_service",
    "erasure_verify",
    "legal_hold_lift",
    "legal_hold_place",
    "receipt_build",
    "receipt_canonical",
    "receipt_hash",
    "receipt_is_intact",
    "subject_ref_for",
]
