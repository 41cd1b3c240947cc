"""The user list links each person to their per-person page (everything stored about them);
the audit of staff reads is listed, read-only."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from liamemory.admin_utils import NoCountAdminMixin, StaffViewOnlyMixin, person_link
from liamemory.models import StaffAccessLog

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class PersonUserAdmin(UserAdmin):
    list_display = (*UserAdmin.list_display, "stored_data")

    @admin.display(description="stored data")
    def stored_data(self, obj) -> str:
        return person_link(obj.pk, "everything stored")


@admin.register(StaffAccessLog)
class StaffAccessLogAdmin(StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    list_display = ("viewed_at", "viewer_username", "what", "object_ref", "subject_link")
    list_filter = ("what",)
    ordering = ("-viewed_at", "-id")

    @admin.display(description="person")
    def subject_link(self, obj: StaffAccessLog) -> str:
        return person_link(obj.subject_id)
