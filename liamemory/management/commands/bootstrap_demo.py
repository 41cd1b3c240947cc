"""Create the demo accounts (staff, compliance officer, end user), printing their passwords once."""

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from liamemory.roles import COMPLIANCE_GROUP

# username, staff, compliance officer, what the account is for
DEMO_ACCOUNTS = (
    ("admin", True, False, "staff"),
    ("compliance", True, True, "compliance officer: erasure requests, exports"),
    ("demo", False, False, "end user"),
)


class Command(BaseCommand):
    help = "Create demo accounts (staff 'admin', 'compliance', end user 'demo') with random passwords, printed once."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        for username, is_staff, is_compliance, role in DEMO_ACCOUNTS:
            if User.objects.filter(username=username).exists():
                self.stdout.write(
                    f"  {username}: exists (reset with: .venv/bin/python manage.py changepassword {username})"
                )
                continue
            password = secrets.token_urlsafe(12)
            # The compliance officer is staff (admin access) but not superuser: its powers
            # come from the group, as a real compliance officer's would.
            superuser = is_staff and not is_compliance
            user = User.objects.create_user(
                username=username, password=password, is_staff=is_staff, is_superuser=superuser
            )
            if is_compliance:
                user.groups.add(Group.objects.get(name=COMPLIANCE_GROUP))
            self.stdout.write(self.style.SUCCESS(f"  {username} / {password}  ({role})"))
