"""The core's own tables: the retention policies and the audit of staff reads.

They belong to no app because every app reads or writes them: every writer of a
thread, run or memory takes its expiry from the policies (``liamemory/retention.py``),
and every app's admin and the staff API log reads (``liamemory/staff_access.py``).
They know users, never an app's rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class StaffAccess(models.TextChoices):
    PERSON = "person", "Per-person page"
    MEMORY = "memory", "Memory"
    THREAD = "thread", "Thread"
    MESSAGE = "message", "Message"
    SUMMARY = "summary", "Summary"
    RUN = "run", "Run"
    TRACE = "trace", "Trace event"


class StaffAccessLog(models.Model):
    """A staff member looked at a person's data (the audit of reads; changes are in history)."""

    # Null once the person is erased: the row stays, naming them only by ``subject_ref``.
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="staff_views"
    )
    # The erasure receipt's pseudonym of the person (HMAC of the user id), set when they are erased.
    subject_ref = models.CharField(max_length=64, blank=True)
    viewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="staff_views_made"
    )
    # Kept when the viewer's account is gone: an audit must still say who looked.
    viewer_username = models.CharField(max_length=150)
    what = models.CharField(max_length=16, choices=StaffAccess.choices)
    object_ref = models.CharField(max_length=64, blank=True)
    viewed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Moved from the memories app; the table keeps its name.
        db_table = "memories_staffaccesslog"
        indexes = [
            # "Who looked at this person's data?" (per-person page, export, erasure).
            models.Index(fields=["subject", "-viewed_at"], name="staff_access_subject_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(what__in=StaffAccess.values), name="staff_access_what_valid"),
        ]

    def __str__(self) -> str:
        whose = f"user {self.subject_id}" if self.subject_id else f"erased person {self.subject_ref[:12]}"
        return f"{self.viewer_username} viewed {self.what} {self.object_ref} of {whose}"


class RetentionScope(models.TextChoices):
    THREAD = "thread", "Threads (with messages, summaries, checkpoints)"
    INCOGNITO_THREAD = "incognito_thread", "Incognito threads"
    RUN = "run", "Runs (with trace events)"
    MEMORY = "memory", "Long-term memories"


class RetentionPolicy(models.Model):
    """How long one level lives. ``lifetime_days`` null means kept until deleted.

    For ``memory`` a row may name a kind; the row without a kind is the default for
    kinds that have none of their own.
    """

    scope = models.CharField(max_length=32, choices=RetentionScope.choices)
    # A memory kind (``memories.models.MemoryKind``; the admin form offers the list).
    memory_kind = models.CharField(max_length=32, blank=True)
    lifetime_days = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # Moved from the governance app; the table keeps its name.
        db_table = "governance_retentionpolicy"
        verbose_name_plural = "retention policies"
        constraints = [
            models.UniqueConstraint(fields=["scope", "memory_kind"], name="retention_scope_kind_uniq"),
            models.CheckConstraint(
                condition=Q(memory_kind="") | Q(scope="memory"), name="retention_kind_only_for_memory"
            ),
        ]

    def __str__(self) -> str:
        life = f"{self.lifetime_days} days" if self.lifetime_days is not None else "kept until deleted"
        return f"{self.scope}{':' + self.memory_kind if self.memory_kind else ''} — {life}"
