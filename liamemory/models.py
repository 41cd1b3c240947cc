"""The core's own table: the audit of staff reads of a person's data.

It belongs to no app because every app's admin and staff API log through it
(``liamemory/staff_access.py``); it knows users, never an app's rows (``object_ref``
is a plain value).
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

    subject = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_views")
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
        return f"{self.viewer_username} viewed {self.what} {self.object_ref} of user {self.subject_id}"
