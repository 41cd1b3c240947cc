"""The one map of personal data guards every model: a model that points at a person, a
thread, a run, a message or a memory and is not declared fails the build."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

from agents.checkpointer import CHECKPOINT_TABLES
from liamemory.personal_data import Key, OnParent, Parent, Store
from tests.usecases.people import person_with_data
from usecases import personal_data
from usecases.personal_data import PARENT_MODELS, STORES, declared_keys, person_rows, store_tables

PARENTS = {apps.get_model(label) for label in PARENT_MODELS.values()}
# Ids of a parent kept without a foreign key: no field type says so, the name does.
ID_COLUMNS = {
    ("memories.Memory", "source_thread_ref"),
    ("liamemory.StaffAccessLog", "object_ref"),
    ("memories.HistoricalMemory", "source_thread_ref"),
    ("admin.LogEntry", "object_id"),
}


def _undeclared() -> list[str]:
    declared = declared_keys()
    missing = []
    for model in apps.get_models(include_auto_created=True):
        if model._meta.proxy:
            continue
        label = model._meta.label
        for field in model._meta.get_fields():
            points = field.concrete and field.is_relation and field.related_model in PARENTS
            if (points or (label, field.name) in ID_COLUMNS) and field.name not in declared.get(label, set()):
                missing.append(f"{label}.{field.name}")
    for table in CHECKPOINT_TABLES:
        if table != "checkpoint_migrations" and "thread_id" not in declared.get(table, set()):
            missing.append(f"{table}.thread_id")
    return sorted(missing)


def test_every_model_that_points_at_personal_data_is_declared():
    assert _undeclared() == []


def test_a_new_model_pointing_at_a_thread_fails_the_declaration_test(monkeypatch):
    fewer = tuple(s for s in STORES if s.model != "conversations.ThreadSummary")
    monkeypatch.setattr(personal_data, "STORES", fewer)
    assert _undeclared() == ["conversations.ThreadSummary.thread"]


@pytest.mark.django_db
def test_every_declared_key_and_content_column_exists():
    for store in STORES:
        if store.model:
            model = apps.get_model(store.model)
            names = {f.name for f in model._meta.get_fields()} | {f.attname for f in model._meta.concrete_fields}
        else:
            with connection.cursor() as cur:
                cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s", [store.table])
                names = {row[0] for row in cur.fetchall()}
        scrubbed = (*(c for k in store.keys for c in k.scrubs), *(c for k in store.keys for c, _ in k.pseudonym))
        only = (lookup.split("__")[0] for lookup, _ in store.only)
        for column in (*(k.field for k in store.keys), *store.content, *scrubbed, *only):
            assert column in names, f"{store.name}: {column}"


def test_a_store_names_a_model_or_a_table():
    with pytest.raises(ValueError):
        Store("nowhere", keys=(Key("x", Parent.PERSON, OnParent.DELETE),))


def test_the_statistics_list_is_the_declared_tables_checkpoints_included():
    tables = store_tables()
    assert {"conversations_message", "memories_historicalmemory", "checkpoint_blobs", "auth_user"} <= set(tables)


@pytest.mark.django_db
def test_the_person_s_rows_are_theirs_and_never_another_person_s(alice, bob):

    person_with_data(alice)
    person_with_data(bob)
    seen = {}
    for model, rows, _ in person_rows(user_id=alice.pk):
        seen.setdefault(model._meta.label, 0)
        seen[model._meta.label] += rows.count()
        for field in ("owner_id", "user_id"):
            if any(f.attname == field for f in model._meta.concrete_fields):
                assert not rows.filter(**{field: bob.pk}).exists(), model._meta.label
    assert seen["conversations.Message"] > 0 and seen["memories.Memory"] > 0 and seen["agents.TraceEvent"] > 0
