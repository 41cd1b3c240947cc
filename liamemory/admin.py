"""The audit of staff reads, listed read-only (the user list is ``backoffice/people.py``)."""

from django.contrib import admin

from liamemory.admin_utils import NoCountAdminMixin, StaffViewOnlyMixin, person_link
from liamemory.models import StaffAccessLog


@admin.register(StaffAccessLog)
class StaffAccessLogAdmin(StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    list_display = ("viewed_at", "viewer_username", "what", "object_ref", "subject_link")
    list_filter = ("what",)
    ordering = ("-viewed_at", "-id")

    @admin.display(description="person")
    def subject_link(self, obj: StaffAccessLog) -> str:
        return person_link(obj.subject_id)
