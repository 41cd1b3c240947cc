"""The user list: each person links to their per-person page (everything stored about them),
and deleting a person leads to an erasure request."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse

from liamemory.admin_utils import person_link

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class PersonUserAdmin(UserAdmin):
    # Django's ``UserAdmin.list_display``, then the link to what is stored about the person.
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "stored_data")

    @admin.display(description="stored data")
    def stored_data(self, obj) -> str:
        return person_link(obj.pk, "everything stored")

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # people are removed one by one, by erasure
        return actions

    def delete_view(self, request: HttpRequest, object_id: str, extra_context=None) -> HttpResponseRedirect:
        """A person goes through an erasure request, never a plain delete.

        The cascade would stop at the view-only thread and run admins and would leave
        checkpoints, audit content and sessions behind without a receipt; the erasure
        removes all of it, verifies, and can delete the account too.
        """
        messages.info(
            request,
            "A person is removed by an erasure request (compliance officers): "
            "everything they stored goes, with a receipt.",
        )
        return HttpResponseRedirect(f"{reverse('admin:governance_erasurerequest_add')}?subject={object_id}")
