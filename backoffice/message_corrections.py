"""Staff correct a statement in anyone's conversation from the admin (the message admin links here).

It lives with the memories because a correction supersedes the memories drawn from the
statement (``usecases.message_correction``); the message admin (a lower app) only links to it
by URL name. Staff only; the view is logged like any staff view of a person's data.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from conversations.models import Message
from liamemory.errors import ApplicationError
from liamemory.models import StaffAccess
from liamemory.roles import is_staff, signed_in
from liamemory.staff_access import staff_access_record
from usecases.message_correction import statement_correct


class StatementCorrectionForm(forms.Form):
    right_value = forms.CharField(
        max_length=500, label="What is right instead", widget=forms.TextInput(attrs={"size": 80})
    )
    about = forms.CharField(
        max_length=100, required=False, label="About (optional)", help_text="e.g. “the order number”."
    )


def _correct_page(request: HttpRequest, message_id: int) -> HttpResponse:
    if not is_staff(request.user):
        raise PermissionDenied
    message = Message.objects.select_related("thread").filter(pk=message_id).first()
    if message is None:
        raise Http404("No such message.")
    form = StatementCorrectionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = statement_correct(
                actor=signed_in(request.user), message=message, by_staff=True, **form.cleaned_data
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            replaced = ", ".join(f"#{old.pk} → #{new.pk}" for old, new in outcome.memories) or "none"
            messages.success(
                request,
                f"Correction note #{outcome.note.sequence} added after message #{message.sequence}; "
                f"memories superseded: {replaced}.",
            )
            return HttpResponseRedirect(reverse("admin:conversations_message_change", args=[outcome.note.pk]))
    else:
        staff_access_record(
            viewer=signed_in(request.user),
            subject_id=message.thread.owner_id,
            what=StaffAccess.MESSAGE,
            object_ref=message.pk,
        )
    context = {
        **admin.site.each_context(request),
        "title": f"Correct message #{message.sequence}",
        "original": message,
        "form": form,
    }
    return TemplateResponse(request, "admin/conversations/message/correct.html", context)


urlpatterns = [
    path("<int:message_id>/correct/", admin.site.admin_view(_correct_page), name="admin-message-correct"),
]
