"""Right to erasure: requests, dry runs and legal holds; the public face of the erasure.

The execution (resumable batches, the scan, the receipt) is
``usecases/erasure_execution.py``; its entry points are re-exported here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from governance.models import OPEN_ERASURE_STATUSES, ErasureRequest, ErasureStatus, LegalHold
from liamemory.roles import is_compliance_officer
from liamemory.task_sending import task_send_on_commit
from usecases import erasure_selectors as sel
from usecases.erasure_execution import (
    ErasureForbidden,
    ErasureRefused,
    erasure_execute,
    erasure_plan,
    erasure_verify,
    memory_erase,
)
from usecases.erasure_receipts import (
    receipt_build,
    receipt_canonical,
    receipt_hash,
    receipt_is_intact,
    receipt_readable,
    subject_ref_for,
)
from usecases.tasks import execute_erasure

logger = logging.getLogger(__name__)


# --- requests --------------------------------------------------------------------


def erasure_request_file(
    *,
    subject: User,
    requested_by: User,
    reason: str = "",
    ticket: str = "",
    delete_account: bool = False,
    self_service: bool = False,
) -> tuple[ErasureRequest, bool]:
    """File a request, or join the person's unfinished one; True when a new one was filed.

    Compliance officers for anyone; a person for themselves only. A person has at most
    one unfinished request: a new one joins it (a failed one is resumed).
    """
    if self_service:
        if requested_by.pk != subject.pk:
            raise ErasureForbidden("You can only erase your own data.")
    elif not is_compliance_officer(requested_by):
        raise ErasureForbidden("Only compliance officers can file erasure requests for other people.")
    existing = _join(subject, delete_account=delete_account)
    if existing is not None:
        return existing, False
    held = sel.hold_in_force(user_id=subject.pk)
    request = ErasureRequest(
        subject=subject,
        subject_ref=subject_ref_for(subject.pk),
        requested_by=requested_by,
        self_service=self_service,
        reason=reason,
        ticket=ticket.strip(),
        delete_account=delete_account,
        status=ErasureStatus.HELD if held else ErasureStatus.PENDING,
    )
    erasure_reference_check(request.ticket, subject)
    # The one-open-request rule is the database's (a partial unique index): of two
    # requests filed at once, the second joins the first instead of naming a constraint.
    request.full_clean(validate_constraints=False)
    try:
        with transaction.atomic():
            request.save()
    except IntegrityError:
        joined = _join(subject, delete_account=delete_account)
        if joined is None:
            raise
        return joined, False
    logger.info("erasure request %s filed (self_service=%s)", request.pk, self_service)
    return request, True


def erasure_reference_check(ticket: str, subject: User) -> None:
    """The reference outlives the erasure: the person's username or e-mail may not be in it."""
    names = {n.lower() for n in (subject.get_username(), subject.email) if n and len(n) >= 3}
    if any(n in ticket.lower() for n in names):
        raise ValidationError({"ticket": "The reference is kept after the erasure: leave the person's name out."})


def erasure_request_create(
    *,
    subject: User,
    requested_by: User,
    reason: str = "",
    ticket: str = "",
    delete_account: bool = False,
    self_service: bool = False,
) -> ErasureRequest:
    """:func:`erasure_request_file`, for callers that need not know whether it was joined."""
    return erasure_request_file(
        subject=subject,
        requested_by=requested_by,
        reason=reason,
        ticket=ticket,
        delete_account=delete_account,
        self_service=self_service,
    )[0]


def _join(subject: User, *, delete_account: bool) -> ErasureRequest | None:
    """The person's unfinished request, which a new one joins: open, or failed (it becomes
    pending again, to be resumed). Two requests would block each other for ever, each
    one a reference to the person the other's verification finds."""
    existing = (
        ErasureRequest.objects.filter(subject=subject, status__in=[*OPEN_ERASURE_STATUSES, ErasureStatus.FAILED])
        .order_by("-created_at")
        .first()
    )
    if existing is None:
        return None
    changes: dict[str, object] = {}
    if existing.status == ErasureStatus.FAILED:
        # Pending again, waiting for an officer's "execute": not an execution the reaper
        # should find lost.
        changes.update(status=ErasureStatus.PENDING, execution_asked_at=None)
    if delete_account and not existing.delete_account:
        changes["delete_account"] = True  # the wider request wins
    if changes:
        ErasureRequest.objects.filter(pk=existing.pk).update(**changes)
        existing.refresh_from_db()
    return existing


def erasure_dry_run(*, request: ErasureRequest) -> dict[str, int]:
    """Counts per store of what executing ``request`` would remove now; removes nothing."""
    if request.status == ErasureStatus.COMPLETED or request.subject_id is None:
        raise ErasureRefused("This erasure is already complete.")
    counts = erasure_plan(request_id=request.pk)
    ErasureRequest.objects.filter(pk=request.pk).update(dry_run_counts=counts)
    request.dry_run_counts = counts
    return counts


def erasure_enqueue(*, request: ErasureRequest) -> None:
    """Start execution in the worker once the caller's transaction commits."""
    _execution_asked(request)
    task_send_on_commit(execute_erasure, str(request.pk))


def _execution_asked(request: ErasureRequest) -> None:
    """Note that execution was asked for: if it is lost before its claim commits (the
    worker or web process killed), the reaper finds the request still pending by this."""
    request.execution_asked_at = timezone.now()
    ErasureRequest.objects.filter(pk=request.pk).update(execution_asked_at=request.execution_asked_at)


# --- telling the person ----------------------------------------------------------


@dataclass(frozen=True)
class ErasureNotice:
    """What a person is told, once, of an erasure a compliance officer ran on them."""

    text: str
    erased_at: datetime | None


def erasure_notice_take(*, user: User) -> ErasureNotice | None:
    """What was erased of this person and when, in plain words, once: at their first
    sign-in (the web's landing page, or the API's ``GET /api/me``) after an erasure a
    compliance officer ran and that kept their account. None when there is nothing new
    to tell. The request no longer names the person; it is found by the receipt's
    pseudonym of their id."""
    request = (
        ErasureRequest.objects.filter(
            subject_ref=subject_ref_for(user.pk),
            status=ErasureStatus.COMPLETED,
            delete_account=False,
            self_service=False,
            person_notified_at__isnull=True,
        )
        .select_related("receipt")
        .order_by("-finished_at")
        .first()
    )
    # Claimed by one conditional update: two tabs signing in at once tell it once.
    if request is None or not ErasureRequest.objects.filter(pk=request.pk, person_notified_at__isnull=True).update(
        person_notified_at=timezone.now()
    ):
        return None
    readable = receipt_readable(request.receipt.body)
    erased = "; ".join(f"{row['plain']}: {row['count']}" for row in readable["erased"])
    when = request.finished_at.strftime("%Y-%m-%d %H:%M UTC") if request.finished_at else "recently"
    text = (
        f"On {when}, at the request of a compliance officer, all your data was erased ({erased}). "
        f"{readable['account']} What you do from now on is stored as before."
    )
    return ErasureNotice(text=text, erased_at=request.finished_at)


# --- legal holds -----------------------------------------------------------------


def legal_hold_place(*, user: User, reason: str, actor: User) -> LegalHold:
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


def legal_hold_lift(*, hold: LegalHold, actor: User) -> LegalHold:
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


def erasure_self_service(*, user: User, delete_account: bool = False) -> ErasureRequest:
    """ "Delete all my data": file the request on oneself and run it now.

    Runs in the request rather than the worker: the erasure ends the caller's
    sessions and tokens, so they could not come back to poll for the outcome.
    """
    request = erasure_request_create(
        subject=user, requested_by=user, delete_account=delete_account, self_service=True, reason="self-service"
    )
    _execution_asked(request)
    return erasure_execute(request_id=request.pk)


__all__ = [
    "ErasureForbidden",
    "ErasureNotice",
    "ErasureRefused",
    "erasure_dry_run",
    "erasure_execute",
    "erasure_notice_take",
    "erasure_reference_check",
    "erasure_request_create",
    "erasure_request_file",
    "erasure_self_service",
    "erasure_verify",
    "legal_hold_lift",
    "legal_hold_place",
    "memory_erase",
    "receipt_build",
    "receipt_canonical",
    "receipt_hash",
    "receipt_is_intact",
    "subject_ref_for",
]
