from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from memories.models import Memory, MemoryPreference


@admin.register(Memory)
class MemoryAdmin(SimpleHistoryAdmin):
    list_display = (
        "id",
        "user",
        "kind",
        "status",
        "importance",
        "short_content",
        "writer_type",
        "created_at",
        "expires_at",
    )
    list_filter = ("kind", "status", "writer_type")
    search_fields = ("content", "user__username")
    list_select_related = ("user",)
    raw_id_fields = ("user", "superseded_by", "source_thread", "source_message", "source_run")
    readonly_fields = ("created_at", "updated_at", "last_used_at", "source_thread_ref")

    @admin.display(description="content")
    def short_content(self, obj: Memory) -> str:
        return obj.content[:80]


@admin.register(MemoryPreference)
class MemoryPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "long_term_enabled", "updated_at")
    list_filter = ("long_term_enabled",)
    raw_id_fields = ("user",)
