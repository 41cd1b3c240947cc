"""`make run`'s demo accounts: one per role, so every screen can be tried at once."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from liamemory.roles import is_compliance_officer


@pytest.mark.django_db
def test_demo_accounts_cover_every_role_and_print_passwords_once() -> None:
    out = StringIO()
    call_command("bootstrap_demo", stdout=out)
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["admin", "compliance", "demo"])}
    assert set(users) == {"admin", "compliance", "demo"}
    assert users["admin"].is_staff and not is_compliance_officer(users["admin"])
    assert users["compliance"].is_staff and not users["compliance"].is_superuser
    assert is_compliance_officer(users["compliance"])
    assert not users["demo"].is_staff and not is_compliance_officer(users["demo"])
    assert out.getvalue().count(" / ") == 3

    again = StringIO()
    call_command("bootstrap_demo", stdout=again)
    assert " / " not in again.getvalue()
    assert again.getvalue().count("exists") == 3
