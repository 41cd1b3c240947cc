from django.contrib import admin

from conversations.models import Message, Thread, ThreadSummary


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("sequence", "role", "agent", "text", "token_estimate", "run", "created_at")
    readonly_fields = fields
    can_delete = False
    extra = 0
    show_change_link = True
    ordering = ("sequence",)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class SummaryInline(admin.StackedInline):
    model = ThreadSummary
    fields = ("version", "covers_through", "model", "token_estimate", "rebuilt_from_source", "text", "created_at")
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "title",
        "owner",
        "agent",
        "incognito",
        "last_activity_at",
        "tokens_sent",
        "tokens_full_resend",
        "expires_at",
    )
    list_filter = ("agent", "incognito")
    search_fields = ("id", "title", "owner__username")
    list_select_related = ("owner",)
    readonly_fields = (
        "id",
        "created_at",
        "last_activity_at",
        "tokens_sent",
        "tokens_full_resend",
        "next_sequence",
        "history_tokens",
    )
    raw_id_fields = ("owner",)
    inlines = [SummaryInline, MessageInline]
    date_hierarchy = "last_activity_at"


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "thread", "sequence", "role", "agent", "token_estimate", "created_at")
    list_filter = ("role",)
    search_fields = ("thread__id",)
    readonly_fields = ("thread", "sequence", "role", "content", "text", "agent", "run", "token_estimate", "created_at")
    show_full_result_count = False


@admin.register(ThreadSummary)
class ThreadSummaryAdmin(admin.ModelAdmin):
    list_display = ("thread", "version", "covers_through", "model", "token_estimate", "created_at")
    readonly_fields = (
        "thread",
        "version",
        "text",
        "covers_through",
        "model",
        "token_estimate",
        "rebuilt_from_source",
        "created_at",
    )
    search_fields = ("thread__id",)
