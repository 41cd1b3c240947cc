"""Celery tasks of the governance app. They take ids (or nothing) and call services."""

from __future__ import annotations

from celery import shared_task

from governance import services

# --- retention and purge (issue 5) ---------------------------------------------------


# Periodic (django-celery-beat, see migration 0002). Late ack is safe: overlapping or
# repeated purges delete nothing twice.
@shared_task(name="governance.purge_expired", acks_late=True, soft_time_limit=900, time_limit=960, ignore_result=True)
def purge_expired() -> dict[str, int]:
    """Delete what expired (threads, runs, memories and what lives with them)."""
    record = services.purge_expired()
    return {**record.counts, "skipped_held_users": record.skipped_held_users}


# --- end of retention and purge ---------------------------------------------------
