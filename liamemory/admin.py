"""The user list links each person to their per-person page (everything stored about them)."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from liamemory.admin_utils import person_link

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class PersonUserAdmin(UserAdmin):
    list_display = (*UserAdmin.list_display, "stored_data")

    @admin.display(description="stored data")
    def stored_data(self, obj) -> str:
        return person_link(obj.pk, "everything stored")
