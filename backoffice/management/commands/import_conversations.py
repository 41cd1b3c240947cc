"""``manage.py import_conversations FILE --owner USERNAME``: load conversations in the export format."""

from __future__ import annotations

import json
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from liamemory.errors import ApplicationError
from usecases.importer import export_import


class Command(BaseCommand):
    help = (
        "Import threads, messages and summaries from a liamemory.export JSON document (docs/export.schema.json) "
        "as the conversations of --owner. Idempotent; a bad file changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the JSON document, or - for standard input")
        parser.add_argument("--owner", required=True, help="username of the account the conversations go to")
        parser.add_argument("--dry-run", action="store_true", help="check and count, then roll back")

    def handle(self, *args, file: str, owner: str, dry_run: bool, **options) -> None:
        user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: owner}).first()
        if user is None:
            raise CommandError(f"No user named {owner!r}: create the account first, then import.")
        try:
            if file == "-":
                document = json.load(sys.stdin)
            else:
                with open(file, encoding="utf-8") as handle:
                    document = json.load(handle)
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}.") from exc
        except json.JSONDecodeError as exc:
            raise CommandError(f"{file} is not JSON: {exc}. Nothing was imported.") from exc
        except RecursionError as exc:
            raise CommandError(f"{file} is nested too deeply to be an export document. Nothing was imported.") from exc
        try:
            result = export_import(document=document, owner=user, dry_run=dry_run)
        except ApplicationError as exc:
            details = "".join(f"\n  {e['path']}: {e['message']}" for e in exc.extra.get("errors", []))
            raise CommandError(exc.message + details) from exc
        counts = ", ".join(f"{name.replace('_', ' ')}: {n}" for name, n in result.as_dict().items())
        self.stdout.write(f"{'Dry run, nothing kept. ' if dry_run else ''}Imported for {owner}: {counts}")
