"""Registers the staff's admin pages (Django's admin imports each installed app's ``admin``)."""

from backoffice import governance, memories, people, runs  # noqa: F401  (their ModelAdmins register themselves)
