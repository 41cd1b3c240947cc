from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from governance.models import ErasureReceipt, ErasureRequest, LegalHold, PurgeRecord
from liamemory.errors import ApplicationError
from liamemory.models import RetentionPolicy
from liamemory.retention import policy_cache_clear
from liamemory.roles import is_compliance_officer, signed_in
from memories.models import MemoryKind
from usecases.erasure import (
    erasure_dry_run,
    erasure_enqueue,
    erasure_reference_check,
    erasure_request_create,
    legal_hold_lift,
    legal_hold_place,
)
from usecases.erasure_receipts import receipt_canonical, receipt_is_intact, receipt_readable

# --- erasure and legal holds ---------------------------------------------------------
# Compliance officers only: staff may not even see who is being erased. Receipts are
# read-only for everyone, superusers included.


class ComplianceOnlyAdmin(admin.ModelAdmin):
    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_compliance_officer(request.user)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return is_compliance_officer(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_compliance_officer(request.user)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReceiptInline(admin.StackedInline):
    model = ErasureReceipt
    fields = ("sha256", "created_at", "body")
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class PersonChoiceField(forms.ModelChoiceField):
    """A person typed by username (or user id): no list of every user in the page, and no
    need to look up a raw id first."""

    def _people(self) -> QuerySet:
        # The field is always built with a queryset (the request's user model).
        assert self.queryset is not None
        return self.queryset

    def to_python(self, value):
        if value in self.empty_values:
            return None
        text = str(value).strip()
        person = self._people().filter(username=text).first()
        if person is None and text.isdigit():
            person = self._people().filter(pk=int(text)).first()
        if person is None:
            raise forms.ValidationError("No person with this username or id.", code="invalid_choice")
        return person

    def prepare_value(self, value):
        if hasattr(value, "get_username"):
            return value.get_username()
        if str(value or "").isdigit():
            person = self._people().filter(pk=int(value)).first()
            return person.get_username() if person else value
        return value


class ErasureRequestForm(forms.ModelForm):
    subject = PersonChoiceField(
        queryset=get_user_model().objects.all(),
        widget=forms.TextInput,
        label="Person",
        help_text='Their username (or user id); their admin page\'s "Erase this person" fills it in.',
    )

    class Meta:
        model = ErasureRequest
        fields = ("subject", "ticket", "reason", "delete_account")

    def clean(self):
        data = super().clean() or {}
        if data.get("subject") and data.get("ticket"):
            erasure_reference_check(data["ticket"], data["subject"])
        return data


@admin.register(ErasureRequest)
class ErasureRequestAdmin(ComplianceOnlyAdmin):
    form = ErasureRequestForm
    list_display = ("id", "ticket", "subject", "status", "self_service", "delete_account", "created_at", "finished_at")
    list_filter = ("status", "self_service", "delete_account")
    list_select_related = ("subject",)
    # The reference survives the erasure: the way back from a case to its request.
    search_fields = ("ticket",)
    fields = (
        "subject",
        "ticket",
        "reason",
        "delete_account",
        "status",
        "receipt_link",
        "subject_ref",
        "requested_by",
        "self_service",
        "dry_run_counts",
        "executed_counts",
        "error_message",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields[4:]
    actions = ["dry_run", "execute"]
    inlines = [ReceiptInline]

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return self.fields if obj else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: ErasureRequest, form, change: bool) -> None:
        created = erasure_request_create(
            subject=obj.subject,  # type: ignore[arg-type]  # the form requires a subject
            requested_by=signed_in(request.user),
            reason=obj.reason,
            ticket=obj.ticket,
            delete_account=obj.delete_account,
        )
        obj.pk = created.pk
        obj._state.adding = False

    @admin.display(description="Receipt")
    def receipt_link(self, obj: ErasureRequest) -> str:
        receipt = ErasureReceipt.objects.filter(request_id=obj.pk).first()
        if receipt is None:
            return "None yet: it is written when the erasure completes."
        url = reverse("admin:governance_erasurereceipt_readable", args=[receipt.pk])
        return format_html('<a href="{}">Read, print or download the receipt</a>', url)

    def save_related(self, request, form, formsets, change) -> None:
        # The receipt inline is read-only and nothing else is related.
        return None

    def get_inlines(self, request: HttpRequest, obj=None):
        return self.inlines if obj else []

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ApplicationError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            from django.http import HttpResponseRedirect

            return HttpResponseRedirect(request.path)

    @admin.action(description="Dry run: count what would be erased")
    def dry_run(self, request: HttpRequest, queryset: QuerySet[ErasureRequest]) -> None:
        for item in queryset:
            try:
                counts = erasure_dry_run(request=item)
            except ApplicationError as exc:
                self.message_user(request, f"{item.pk}: {exc.message}", messages.WARNING)
                continue
            summary = ", ".join(f"{k}={v}" for k, v in counts.items() if v)
            self.message_user(request, f"{item.pk}: {summary or 'nothing to erase'}")

    @admin.action(description="Execute or resume the erasure (in the background)")
    def execute(self, request: HttpRequest, queryset: QuerySet[ErasureRequest]) -> None:
        n = 0
        for item in queryset.exclude(status="completed"):
            erasure_enqueue(request=item)
            n += 1
        self.message_user(request, f"{n} erasure(s) started; refresh to follow their status.")


@admin.register(LegalHold)
class LegalHoldAdmin(ComplianceOnlyAdmin):
    list_display = ("id", "user", "placed_by", "placed_at", "lifted_at")
    list_filter = (("lifted_at", admin.EmptyFieldListFilter),)
    list_select_related = ("user", "placed_by")
    raw_id_fields = ("user",)
    fields = ("user", "reason", "placed_by", "placed_at", "lifted_at")
    readonly_fields = ("placed_by", "placed_at", "lifted_at")
    actions = ["lift"]

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return self.fields if obj else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: LegalHold, form, change: bool) -> None:
        hold = legal_hold_place(user=obj.user, reason=obj.reason, actor=signed_in(request.user))
        obj.pk = hold.pk
        obj._state.adding = False

    @admin.action(description="Lift the selected holds")
    def lift(self, request: HttpRequest, queryset: QuerySet[LegalHold]) -> None:
        for hold in queryset.filter(lifted_at__isnull=True):
            legal_hold_lift(hold=hold, actor=signed_in(request.user))
        self.message_user(request, "Holds lifted; waiting erasures were started.")


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ComplianceOnlyAdmin):
    list_display = ("request", "sha256", "created_at", "readable_link")
    fields = ("request", "readable_link", "sha256", "created_at", "body")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="Readable receipt")
    def readable_link(self, obj: ErasureReceipt) -> str:
        url = reverse("admin:governance_erasurereceipt_readable", args=[obj.pk])
        return format_html('<a href="{}">Read, print or download</a>', url)

    def get_urls(self):
        readable = self.admin_site.admin_view(self.readable_view)
        own = [path("<int:receipt_id>/readable/", readable, name="governance_erasurereceipt_readable")]
        return own + super().get_urls()

    def readable_view(self, request: HttpRequest, receipt_id: int) -> HttpResponse:
        """The receipt as a page: plain words for the person, store names for the officer;
        ``?download=html`` or ``?download=json`` (the signed body, as hashed)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        receipt = get_object_or_404(ErasureReceipt, pk=receipt_id)
        download = request.GET.get("download", "")
        if download == "json":
            response = HttpResponse(receipt_canonical(receipt.body), content_type="application/json")
            response["Content-Disposition"] = f'attachment; filename="erasure-receipt-{receipt.request_id}.json"'
            return response
        context = {
            **self.admin_site.each_context(request),
            "title": "Erasure receipt",
            "receipt": receipt,
            "body": receipt.body,
            "readable": receipt_readable(receipt.body),
            "intact": receipt_is_intact(receipt),
        }
        response = TemplateResponse(request, "admin/governance/erasure_receipt.html", context)
        if download == "html":
            response["Content-Disposition"] = f'attachment; filename="erasure-receipt-{receipt.request_id}.html"'
        return response


# --- end of erasure and legal holds ------------------------------------------------


# --- retention and purge -------------------------------------------------------------


class RetentionPolicyForm(forms.ModelForm):
    # The core's model stores a kind as plain text; the admin offers the memory kinds.
    memory_kind = forms.ChoiceField(choices=[("", "---------"), *MemoryKind.choices], required=False)

    class Meta:
        model = RetentionPolicy
        fields = ("scope", "memory_kind", "lifetime_days")


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(admin.ModelAdmin):
    form = RetentionPolicyForm
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
