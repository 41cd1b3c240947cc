"""The memory admin's filters and forms (the admin classes are ``backoffice/memories.py``)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin

from memories.models import Memory


class UserIdFilter(admin.SimpleListFilter):
    """Filter by the person's user id, typed in (a list of every user would not scale)."""

    title = "user id"
    parameter_name = "user_id"
    template = "admin/memories/input_filter.html"

    def lookups(self, request, model_admin):
        return ()

    def has_output(self) -> bool:
        return True

    def queryset(self, request, queryset):
        value = (self.value() or "").strip()
        if not value:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(user_id=int(value))

    def choices(self, changelist):
        keep = [(k, v) for k, v in changelist.params.items() if k not in (self.parameter_name, "p")]
        yield {
            "selected": self.value() is not None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": "All",
            "hidden": keep,
            "value": self.value() or "",
        }


class SourceFilter(admin.SimpleListFilter):
    title = "source"
    parameter_name = "source"

    def lookups(self, request, model_admin):
        return (
            ("conversation", "From a conversation"),
            ("expired", "From a conversation since expired or deleted"),
            ("none", "Not from a conversation"),
        )

    def queryset(self, request, queryset):
        match self.value():
            case "conversation":
                return queryset.filter(source_thread_ref__isnull=False)
            case "expired":
                return queryset.filter(source_thread_ref__isnull=False, source_thread__isnull=True)
            case "none":
                return queryset.filter(source_thread_ref__isnull=True)
        return queryset


class MemoryForm(forms.ModelForm):
    content = forms.CharField(
        max_length=settings.MEMORY_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="One short fact.",
    )

    class Meta:
        model = Memory
        fields = ("user", "content", "kind", "importance", "expires_at")


class CorrectionForm(forms.Form):
    content = forms.CharField(
        label="Corrected text",
        max_length=settings.MEMORY_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="A new active memory with this text replaces the old one, which is kept as superseded.",
    )


class RejectionForm(forms.Form):
    reason = forms.CharField(
        max_length=80, required=False, help_text="Why: kept in each memory's history (no personal data, please)."
    )
