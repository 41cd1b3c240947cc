from django.contrib import admin

from governance.models import PurgeRecord, RetentionPolicy
from governance.retention import policy_cache_clear

# --- retention and purge (issue 5) ---------------------------------------------------


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    list_display = ("scope", "memory_kind", "lifetime_days", "updated_at")
    list_filter = ("scope",)
    list_editable = ("lifetime_days",)
    ordering = ("scope", "memory_kind")

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        # Other processes pick the change up within retention.CACHE_SECONDS.
        policy_cache_clear()

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        policy_cache_clear()


@admin.register(PurgeRecord)
class PurgeRecordAdmin(admin.ModelAdmin):
    """What each purge deleted: counts only, read-only."""

    list_display = ("started_at", "finished_at", "counts", "skipped_held_users")
    readonly_fields = ("started_at", "finished_at", "counts", "skipped_held_users")
    ordering = ("-started_at",)
    show_full_result_count = False

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# --- end of retention and purge ---------------------------------------------------
