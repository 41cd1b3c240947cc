"""Staff admin for long-term memories: find, correct, approve; every write goes through services."""

from __future__ import annotations

from typing import ClassVar

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from simple_history.admin import SimpleHistoryAdmin

from backoffice.memory_forms import CorrectionForm, MemoryForm, RejectionForm, SourceFilter, UserIdFilter
from liamemory.admin_utils import (
    AccessLoggedMixin,
    NoCountAdminMixin,
    StaffManageMixin,
    StaffViewOnlyMixin,
    admin_link,
    person_link,
    truncate,
)
from liamemory.errors import ApplicationError
from liamemory.models import StaffAccess
from liamemory.roles import signed_in
from liamemory.staff_access import staff_access_record
from memories.models import (
    Memory,
    MemoryPreference,
    MemoryStatus,
    PendingMemory,
    WriterType,
)
from memories.selectors import memories_ranked
from memories.services import (
    memory_approve,
    memory_delete,
    memory_expire_now,
    memory_reject,
    memory_remember,
    memory_update,
)
from usecases.memory_correction import memory_correct

EDITABLE_FIELDS = ("content", "kind", "importance", "expires_at")
# Shown after the editable ones, never edited: the status and its links, who wrote it and when.
DERIVED_FIELDS = (
    "status",
    "correct_link",
    "superseded_by_link",
    "supersedes_list",
    "provenance",
    "writer",
    "created_at",
    "updated_at",
    "last_used_at",
)


@admin.register(Memory)
class MemoryAdmin(AccessLoggedMixin, StaffManageMixin, NoCountAdminMixin, SimpleHistoryAdmin):
    access_what = StaffAccess.MEMORY
    form = MemoryForm
    list_display: tuple[str, ...] = (
        "id",
        "person",
        "kind",
        "status",
        "importance",
        "short_content",
        "writer",
        "source",
        "created_at",
        "expires_at",
    )
    list_display_links: tuple[str, ...] | None = ("id", "short_content")
    list_filter: ClassVar[tuple[type[admin.ListFilter] | str, ...]] = (
        UserIdFilter,
        "kind",
        "status",
        "writer_type",
        SourceFilter,
    )
    search_fields = ("content",)
    search_help_text = "Ranked by similarity to the memory text (pg_trgm)."
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    ordering = ("-created_at", "-id")
    actions: tuple[str, ...] = ("approve_selected", "reject_selected", "expire_selected", "supersede_selected")

    # --- the form -----------------------------------------------------------------
    def get_fields(self, request: HttpRequest, obj: Memory | None = None):
        if obj is None:
            return ("user", *EDITABLE_FIELDS)
        return ("person", *EDITABLE_FIELDS, *DERIVED_FIELDS)

    def get_readonly_fields(self, request: HttpRequest, obj: Memory | None = None):
        if obj is None:
            return ()
        derived = ("person", *DERIVED_FIELDS)
        if obj.status in (MemoryStatus.ACTIVE, MemoryStatus.PENDING):
            return derived
        return (*EDITABLE_FIELDS, *derived)  # superseded and rejected versions are history

    def get_queryset(self, request: HttpRequest):
        # The staff API's search (memories.selectors), ranked before the ordering uses the score.
        qs = self.model._default_manager.get_queryset()
        term = request.GET.get("q", "").strip()
        if term:
            qs = memories_ranked(qs, q=term)
        return qs.order_by(*self.get_ordering(request))

    def get_search_results(self, request: HttpRequest, queryset, search_term: str):
        return queryset, False  # done by get_queryset

    def get_ordering(self, request: HttpRequest):
        if request.GET.get("q", "").strip():
            return ("-score", "-id")
        return super().get_ordering(request)

    # --- writes, through services -------------------------------------------------
    def changeform_view(self, request: HttpRequest, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ApplicationError as exc:
            hint = exc.extra.get("how_to_fix", "")
            self.message_user(request, f"Not saved: {exc.message} {hint}".strip(), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def save_model(self, request: HttpRequest, obj: Memory, form, change: bool) -> None:
        if change:
            fields = {f: form.cleaned_data[f] for f in form.changed_data if f in EDITABLE_FIELDS}
            if fields:
                memory_update(actor=signed_in(request.user), memory=obj, **fields)
            return
        outcome = memory_remember(
            user=obj.user,
            content=form.cleaned_data["content"],
            kind=form.cleaned_data["kind"],
            importance=form.cleaned_data["importance"],
            writer_type=WriterType.STAFF,
            writer_name=request.user.get_username(),
            actor=signed_in(request.user),
        )
        if form.cleaned_data.get("expires_at"):
            memory_update(
                actor=signed_in(request.user), memory=outcome.memory, expires_at=form.cleaned_data["expires_at"]
            )
        if outcome.action != "created":
            self.message_user(
                request, f"Memory #{outcome.memory.pk} was {outcome.action} instead of adding a new one.", messages.INFO
            )
        # The admin redirects to (and logs) ``obj``: make it the row the service wrote.
        obj.pk = outcome.memory.pk
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: Memory) -> None:
        memory_delete(actor=signed_in(request.user), memory=obj)

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        for memory in queryset:
            memory_delete(actor=signed_in(request.user), memory=memory)

    # History is an audit: viewable, never reverted from the admin.
    def has_change_history_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    # --- actions ------------------------------------------------------------------
    def _apply(self, request: HttpRequest, queryset, service, done: str) -> None:
        ok, refused = 0, []
        for memory in queryset:
            try:
                service(actor=signed_in(request.user), memory=memory)
                ok += 1
            except ApplicationError as exc:
                refused.append(f"#{memory.pk}: {exc.message}")
        if ok:
            self.message_user(request, f"{ok} memor{'y' if ok == 1 else 'ies'} {done}.", messages.SUCCESS)
        if refused:
            self.message_user(request, "Skipped " + "; ".join(refused), messages.WARNING)

    @admin.action(description="Approve selected pending memories")
    def approve_selected(self, request: HttpRequest, queryset) -> None:
        self._apply(request, queryset, memory_approve, "approved")

    @admin.action(description="Reject selected pending memories…")
    def reject_selected(self, request: HttpRequest, queryset):
        """An intermediate page asks for the reason, which goes into each memory's history."""
        form = RejectionForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]

            def reject(*, actor, memory):
                return memory_reject(actor=actor, memory=memory, reason=reason)

            self._apply(request, queryset, reject, "rejected")
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Reject memories",
            "opts": self.opts,
            "memories": list(queryset[:200]),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/memories/memory/reject.html", context)

    @admin.action(description="Expire selected memories now")
    def expire_selected(self, request: HttpRequest, queryset) -> None:
        self._apply(request, queryset, memory_expire_now, "expired")

    @admin.action(description="Supersede with a corrected text…")
    def supersede_selected(self, request: HttpRequest, queryset):
        ids = list(queryset.values_list("pk", flat=True)[:2])
        if len(ids) != 1:
            self.message_user(request, "Select exactly one memory to correct.", messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin:memories_memory_correct", args=[ids[0]]))

    # --- the correction page ------------------------------------------------------
    def _url_prefix(self) -> str:
        return f"{self.opts.app_label}_{self.opts.model_name}"

    def get_urls(self):
        custom = [
            path(
                "<path:object_id>/correct/",
                self.admin_site.admin_view(self.correct_view),
                name=f"{self._url_prefix()}_correct",
            )
        ]
        return custom + super().get_urls()

    def correct_view(self, request: HttpRequest, object_id: str):
        memory = self.get_object(request, unquote(object_id))
        if memory is None:
            raise Http404("No such memory.")
        if not self.has_change_permission(request, memory):
            raise PermissionDenied
        form = CorrectionForm(request.POST or None, initial={"content": memory.content})
        if request.method == "POST" and form.is_valid():
            try:
                new = memory_correct(actor=signed_in(request.user), memory=memory, content=form.cleaned_data["content"])
            except ApplicationError as exc:
                form.add_error(None, exc.message)
            else:
                self.message_user(request, f"Memory #{memory.pk} superseded by #{new.pk}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:memories_memory_change", args=[new.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Correct memory #{memory.pk}",
            "opts": self.opts,
            "original": memory,
            "form": form,
        }
        if request.method == "GET":
            # The page shows the memory's text: a staff read like its change page.
            staff_access_record(
                viewer=signed_in(request.user), subject_id=memory.user_id, what=StaffAccess.MEMORY, object_ref=memory.pk
            )
        return TemplateResponse(request, "admin/memories/memory/correct.html", context)

    # --- columns and read-only fields ---------------------------------------------
    @admin.display(description="user", ordering="user__username")
    def person(self, obj: Memory) -> str:
        return person_link(obj.user_id, obj.user.username)

    @admin.display(description="content")
    def short_content(self, obj: Memory) -> str:
        return truncate(obj.content, 90)

    @admin.display(description="writer", ordering="writer_type")
    def writer(self, obj: Memory) -> str:
        return (
            f"{obj.get_writer_type_display()}: {obj.writer_name}" if obj.writer_name else obj.get_writer_type_display()
        )

    @admin.display(description="source")
    def source(self, obj: Memory) -> str:
        if obj.source_thread_id:
            return admin_link(None, "thread", model="conversations.thread", pk=obj.source_thread_id)
        if obj.source_thread_ref:
            return format_html("thread {} (expired)", str(obj.source_thread_ref)[:8])
        return "—"

    @admin.display(description="")
    def correct_link(self, obj: Memory) -> str:
        if obj.status not in (MemoryStatus.ACTIVE, MemoryStatus.PENDING):
            return "—"
        url = reverse("admin:memories_memory_correct", args=[obj.pk])
        return format_html('<a class="button" href="{}">Supersede with a corrected text…</a>', url)

    @admin.display(description="superseded by")
    def superseded_by_link(self, obj: Memory) -> str:
        return admin_link(None, model="memories.memory", pk=obj.superseded_by_id)

    @admin.display(description="replaces")
    def supersedes_list(self, obj: Memory) -> str:
        older = list(obj.supersedes.only("id", "content")[:20])
        if not older:
            return "—"
        return format_html_join(", ", "{}", ((admin_link(m, f"#{m.pk} {truncate(m.content, 40)}"),) for m in older))

    @admin.display(description="provenance")
    def provenance(self, obj: Memory) -> str:
        thread = (
            admin_link(None, str(obj.source_thread_id), model="conversations.thread", pk=obj.source_thread_id)
            if obj.source_thread_id
            else (f"{obj.source_thread_ref} (expired)" if obj.source_thread_ref else "—")
        )
        return format_html(
            "thread: {}<br>message: {}<br>run: {}",
            thread,
            admin_link(None, model="conversations.message", pk=obj.source_message_id),
            admin_link(None, model="agents.run", pk=obj.source_run_id),
        )


@admin.register(PendingMemory)
class PendingMemoryAdmin(MemoryAdmin):
    """The review queue: oldest first, counted (it is small by nature).

    Rows open the ordinary memory page: simple-history audits ``Memory`` itself, so
    every change happens there or through the actions (services save concrete rows).
    """

    list_display = ("id", "person", "kind", "importance", "review_link", "writer", "source", "created_at")
    list_display_links = None
    list_filter = (UserIdFilter, "kind", "writer_type", SourceFilter)
    actions = ("approve_selected", "reject_selected", "supersede_selected")
    ordering = ("created_at", "id")
    show_full_result_count = True
    list_max_show_all = 200

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).filter(status=MemoryStatus.PENDING)

    def get_paginator(self, request, queryset, per_page, orphans=0, allow_empty_first_page=True):
        return Paginator(queryset, per_page, orphans, allow_empty_first_page)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def change_view(self, request: HttpRequest, object_id, form_url="", extra_context=None):
        return HttpResponseRedirect(reverse("admin:memories_memory_change", args=[unquote(object_id)]))

    def history_view(self, request: HttpRequest, object_id, extra_context=None):
        return HttpResponseRedirect(reverse("admin:memories_memory_history", args=[unquote(object_id)]))

    @admin.display(description="content")
    def review_link(self, obj: Memory) -> str:
        return admin_link(None, truncate(obj.content, 90), model="memories.memory", pk=obj.pk)


@admin.register(MemoryPreference)
class MemoryPreferenceAdmin(StaffViewOnlyMixin, admin.ModelAdmin):
    list_display = ("user", "long_term_enabled", "updated_at")
    list_filter = ("long_term_enabled",)
    list_select_related = ("user",)
