"""Every migration applies backward to zero and forward again on the server under test."""

import pytest
from django.core.management import call_command
from django.db import connection

PROJECT_APPS = ("memories", "conversations", "agents")


def _tables() -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {r[0] for r in cur.fetchall()}


def _has_extension(name: str) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_extension WHERE extname = %s", [name])
        return cur.fetchone() is not None


@pytest.mark.django_db(transaction=True)
def test_migrations_reverse_to_zero_and_reapply():
    assert {"conversations_message", "memories_memory", "agents_run", "checkpoints", "checkpoint_blobs"} <= _tables()
    assert _has_extension("pg_trgm")

    for app in PROJECT_APPS:
        call_command("migrate", app, "zero", verbosity=0)
    left = _tables()
    assert not {t for t in left if t.startswith(("conversations_", "memories_", "agents_", "checkpoint"))}
    assert not _has_extension("pg_trgm")

    call_command("migrate", verbosity=0)
    assert {"conversations_message", "memories_memory", "agents_run", "checkpoints"} <= _tables()
    assert _has_extension("pg_trgm")


@pytest.mark.django_db
def test_no_model_changes_without_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db
def test_trigram_indexes_exist():
    with connection.cursor() as cur:
        cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE %s", ["%trgm%"])
        found = {name: d for name, d in cur.fetchall()}
    assert "gin_trgm_ops" in found["message_text_trgm_idx"]
    assert "gin_trgm_ops" in found["memory_content_trgm_idx"]
