"""The audit of staff reads: who looked at whose data, and when.

Changes are audited by history (django-simple-history); reads are logged here, by
every app's admin pages (``AccessLoggedMixin``), the staff API and the exports.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from liamemory.models import StaffAccessLog


def staff_access_record_many(*, viewer: User, subject_ids: set[int], what: str, object_ref: str) -> None:
    """One log row per person whose data a staff list showed (one INSERT)."""
    name = getattr(viewer, "username", "")[:150]
    StaffAccessLog.objects.bulk_create(
        StaffAccessLog(subject_id=s, viewer=viewer, viewer_username=name, what=what, object_ref=object_ref[:64])
        for s in sorted(subject_ids)
    )


def staff_access_record(*, viewer: User, subject_id: int, what: str, object_ref: object = "") -> None:
    """Log that staff looked at one person's data (changes are audited by history instead)."""
    staff_access_record_many(viewer=viewer, subject_ids={subject_id}, what=what, object_ref=str(object_ref))
