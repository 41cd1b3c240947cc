"""Right to erasure, the execution: verified deletion in resumable batches, then a receipt.

Execution is resumable: every batch deletes rows and adds to the request's
``executed_counts`` in one transaction, so a worker that dies midway leaves exact
totals and a re-run continues where it stopped. The last step (account, scan,
receipt) is one transaction: the receipt exists only if the scan found nothing.
Requests and legal holds are ``usecases/erasure.py``; a compliance officer's
erasure of one memory (``memory_erase``) shares the memory steps.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from agents.models import RunStatus
from agents.state_machine import runs_move
from governance.models import ErasureReceipt, ErasureRequest, ErasureStatus
from liamemory.errors import Conflict, Forbidden
from liamemory.personal_data import Event, Parent
from liamemory.roles import is_compliance_officer
from memories.models import Memory
from usecases import erasure_scan as scan
from usecases import erasure_selectors as sel
from usecases.erasure_receipts import receipt_build, receipt_hash
from usecases.erasure_statistics import statistics_not_rebuildable, statistics_rebuild
from usecases.erasure_steps import Subject, erasure_counts, erasure_steps
from usecases.personal_data import person_store_rows, store_tables
from usecases.personal_data_plan import deletion_plan

logger = logging.getLogger(__name__)


class ErasureForbidden(Forbidden):
    pass


class ErasureRefused(Conflict):
    """The request cannot go on in its current state."""


NOT_VERIFIED = (
    "The erasure could not be verified: some of the data is still stored. "
    "It has been reported, and a compliance officer can resume it."
)
INTERRUPTED = (
    "The erasure was interrupted before it finished. "
    "What was already deleted stays deleted, and a compliance officer can resume it."
)


# The reaper resumes an interrupted erasure by itself this many times; after that it
# stays failed for a compliance officer to look at and resume.
AUTOMATIC_ATTEMPTS = 3


def batch_size() -> int:
    return int(getattr(settings, "ERASURE_BATCH_SIZE", 500))


class _HoldPlaced(Exception):
    pass


def lock_key(request_id: uuid.UUID) -> int:
    # A signed 64-bit key for pg_try_advisory_lock, derived from the request id.
    return int.from_bytes(uuid.UUID(str(request_id)).bytes[:8], "big", signed=True)


def _add_counts(request_id: uuid.UUID, delta: dict[str, int], *, hold_check: bool = True) -> None:
    """Add to the request's progress counts; call inside the batch's transaction."""
    locked = ErasureRequest.objects.select_for_update().get(pk=request_id)
    if hold_check and locked.subject_id is not None and sel.hold_in_force(user_id=locked.subject_id):
        raise _HoldPlaced
    counts = dict(locked.executed_counts)
    for store, n in delta.items():
        counts[store] = counts.get(store, 0) + n
    ErasureRequest.objects.filter(pk=request_id).update(executed_counts=counts)


def _in_batches(
    request_id: uuid.UUID,
    next_ids: Callable[[], list[Any]],
    delete: Callable[[list[Any]], dict],
    *,
    hold_check: bool = True,
) -> None:
    """Repeat ``delete(ids)`` on the next batch until none is left, one transaction each."""
    done: list[Any] = []
    while True:
        with transaction.atomic():
            ids = next_ids()
            if not ids:
                return
            # A step must leave its rows unfound (gone, or the person's columns emptied):
            # one that does not would repeat for ever. A declaration error: stop, resumable.
            if ids == done:
                raise RuntimeError("an erasure step found the rows it had just erased again")
            done = ids
            delta = delete(ids)
            _add_counts(request_id, delta, hold_check=hold_check)


def _erase_memories(ids: list[int]) -> dict[str, int]:
    return deletion_plan(event=Event.ERASE, parent=Parent.MEMORY, ids=ids).execute()


def _start(request_id: uuid.UUID) -> ErasureRequest | None:
    """Claim the request; refuse while held; cancel the person's runs in the same transaction."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        if request.status == ErasureStatus.COMPLETED:
            return None
        uid = _subject_id(request)
        if sel.hold_in_force(user_id=uid):
            request.status = ErasureStatus.HELD
            request.error_message = "A legal hold is in force: the erasure waits until it is lifted."
            request.save(update_fields=["status", "error_message"])
            return request
        now = timezone.now()
        request.status = ErasureStatus.RUNNING
        request.started_at = request.started_at or now
        request.error_message = ""
        request.attempts += 1
        request.executed_counts = {store: request.executed_counts.get(store, 0) for store in erasure_counts()}
        if not request.verification:
            # Chosen before the first deletion and kept: a resume checks what the first
            # attempt would have, not a sample of what it left.
            request.verification = scan.verification_strings(user=get_user_model().objects.get(pk=uid))
        request.save(
            update_fields=["status", "started_at", "error_message", "attempts", "executed_counts", "verification"]
        )
        # The runner re-checks its run's status under a row lock before every write,
        # so once this commits no run of the person writes anything any more.
        _cancel_runs(uid)
    return request


def _cancel_runs(uid: int) -> None:
    """Cancel the person's unfinished runs (each move leaves a transition row, erased with the run)."""
    runs_move(
        person_store_rows(user_id=uid, names=("runs",))["runs"],
        to=RunStatus.CANCELLED,
        reason="erasure",
        finished_at=timezone.now(),
        error_message="Cancelled: the data is being erased.",
    )


def _subject_id(request: ErasureRequest) -> int:
    if request.subject_id is None:
        raise ErasureRefused("The subject of this request no longer exists.")
    return request.subject_id


def _delete_everything(request: ErasureRequest, *, hold_check: bool = True) -> None:
    """Every step of the erasure but the account's (``erasure_steps``: read from the map of
    personal data, in its order), each in batches counted on the request. The dry run is
    this same function in a transaction that is rolled back."""
    subject, size = Subject(user_id=_subject_id(request), ref=request.subject_ref), batch_size()
    for step in erasure_steps():
        _in_batches(
            request.pk, partial(step.next_ids, subject, size), partial(step.apply, subject), hold_check=hold_check
        )


def erasure_plan(*, request_id: uuid.UUID) -> dict[str, int]:
    """What executing the request would remove now, per store: the execution's own
    deletions, run in a transaction that is rolled back, so the dry run and the
    execution count alike by construction. Nothing is changed; the person's rows are
    locked while it runs."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        request.executed_counts = dict.fromkeys(erasure_counts(), 0)
        ErasureRequest.objects.filter(pk=request_id).update(executed_counts=request.executed_counts)
        # As the execution starts: its cancels leave rows that its deletions count.
        _cancel_runs(_subject_id(request))
        _delete_everything(request, hold_check=False)
        counts = dict(ErasureRequest.objects.get(pk=request_id).executed_counts)
        transaction.set_rollback(True)
    counts["account"] = 1 if request.delete_account else 0
    return {store: int(counts.get(store, 0)) for store in erasure_counts()}


def _finish(request_id: uuid.UUID) -> ErasureRequest:
    """Delete the account if asked, scan, and write the receipt: all or nothing."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        uid = _subject_id(request)
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
        findings = scan.schema_scan(
            user_id=uid,
            strings=request.verification.get("strings", []),
            uuids=request.verification.get("uuids", []),
            exempt_rows=exempt_rows,
            exempt_ref_columns=exempt_refs,
        )
        if not findings.clean:
            transaction.set_rollback(True)
            places = ", ".join(f"{f['table']}.{f['column']}" for f in findings.references + findings.identifiers)
            # The places (table and column names, never values) are for the log; the
            # person and the officer read plain words.
            logger.warning("erasure %s: verification found leftovers in %s", request_id, places)
            failure = NOT_VERIFIED
        else:
            failure = ""
            # In the receipt's own transaction (ANALYZE may run in one, and counts the rows
            # this transaction deleted as gone): a receipt exists only with the statistics
            # rebuilt. Run after the commit, a worker killed between the two left a
            # completed erasure whose words stayed in pg_stats, and nobody to redo it.
            _refresh_statistics()
            counts = dict(request.executed_counts)
            counts["account"] = account
            now = timezone.now()
            body = receipt_build(
                request=request,
                counts=counts,
                verification=findings.summary(),
                finished_at=now,
                statistics_not_rebuilt=statistics_not_rebuildable(tables=store_tables()),
            )
            ErasureReceipt.objects.create(request=request, body=body, sha256=receipt_hash(body))
            ErasureRequest.objects.filter(pk=request.pk).update(
                status=ErasureStatus.COMPLETED,
                finished_at=now,
                executed_counts=counts,
                subject=None,
                requested_by_id=None if request.self_service else request.requested_by_id,
                reason="",
                verification={},
            )
    if failure:
        ErasureRequest.objects.filter(pk=request_id).update(status=ErasureStatus.FAILED, error_message=failure)
    return ErasureRequest.objects.get(pk=request_id)


def _refresh_statistics() -> None:
    """Rebuild the planner statistics of every declared store, so none keeps a sample of
    the person's values. A database error is logged and leaves the erasure to complete
    (the rows are gone; the next ANALYZE refreshes them)."""
    try:
        with transaction.atomic():
            statistics_rebuild(tables=store_tables())
    except DatabaseError:
        logger.warning("erasure: refreshing the planner statistics failed; the next ANALYZE refreshes them")


def erasure_execute(*, request_id: uuid.UUID | str) -> ErasureRequest:
    """Erase the subject of the request. Idempotent and resumable.

    Completed: nothing happens. Held: status ``held``, nothing deleted. Otherwise the
    person's runs are cancelled, everything of theirs is deleted in batches, the
    schema is scanned and a receipt written. A concurrent execution of the same
    request returns at once (advisory lock).
    """
    request_id = uuid.UUID(str(request_id))
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", [lock_key(request_id)])
        if not cur.fetchone()[0]:
            return ErasureRequest.objects.get(pk=request_id)
    try:
        request = _start(request_id)
        if request is None or request.status == ErasureStatus.HELD:
            return ErasureRequest.objects.get(pk=request_id)
        try:
            _delete_everything(request)
        except _HoldPlaced:
            ErasureRequest.objects.filter(pk=request_id).update(
                status=ErasureStatus.HELD,
                error_message="A legal hold was placed during the erasure: it waits until the hold is lifted.",
            )
            return ErasureRequest.objects.get(pk=request_id)
        result = _finish(request_id)
        logger.info("erasure %s finished: %s", request_id, result.status)
        return result
    except Exception:
        # Never left "running" for ever: failed, with what was done so far counted, and
        # resumable (execute it again; it continues where it stopped).
        logger.exception("erasure %s stopped by an error", request_id)
        ErasureRequest.objects.filter(pk=request_id).exclude(status=ErasureStatus.COMPLETED).update(
            status=ErasureStatus.FAILED, error_message=INTERRUPTED
        )
        return ErasureRequest.objects.get(pk=request_id)
    finally:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s)", [lock_key(request_id)])


def erasures_reap_interrupted() -> list[uuid.UUID]:
    """The erasures nobody executes any more, now ``failed`` and resumable: ``running``
    ones, and ``pending`` ones whose execution was asked for a while ago
    (``ERASURE_START_STALE_AFTER``) and never claimed.

    An execution holds its request's advisory lock for as long as it runs, on its own
    database session; a worker killed mid-erasure loses the session and the lock with it,
    while the row still says ``running`` (the broker redelivers its task only much later,
    if ever). Killed before its claim committed (a task received but not started, or the
    claim's transaction cut), the row still says ``pending``. Taking the lock here proves
    nobody holds it; the update is conditional on the row's state not having moved, so an
    execution that just claimed or finished it is left alone.
    """
    lost_before_claim = Q(
        status=ErasureStatus.PENDING,
        execution_asked_at__lt=timezone.now() - settings.ERASURE_START_STALE_AFTER,
    )
    stale = Q(status=ErasureStatus.RUNNING) | lost_before_claim
    reaped = []
    for request_id in ErasureRequest.objects.filter(stale).values_list("pk", flat=True):
        with connection.cursor() as cur:
            cur.execute("SELECT pg_try_advisory_lock(%s)", [lock_key(request_id)])
            if not cur.fetchone()[0]:
                continue
        try:
            stopped = ErasureRequest.objects.filter(stale, pk=request_id).update(
                status=ErasureStatus.FAILED, error_message=INTERRUPTED
            )
        finally:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s)", [lock_key(request_id)])
        if stopped:
            logger.warning("erasure %s was interrupted (no execution holds it): failed, resumable", request_id)
            reaped.append(request_id)
    return reaped


def erasure_verify(*, subject_ids: dict[str, Any], canaries: set[str]) -> scan.ScanFindings:
    """Scan the whole schema for a person; ``subject_ids``: user_id, username, email, thread_ids."""
    strings = scan.name_needles(subject_ids.get("username", ""), subject_ids.get("email", ""))
    uuids = {str(t) for t in subject_ids.get("thread_ids", [])}
    return scan.schema_scan(user_id=subject_ids["user_id"], strings=strings | uuids | set(canaries), uuids=uuids)


def memory_erase(*, memory: Memory, actor: User) -> dict[str, int]:
    """Erase one memory without a trace of its content: a compliance officer's act.

    Unlike a delete (whose audit keeps the text from before), the memory, the older
    versions it replaced and the content of every audit row about them go; the audit
    rows stay as tombstones (who, when, which id), as in a person's erasure.
    """
    if not is_compliance_officer(actor):
        raise ErasureForbidden("Only compliance officers can erase; staff can delete, which keeps the audit.")
    with transaction.atomic():
        counts = _erase_memories([memory.pk])
    logger.info("memory %s of user %s (and what it replaced) erased by user %s", memory.pk, memory.user_id, actor.pk)
    return counts
