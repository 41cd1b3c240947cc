"""Staff admin for threads, messages and summaries: read-only, built for very long threads."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.db.models import F, OuterRef, Subquery
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from conversations.models import Message, Thread, ThreadSummary
from liamemory.admin_utils import (
    AccessLoggedMixin,
    NoCountAdminMixin,
    StaffViewOnlyMixin,
    admin_link,
    person_link,
    truncate,
)
from liamemory.models import StaffAccess

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _ThreadCounts(TypedDict):
    """What the thread list annotates (``get_queryset``)."""

    message_total: int
    latest_summary: int | None


# A thread may hold 100k messages: its page shows the tail, the message list the rest.
INLINE_MESSAGES = 200
SIDE_BY_SIDE_SUMMARIES = 4


def thread_messages_url(thread_id, **extra) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"thread": thread_id, **extra}.items())
    return f"{reverse('admin:conversations_message_changelist')}?{query}"


class LastMessagesFormSet(BaseInlineFormSet):
    """Only the thread's last ``INLINE_MESSAGES`` rows, in order (one backwards index scan)."""

    def get_queryset(self):
        if not hasattr(self, "_queryset"):
            tail = list(super().get_queryset().order_by("-sequence")[:INLINE_MESSAGES])
            tail.reverse()
            self._queryset = tail
        return self._queryset


class MessageInline(StaffViewOnlyMixin, admin.TabularInline):
    model = Message
    formset = LastMessagesFormSet
    fields = ("sequence", "role", "agent", "short_text", "token_estimate", "run_link", "created_at")
    readonly_fields = fields
    extra = 0
    show_change_link = True
    verbose_name_plural = f"messages (the last {INLINE_MESSAGES}; all of them in the message list)"

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return truncate(obj.text, 500)

    @admin.display(description="run")
    def run_link(self, obj: Message) -> str:
        return admin_link(None, model="agents.run", pk=obj.run_id, label="run") if obj.run_id else "—"


@admin.register(Thread)
class ThreadAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    access_what = StaffAccess.THREAD
    list_display = (
        "id",
        "title",
        "owner_link",
        "agent",
        "incognito",
        "message_count",
        "summary_version",
        "last_activity_at",
        "tokens_sent",
        "tokens_full_resend",
        "expires_at",
    )
    # Only filters with fixed choices: a DISTINCT over a big table on every page is not free.
    list_filter = ("incognito",)
    search_fields = ("=id", "title", "=owner__username")
    list_select_related = ("owner",)
    ordering = ("-last_activity_at",)
    fields = (
        "id",
        "title",
        "owner_link",
        "agent",
        "incognito",
        "created_at",
        "last_activity_at",
        "expires_at",
        "tokens_sent",
        "tokens_full_resend",
        "history_tokens",
        "next_sequence",
        "navigation",
        "summaries_side_by_side",
    )
    readonly_fields = fields
    inlines = [MessageInline]

    def get_queryset(self, request: HttpRequest):
        latest_summary = ThreadSummary.objects.filter(thread=OuterRef("pk")).order_by("-version").values("version")[:1]
        # Sequences are handed out under the thread lock without gaps, so next_sequence - 1 is
        # the message count with no scan of a 100k-message thread. (A correlated COUNT per row
        # may be evaluated for every thread before the LIMIT; this never is.)
        return (
            super()
            .get_queryset(request)
            .select_related("owner")
            .annotate(message_total=F("next_sequence") - 1, latest_summary=Subquery(latest_summary))
        )

    def access_subject_id(self, obj: Thread) -> int:
        return obj.owner_id

    @admin.display(description="owner", ordering="owner__username")
    def owner_link(self, obj: Thread) -> str:
        return person_link(obj.owner_id, obj.owner.username)

    @admin.display(description="messages", ordering="message_total")
    def message_count(self, obj: WithAnnotations[Thread, _ThreadCounts]) -> int:
        return obj.message_total

    @admin.display(description="summary")
    def summary_version(self, obj: WithAnnotations[Thread, _ThreadCounts]) -> str:
        return f"v{obj.latest_summary}" if obj.latest_summary else "—"

    @admin.display(description="see also")
    def navigation(self, obj: WithAnnotations[Thread, _ThreadCounts]) -> str:
        return format_html(
            '<a href="{}">all {} messages</a> · <a href="{}?thread={}">runs</a> · <a href="{}?thread={}">summaries</a>'
            ' · <a href="{}?source_thread={}">memories from it</a>',
            thread_messages_url(obj.pk),
            obj.message_total,
            reverse("admin:agents_run_changelist"),
            obj.pk,
            reverse("admin:conversations_threadsummary_changelist"),
            obj.pk,
            reverse("admin:memories_memory_changelist"),
            obj.pk,
        )

    @admin.display(description="summary versions")
    def summaries_side_by_side(self, obj: Thread) -> str:
        summaries = list(ThreadSummary.objects.filter(thread=obj).order_by("-version")[:SIDE_BY_SIDE_SUMMARIES])
        if not summaries:
            return "No summary yet."
        summaries.reverse()
        heads = format_html_join(
            "",
            "<th>v{} — covers messages 1–{}{}<br><small>{}, {} tokens, {}</small></th>",
            (
                (
                    s.version,
                    s.covers_through,
                    " (rebuilt from source)" if s.rebuilt_from_source else "",
                    s.model,
                    s.token_estimate,
                    s.created_at.strftime("%Y-%m-%d %H:%M"),
                )
                for s in summaries
            ),
        )
        cells = format_html_join(
            "", '<td style="vertical-align:top;white-space:pre-wrap;">{}</td>', ((s.text,) for s in summaries)
        )
        return format_html('<table style="table-layout:fixed;width:100%"><tr>{}</tr><tr>{}</tr></table>', heads, cells)


@admin.register(Message)
class MessageAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    access_what = StaffAccess.MESSAGE
    list_display = ("id", "thread_link", "sequence", "role", "agent", "short_text", "token_estimate", "created_at")
    list_filter = ("role",)
    list_select_related = ("thread",)
    fields = (
        "thread_link",
        "sequence",
        "role",
        "agent",
        "run_link",
        "corrects_link",
        "correction_links",
        "token_estimate",
        "created_at",
        "text",
        "content",
    )
    readonly_fields = fields
    list_per_page = 100
    actions = ["correct_selected"]

    @admin.action(description="Correct the selected statement…")
    def correct_selected(self, request: HttpRequest, queryset):
        ids = list(queryset.values_list("pk", flat=True)[:2])
        if len(ids) != 1:
            self.message_user(request, "Select exactly one message to correct.", messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin-message-correct", args=[ids[0]]))

    @admin.display(description="corrects")
    def corrects_link(self, obj: Message) -> str:
        return admin_link(None, model="conversations.message", pk=obj.corrects_id) if obj.corrects_id else "—"

    @admin.display(description="corrections")
    def correction_links(self, obj: Message) -> str:
        notes = list(obj.corrections.order_by("sequence"))
        links = format_html_join(" ", "{}", ((admin_link(n, f"note #{n.sequence}"),) for n in notes))
        if obj.role not in ("user", "assistant"):
            return links or "—"
        url = reverse("admin-message-correct", args=[obj.pk])
        return format_html('{} <a class="button" href="{}">Correct this statement…</a>', links, url)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("thread")

    def access_subject_id(self, obj: Message) -> int:
        return obj.thread.owner_id

    def get_ordering(self, request: HttpRequest):
        # Within one thread, in conversation order (the unique index); across all, newest first (pk).
        return ("thread", "sequence") if "thread" in request.GET else ("-id",)

    @admin.display(description="thread")
    def thread_link(self, obj: Message) -> str:
        return admin_link(obj.thread, truncate(str(obj.thread), 60))

    @admin.display(description="run")
    def run_link(self, obj: Message) -> str:
        return admin_link(None, model="agents.run", pk=obj.run_id) if obj.run_id else "—"

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return truncate(obj.text, 120)


@admin.register(ThreadSummary)
class ThreadSummaryAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    access_what = StaffAccess.SUMMARY
    list_display = (
        "thread",
        "version",
        "covers_through",
        "model",
        "token_estimate",
        "rebuilt_from_source",
        "created_at",
    )
    list_select_related = ("thread",)
    fields = (
        "thread",
        "version",
        "covers_through",
        "model",
        "token_estimate",
        "rebuilt_from_source",
        "created_at",
        "text",
    )
    readonly_fields = fields
    ordering = ("-id",)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("thread")

    def access_subject_id(self, obj: ThreadSummary) -> int:
        return obj.thread.owner_id
