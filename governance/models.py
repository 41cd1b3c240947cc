"""Purge records, legal holds, erasure requests and receipts (retention policies: ``liamemory.models``)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q


class PurgeRecord(models.Model):
    """One execution of the purge: counts per store, never content."""

    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    skipped_held_users = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"Purge {self.started_at:%Y-%m-%d %H:%M}"


class LegalHoldQuerySet(models.QuerySet["LegalHold"]):
    def in_force(self) -> LegalHoldQuerySet:
        return self.filter(lifted_at__isnull=True)


class LegalHold(models.Model):
    """While in force, the person can be neither erased nor purged."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="legal_holds")
    reason = models.TextField()
    placed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="holds_placed"
    )
    placed_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)

    objects = LegalHoldQuerySet.as_manager()

    class Meta:
        indexes = [
            # "Is this person under hold?" (erasure, purge).
            models.Index(fields=["user"], name="hold_in_force_idx", condition=Q(lifted_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"Hold on user {self.user_id}"


class ErasureStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    HELD = "held", "Waiting: legal hold"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


OPEN_ERASURE_STATUSES = (ErasureStatus.PENDING, ErasureStatus.HELD, ErasureStatus.RUNNING)


class ErasureRequest(models.Model):
    """One person's erasure. ``reason`` is scrubbed and ``subject`` cleared when it completes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Null once the account itself is deleted; subject_ref stays (a pseudonym, no PII).
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="erasure_requests"
    )
    subject_ref = models.CharField(max_length=64)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="erasures_requested"
    )
    self_service = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    # The officer's reference (a ticket number): kept when the reason is wiped, so the
    # request can still be found from the case; it must not hold personal data.
    ticket = models.CharField(
        max_length=64,
        blank=True,
        validators=[
            RegexValidator(
                r"^[A-Za-z0-9][A-Za-z0-9#/._:-]*$",
                "A reference is letters, digits and # / . _ : - only (no names, no e-mail addresses).",
            )
        ],
        help_text="A ticket or case number. Kept after the erasure: no names, no e-mail addresses.",
    )
    delete_account = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=ErasureStatus.choices, default=ErasureStatus.PENDING)
    dry_run_counts = models.JSONField(default=dict, blank=True)
    # What execution removed so far, per store. Updated in the same transaction as each
    # batch, so a run that dies midway resumes with exact totals.
    executed_counts = models.JSONField(default=dict, blank=True)
    error_message = models.TextField(blank=True)
    # What the leftover scan looks for ({"strings": [...], "uuids": [...]}), chosen from
    # the person's data before anything of theirs is deleted, so a resumed attempt checks
    # exactly what the first one found. Personal data itself: emptied when it completes.
    verification = models.JSONField(default=dict, blank=True)
    # Starts of execution; the reaper resumes an interrupted erasure only a few times.
    attempts = models.PositiveSmallIntegerField(default=0)
    # When execution was last asked for (the worker's task enqueued, or a person's own
    # "delete all my data"). A request still ``pending`` long after lost its execution
    # before the claim committed (a process killed first, or inside it): the reaper finds
    # it by this. Null: nobody has asked yet (an officer files, then executes).
    execution_asked_at = models.DateTimeField(null=True, blank=True)
    # When the person, whose account was kept, was told at sign-in what was erased.
    person_notified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(status__in=ErasureStatus.values), name="erasure_status_valid"),
            # One open request per person; also serves "this person's open request".
            models.UniqueConstraint(
                fields=["subject"],
                condition=Q(status__in=["pending", "held", "running"]),
                name="erasure_one_open_per_subject",
            ),
        ]

    def __str__(self) -> str:
        return f"Erasure {self.id} ({self.status})"


class ReceiptImmutable(Exception):
    """A receipt is written once and never changed or deleted."""


class ErasureReceiptQuerySet(models.QuerySet["ErasureReceipt"]):
    def update(self, **kwargs):
        raise ReceiptImmutable("erasure receipts cannot be updated")

    def delete(self):
        raise ReceiptImmutable("erasure receipts cannot be deleted")

    def bulk_update(self, *args, **kwargs):
        raise ReceiptImmutable("erasure receipts cannot be updated")


class ErasureReceipt(models.Model):
    """Proof of an erasure. Holds no personal data; immutable once written.

    Immutability is enforced three times: ``save()``/``delete()`` here, the QuerySet's
    ``update()``/``delete()``, and a database trigger (migration 0003) for everything else.
    """

    request = models.OneToOneField(ErasureRequest, on_delete=models.PROTECT, related_name="receipt")
    body = models.JSONField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ErasureReceiptQuerySet.as_manager()

    class Meta:
        # Related-object access goes through the base manager: make it the refusing one too.
        base_manager_name = "objects"

    def __str__(self) -> str:
        return f"Receipt {self.sha256[:12]}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ReceiptImmutable("erasure receipts cannot be updated")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ReceiptImmutable("erasure receipts cannot be deleted")
