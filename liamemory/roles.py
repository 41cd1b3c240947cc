"""The three roles of docs/design.md: end users, staff, compliance officers."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied

COMPLIANCE_GROUP = "compliance_officer"


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
