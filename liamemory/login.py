"""The sign-in page: staff land on the admin, everyone else on their conversations."""

from __future__ import annotations

from django.contrib.auth.views import LoginView
from django.urls import reverse


class SignInView(LoginView):
    """Django's LoginView; only the landing page without ``next`` differs for staff.

    Staff work in the admin (review queue, approvals, people); landing them on the chat
    page made every sign-in a detour. A ``next`` parameter still wins.
    """

    def get_default_redirect_url(self) -> str:
        if self.request.user.is_staff:
            return reverse("admin:index")
        return super().get_default_redirect_url()
