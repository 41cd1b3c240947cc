from django.contrib import admin

from agents.models import Run, TraceEvent


class TraceEventInline(admin.TabularInline):
    model = TraceEvent
    fields = ("kind", "name", "tokens_in", "tokens_out", "duration_ms", "payload", "created_at")
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "thread",
        "user",
        "agent",
        "status",
        "error_code",
        "model",
        "tokens_in",
        "tokens_out",
        "tokens_cached",
        "latency_ms",
        "created_at",
    )
    list_filter = ("status", "agent", "error_code", "model")
    search_fields = ("id", "thread__id", "user__username")
    list_select_related = ("user", "thread")
    readonly_fields = [f.name for f in Run._meta.fields]
    inlines = [TraceEventInline]
    show_full_result_count = False


@admin.register(TraceEvent)
class TraceEventAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "kind", "name", "tokens_in", "tokens_out", "duration_ms", "created_at")
    list_filter = ("kind",)
    readonly_fields = ("run", "kind", "name", "payload", "tokens_in", "tokens_out", "duration_ms", "created_at")
    show_full_result_count = False
