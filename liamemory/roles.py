"""The three roles of docs/design.md: end users, staff, compliance officers."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

COMPLIANCE_GROUP = "compliance_officer"


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a view behind ``login_required``: its user is a signed-in ``User``.

    For the type checker only (the object is Django's ``HttpRequest``); a view whose
    signature a base class fixes (the admin's) asks ``signed_in`` instead.
    """

    user: User


def signed_in(user: AbstractBaseUser | AnonymousUser) -> User:
    """``user`` as the signed-in person a view's permission already required (else 403)."""
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied
    return user


def is_staff(user: AbstractBaseUser | AnonymousUser) -> bool:
    return isinstance(user, User) and bool(user.is_authenticated and user.is_active and user.is_staff)


def is_compliance_officer(user: AbstractBaseUser | AnonymousUser) -> bool:
    if not isinstance(user, User) or not (user.is_authenticated and user.is_active):
        return False
    # Cached on the user object: admin asks several times per request.
    cached: bool | None = getattr(user, "_is_compliance_officer", None)
    if cached is None:
        cached = user.groups.filter(name=COMPLIANCE_GROUP).exists()
        user._is_compliance_officer = cached  # type: ignore[attr-defined]
    return cached
