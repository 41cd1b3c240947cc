"""Admin building blocks shared by the apps: the staff role policy and big-table lists.

Role policy (docs/design.md, "Who may do what"): staff inspect everything stored and
correct memories; they never edit history (messages, summaries, runs, traces are
read-only for everyone, superusers included: corrections are new rows). The policy
is in code rather than in per-user permission rows, so every staff account (the
demo one, and any ``is_staff`` user) can do its job; compliance officers are not
staff unless someone makes them so.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.paginator import Page, Paginator
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from liamemory.roles import is_staff, signed_in
from liamemory.staff_access import staff_access_record, staff_access_record_many

if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = object


class NoCountPaginator(Paginator):
    """Never runs COUNT(*): fetches one row more than a page to know whether a next page exists.

    ``count`` is then a lower bound (exact on the last page) and the admin shows
    pages up to the next one. It serves tables that grow without bound (messages,
    trace events, runs), where counting a filtered million rows on every page view
    would be the slowest thing the admin does.
    """

    def __init__(self, object_list, per_page, page_number: int = 1, **kwargs: Any) -> None:
        kwargs["orphans"] = 0
        super().__init__(object_list, per_page, **kwargs)
        self.page_number = max(1, page_number)

    @cached_property
    def _rows(self) -> list:
        offset = (self.page_number - 1) * self.per_page
        return list(self.object_list[offset : offset + self.per_page + 1])

    @cached_property
    def count(self) -> int:
        return (self.page_number - 1) * self.per_page + len(self._rows)

    @property
    def has_more(self) -> bool:
        return len(self._rows) > self.per_page

    def page(self, number) -> Page:
        number = self.validate_number(number)
        if number == self.page_number:
            return self._get_page(self._rows[: self.per_page], number, self)  # type: ignore[attr-defined]
        return super().page(number)


class NoCountAdminMixin:
    """A changelist for a big table: no COUNT(*), no facets, no "show all"."""

    show_full_result_count: ClassVar[bool] = False
    show_facets = admin.ShowFacets.NEVER
    list_max_show_all: ClassVar[int] = 0
    list_per_page: ClassVar[int] = 50

    def get_paginator(self, request: HttpRequest, queryset, per_page, orphans=0, allow_empty_first_page=True):
        try:
            page_number = int(request.GET.get("p", 1))
        except ValueError:
            page_number = 1
        return NoCountPaginator(
            queryset, per_page, page_number=page_number, allow_empty_first_page=allow_empty_first_page
        )


_NOT_FILTERS = frozenset({"q", "p", "o", "e", "all"})


class AccessLoggedMixin(_ModelAdmin):
    """Each staff view of an object's change page is logged against the person it is about."""

    access_what: str = ""

    def access_subject_id(self, obj) -> int:
        return obj.user_id

    def changelist_view(self, request: HttpRequest, extra_context=None):
        """A list shows people's data too: one row per person on the page, in one INSERT
        (with the filter, e.g. ``?thread=``, so the log says which list)."""
        response = super().changelist_view(request, extra_context)
        changelist = (getattr(response, "context_data", None) or {}).get("cl")
        if request.method == "GET" and changelist is not None:
            subjects = {self.access_subject_id(obj) for obj in changelist.result_list} - {None}
            if subjects:
                # Filters only: never the search box (``q``), whose words are the people's.
                kept = sorted((k, v) for k, v in request.GET.items() if k not in _NOT_FILTERS and not k.startswith("_"))
                filters = "&".join(f"{k}={v}" for k, v in kept)
                staff_access_record_many(
                    viewer=signed_in(request.user),
                    subject_ids=subjects,
                    what=self.access_what,
                    object_ref=f"list?{filters}" if filters else "list",
                )
        return response

    def change_view(self, request: HttpRequest, object_id, form_url="", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        self._log_page(request, response, object_id, "")
        return response

    def history_view(self, request: HttpRequest, object_id, extra_context=None):
        """The history page names the object (a thread's title) and, with simple-history,
        lists every version's values: a read like the change page."""
        response = super().history_view(request, object_id, extra_context)
        self._log_page(request, response, object_id, " history")
        return response

    def history_form_view(self, request: HttpRequest, object_id, version_id, extra_context=None):
        """One past version of the object (simple-history's admin only)."""
        response = super().history_form_view(request, object_id, version_id, extra_context)  # type: ignore[misc]
        self._log_page(request, response, object_id, f" version {version_id}")
        return response

    def _log_page(self, request: HttpRequest, response, object_id, suffix: str) -> None:
        """Log a page that showed an object (simple-history renders without ``context_data``,
        so the object is looked up again when the response does not carry it)."""
        if request.method != "GET" or response.status_code != 200:
            return
        context = getattr(response, "context_data", None) or {}
        obj = context.get("original") or context.get("object") or self._shown_object(request, object_id)
        if obj is not None:
            staff_access_record(
                viewer=signed_in(request.user),
                subject_id=self.access_subject_id(obj),
                what=self.access_what,
                object_ref=f"{obj.pk}{suffix}",
            )

    def _shown_object(self, request: HttpRequest, object_id):
        obj = self.get_object(request, unquote(object_id))
        history = getattr(self.model, "history", None)
        if obj is None and history is not None:
            # A deleted object's history page shows its last version.
            record = history.filter(**{self.model._meta.pk.attname: unquote(object_id)}).first()
            obj = record.instance if record is not None else None
        return obj


class StaffViewOnlyMixin:
    """Staff may look; nobody adds, edits or deletes here through the admin."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_staff(request.user)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return is_staff(request.user)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class StaffManageMixin:
    """Staff may view, add, change and delete (the admin routes every write through services)."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_staff(request.user)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return is_staff(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_staff(request.user)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return is_staff(request.user)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return is_staff(request.user)


def admin_link(obj_or_none, label: str | None = None, *, model: str | None = None, pk: Any = None) -> str:
    """A link to an object's admin change page, from an instance or from ``model`` ("app.model") and ``pk``."""
    if obj_or_none is not None:
        model = f"{obj_or_none._meta.app_label}.{obj_or_none._meta.model_name}"
        pk = obj_or_none.pk
    if pk is None or model is None:
        return "—"
    app_label, model_name = model.split(".")
    url = reverse(f"admin:{app_label}_{model_name}_change", args=[pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else str(pk))


def person_link(user_id: int | None, label: str | None = None) -> str:
    if user_id is None:
        return "—"
    return format_html(
        '<a href="{}">{}</a>', reverse("admin-person", args=[user_id]), label if label is not None else user_id
    )


def truncate(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
