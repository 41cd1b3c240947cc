"""Staff admin for runs and their traces: why a reply said what it said."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from agents.context_report import ContextReport, context_report_read
from agents.models import Approval, ApprovalDecision, Run, RunTransition, TraceEvent
from agents.selectors import thread_checkpoints
from conversations.models import Message, ThreadSummary
from liamemory.admin_utils import (
    AccessLoggedMixin,
    NoCountAdminMixin,
    StaffViewOnlyMixin,
    admin_link,
    person_link,
    truncate,
)
from liamemory.errors import ApplicationError, Conflict
from liamemory.models import StaffAccess
from liamemory.roles import is_staff, signed_in
from liamemory.staff_access import staff_access_record
from memories.models import Memory
from usecases.turns import approval_decide, thread_fork

INLINE_TRACE_EVENTS = 300


def _pretty(value, limit: int = 4000) -> str:
    return format_html("<pre style='white-space:pre-wrap'>{}</pre>", truncate(json.dumps(value, indent=2), limit))


class FirstEventsFormSet(BaseInlineFormSet):
    """A run's first ``INLINE_TRACE_EVENTS`` events in order (the step limit keeps runs short anyway)."""

    def get_queryset(self):
        if not hasattr(self, "_queryset"):
            self._queryset = list(super().get_queryset().order_by("id")[:INLINE_TRACE_EVENTS])
        return self._queryset


class TraceEventInline(StaffViewOnlyMixin, admin.TabularInline):
    model = TraceEvent
    formset = FirstEventsFormSet
    fields = ("kind", "name", "tokens_in", "tokens_out", "duration_ms", "payload_view", "created_at")
    readonly_fields = fields
    extra = 0

    @admin.display(description="payload")
    def payload_view(self, obj: TraceEvent) -> str:
        return _pretty(obj.payload, 2000)


class RunTransitionInline(StaffViewOnlyMixin, admin.TabularInline):
    """The run's life: each move from a state to another, when and why (``agents/state_machine.py``)."""

    model = RunTransition
    fields = ("at", "from_status", "to_status", "reason")
    readonly_fields = fields
    extra = 0
    ordering = ("id",)


@admin.register(Run)
class RunAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    access_what = StaffAccess.RUN
    list_display = (
        "id",
        "thread",
        "user_link",
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
    # Fixed choices only: a DISTINCT over every run's model or agent is a full scan.
    list_filter = ("status", "error_code")
    search_fields = ("=id",)
    list_select_related = ("user", "thread")
    ordering = ("-created_at",)
    fields = (
        "id",
        "thread_link",
        "user_link",
        "request_link",
        "agent",
        "status",
        "error_code",
        "error_message",
        "model",
        "prompt_context",
        "tokens_in",
        "tokens_out",
        "tokens_cached",
        "tokens_cache_write",
        "tokens_full_resend",
        "latency_ms",
        "attempts",
        "retry_link",
        "checkpoints_link",
        "created_at",
        "started_at",
        "finished_at",
        "expires_at",
    )
    readonly_fields = fields
    inlines = [RunTransitionInline, TraceEventInline]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("user", "thread")

    # --- time travel: the thread's checkpoints, and a fork from one -----------------
    def get_urls(self):
        view = self.admin_site.admin_view(self.checkpoints_view)
        extra = [path("<path:object_id>/checkpoints/", view, name="agents_run_checkpoints")]
        return extra + super().get_urls()

    def checkpoints_view(self, request: HttpRequest, object_id: str):
        """The run's thread as LangGraph checkpointed it; POST forks a new thread from one."""
        run = self.get_object(request, unquote(object_id))
        if run is None or not self.has_view_permission(request, run):
            raise Http404("No such run.")
        if request.method == "POST":
            try:
                checkpoint_id = request.POST.get("checkpoint_id", "")
                fork = thread_fork(thread=run.thread, checkpoint_id=checkpoint_id, actor=signed_in(request.user))
            except ApplicationError as exc:
                self.message_user(request, exc.message, messages.ERROR)
            else:
                self.message_user(request, f"Forked as a new thread of {run.user.username}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:conversations_thread_change", args=[fork.pk]))
        staff_access_record(
            viewer=signed_in(request.user), subject_id=run.user_id, what=StaffAccess.THREAD, object_ref=run.thread_id
        )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Checkpoints of the thread of run {run.pk}",
            "opts": self.opts,
            "original": run,
            "checkpoints": [
                {**cp, "is_current": cp["run_id"] == str(run.pk)} for cp in thread_checkpoints(thread=run.thread)
            ],
        }
        return TemplateResponse(request, "admin/agents/run/checkpoints.html", context)

    @admin.display(description="checkpoints")
    def checkpoints_link(self, obj: Run) -> str:
        url = reverse("admin:agents_run_checkpoints", args=[obj.pk])
        return format_html('<a href="{}">The thread\'s checkpoints (fork from one)</a>', url)

    @admin.display(description="user", ordering="user__username")
    def user_link(self, obj: Run) -> str:
        return person_link(obj.user_id, obj.user.username)

    @admin.display(description="thread")
    def thread_link(self, obj: Run) -> str:
        return admin_link(obj.thread, truncate(str(obj.thread), 80))

    @admin.display(description="request message")
    def request_link(self, obj: Run) -> str:
        return admin_link(None, model="conversations.message", pk=obj.request_message_id)

    @admin.display(description="retry of")
    def retry_link(self, obj: Run) -> str:
        return admin_link(None, model="agents.run", pk=obj.retry_of_id)

    @admin.display(description="what went into this prompt")
    def prompt_context(self, obj: Run) -> str:
        """The run's context report made navigable: the summary, the memories, the window of messages."""
        report = context_report_read(obj.context_report)
        if report is None:
            return "Not recorded (the run has not assembled a context yet)."
        rows = [
            ("Summary", self._summary_cell(obj, report)),
            ("Memories", self._memories_cell(report)),
        ]
        if report.excerpts:
            rows.append(("Older excerpts", self._excerpts_cell(report)))
        first, last = report.window_first_sequence, report.window_last_sequence
        if first is not None and last is not None:
            url = f"{reverse('admin:conversations_message_changelist')}?thread={obj.thread_id}"
            url += f"&sequence__gte={first}&sequence__lte={last}"
            window = format_html(
                '<a href="{}">messages {}–{}</a> ({} sent, {} dropped for the budget)',
                url,
                first,
                last,
                _or_unknown(report.window_messages),
                report.dropped_for_budget,
            )
            rows.append(("Window", window))
        if report.uncovered_messages:
            rows.append(("Outside window and summary", f"{report.uncovered_messages} messages (search_history only)"))
        if report.estimated_tokens is not None:
            rows.append(
                (
                    "Tokens",
                    f"{report.estimated_tokens} estimated of a {_or_unknown(report.budget)} budget; "
                    f"resending the whole history: {_or_unknown(report.full_resend_tokens)}",
                )
            )
        table = format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows)
        return format_html(
            "<table>{}</table><details><summary>raw context report (version {})</summary>{}</details>",
            table,
            report.version,
            _pretty(obj.context_report),
        )

    @staticmethod
    def _summary_cell(obj: Run, report: ContextReport) -> str:
        version = report.summary_version
        if not version:
            return "none"
        summary = ThreadSummary.objects.filter(thread_id=obj.thread_id, version=version).only("id").first()
        label = f"v{version} (covers messages 1–{report.summary_covers_through})"
        return admin_link(summary, label) if summary else f"{label}, since deleted"

    @staticmethod
    def _memories_cell(report: ContextReport) -> str:
        if not report.memory_ids:
            return "none"
        found = {m.pk: m for m in Memory.objects.filter(pk__in=report.memory_ids).only("id", "kind", "content")}
        items = format_html_join(
            "",
            "<li>{}</li>",
            (
                (
                    admin_link(found[i], f"#{i} [{found[i].kind}] {truncate(found[i].content, 80)}")
                    if i in found
                    else f"#{i} (since deleted)",
                )
                for i in report.memory_ids
            ),
        )
        return format_html("<ul style='margin:0'>{}</ul>", items)

    @staticmethod
    def _excerpts_cell(report: ContextReport) -> str:
        ids = [e.message_id for e in report.excerpts]
        found = {m.pk: m for m in Message.objects.filter(pk__in=ids).only("id", "text")}
        items = format_html_join(
            "",
            "<li>{}</li>",
            (
                (
                    admin_link(found[e.message_id], f"#{e.sequence} {truncate(found[e.message_id].text, 80)}")
                    if e.message_id in found
                    else f"#{e.sequence} (since deleted)",
                )
                for e in report.excerpts
            ),
        )
        label = f"{len(report.excerpts)} ({report.excerpt_tokens} tokens)"
        return format_html("{}<ul style='margin:0'>{}</ul>", label, items)


def _or_unknown(value: int | None) -> str:
    return "?" if value is None else str(value)


@admin.register(TraceEvent)
class TraceEventAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    access_what = StaffAccess.TRACE
    list_display = ("id", "run_link", "kind", "name", "tokens_in", "tokens_out", "duration_ms", "created_at")
    list_filter = ("kind",)
    fields = ("run_link", "kind", "name", "tokens_in", "tokens_out", "duration_ms", "created_at", "payload_view")
    readonly_fields = fields
    ordering = ("-id",)
    list_per_page = 100

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("run")

    def access_subject_id(self, obj: TraceEvent) -> int:
        return obj.run.user_id

    @admin.display(description="run")
    def run_link(self, obj: TraceEvent) -> str:
        return admin_link(None, model="agents.run", pk=obj.run_id)

    @admin.display(description="payload")
    def payload_view(self, obj: TraceEvent) -> str:
        return _pretty(obj.payload, 20000)


class ApprovalDecisionFilter(admin.SimpleListFilter):
    """The queue by default: the approvals staff still have to decide; the others on demand."""

    title = "decision"
    parameter_name = "decision"
    ALL = "all"

    def lookups(self, request: HttpRequest, model_admin):
        return [(ApprovalDecision.PENDING.value, "Waiting for a decision"), (self.ALL, "All")] + [
            (d.value, d.label) for d in ApprovalDecision if d != ApprovalDecision.PENDING
        ]

    def choices(self, changelist):
        for value, label in self.lookup_choices:
            selected = self.value() == value or (self.value() is None and value == ApprovalDecision.PENDING)
            yield {
                "selected": selected,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request: HttpRequest, queryset):
        value = self.value()
        if value in (None, ApprovalDecision.PENDING):
            return queryset.waiting()
        if value == self.ALL:
            return queryset
        return queryset.filter(decision=value)


@admin.register(Approval)
class ApprovalAdmin(AccessLoggedMixin, StaffViewOnlyMixin, NoCountAdminMixin, admin.ModelAdmin):
    """The queue of actions runs asked staff to allow: approve or reject them; and past decisions."""

    access_what = StaffAccess.RUN

    list_display = (
        "id",
        "run_link",
        "user_link",
        "action",
        "requested_action",
        "amount",
        "requested_at",
        "decision",
        "decided_by",
        "decided_at",
    )
    list_filter = (ApprovalDecisionFilter,)
    list_select_related = ("run__user", "decided_by")
    ordering = ("requested_at",)
    fields = (
        "id",
        "run_link",
        "user_link",
        "action",
        "reason",
        "amount",
        "checkpoint_id",
        "requested_at",
        "decision",
        "decided_by",
        "decided_at",
        "note",
    )
    readonly_fields = fields
    actions = ["approve", "reject"]

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        # Needed for actions to show; the form itself stays read-only.
        return is_staff(request.user)

    def access_subject_id(self, obj: Approval) -> int:
        return obj.run.user_id

    @admin.display(description="user")
    def user_link(self, obj: Approval) -> str:
        return person_link(obj.run.user_id, obj.run.user.username)

    @admin.display(description="run")
    def run_link(self, obj: Approval) -> str:
        return admin_link(None, model="agents.run", pk=obj.run_id)

    @admin.display(description="action asked for")
    def requested_action(self, obj: Approval) -> str:
        return truncate(obj.reason, 200)

    def _decide(self, request: HttpRequest, queryset, approved: bool) -> None:
        done = 0
        for approval in queryset:
            try:
                approval_decide(
                    approval=approval,
                    approved=approved,
                    actor=signed_in(request.user),
                    note=f"{'approved' if approved else 'rejected'} in admin",
                )
                done += 1
            except Conflict:
                pass
        verb = "approved" if approved else "rejected"
        self.message_user(request, f"{done} action(s) {verb}; the conversation(s) resume now.")

    @admin.action(description="Approve the requested action")
    def approve(self, request: HttpRequest, queryset) -> None:
        self._decide(request, queryset, True)

    @admin.action(description="Reject the requested action")
    def reject(self, request: HttpRequest, queryset) -> None:
        self._decide(request, queryset, False)
