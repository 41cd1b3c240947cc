"""Create the demo staff account and demo end user, printing their passwords once."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create demo accounts (staff 'admin', end user 'demo') with random passwords, printed once."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        for username, is_staff in (("admin", True), ("demo", False)):
            if User.objects.filter(username=username).exists():
                self.stdout.write(
                    f"  {username}: exists (reset with: .venv/bin/python manage.py changepassword {username})"
                )
                continue
            password = secrets.token_urlsafe(12)
            User.objects.create_user(username=username, password=password, is_staff=is_staff, is_superuser=is_staff)
            self.stdout.write(self.style.SUCCESS(f"  {username} / {password}  ({'staff' if is_staff else 'end user'})"))
