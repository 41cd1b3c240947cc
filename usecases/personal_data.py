"""The one map of personal data, read: every app's declared stores and what follows.

The declarations are each app's ``personal_data.STORES`` (types in
``liamemory/personal_data.py``). Read here: the rows of a person in every store (the
erasure's verification tells the person's words from other people's with them), the
tables whose planner statistics an erasure rebuilds, and the list a test holds every
model against.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db.models import Field, Model, Q, QuerySet, TextField
from django.db.models.functions import Cast

from agents import personal_data as agents_data
from conversations import personal_data as conversations_data
from governance import personal_data as governance_data
from liamemory.personal_data import FRAMEWORK_STORES, Event, Key, OnParent, Parent, Store
from memories import personal_data as memories_data

STORES: tuple[Store, ...] = (
    *FRAMEWORK_STORES,
    *conversations_data.STORES,
    *memories_data.STORES,
    *agents_data.STORES,
    *governance_data.STORES,
)

# The model each parent is; the order resolves each from the ones before it.
PARENT_MODELS: dict[Parent, str] = {
    Parent.PERSON: settings.AUTH_USER_MODEL,
    Parent.THREAD: "conversations.Thread",
    Parent.RUN: "agents.Run",
    Parent.MESSAGE: "conversations.Message",
    Parent.MEMORY: "memories.Memory",
}
# The row stays someone else's (or stays whole) under these: not the person's to erase.
_ROW_GOES = {OnParent.DELETE, OnParent.SCRUB_HISTORY, OnParent.KEEP}


def store_model(store: Store) -> type[Model] | None:
    return apps.get_model(store.model) if store.model else None


def store_tables() -> list[str]:
    """Every declared table: the ones an erasure's statistics rebuild covers."""
    tables = {store.table or apps.get_model(store.model)._meta.db_table for store in STORES}
    return sorted(tables)


def _field(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{model._meta.label}.{name} is not a column"
    return field


def _filterable(model: type[Model], key: Key) -> bool:
    field = _field(model, key.field)
    return bool(field.is_relation or field.primary_key or field.get_internal_type() == "UUIDField")


def _parent_ids(user_id: int) -> dict[Parent, QuerySet]:
    """The ids of the person's threads, runs, messages and memories, as subqueries,
    each found through the declared keys of its own store."""
    found: dict[Parent, QuerySet] = {}
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    found[Parent.PERSON] = user_model.objects.filter(pk=user_id).values("pk")
    for parent, label in PARENT_MODELS.items():
        if parent is Parent.PERSON:
            continue
        model = apps.get_model(label)
        q = Q()
        for store in STORES:
            if store.model != label:
                continue
            for key in store.keys:
                target = PARENT_MODELS.get(key.parent)
                if key.action(Event.ERASE) is OnParent.DELETE and key.parent in found and target != label:
                    q |= Q(**{f"{_field(model, key.field).attname}__in": found[key.parent]})
        found[parent] = model.objects.filter(q).values("pk") if q else model.objects.none().values("pk")
    return found


def _any_object(parents: dict[Parent, QuerySet], *, id_field: str, content_type: str | None) -> Q:
    q = Q()
    for parent, label in PARENT_MODELS.items():
        # A subquery, not a list: a person with 10,000 messages made a 10,000-value IN
        # list that took longer to send and plan than the scan it served.
        ids = parents[parent].values(as_text=Cast("pk", output_field=TextField()))
        where: dict[str, Any] = {f"{id_field}__in": ids}
        if content_type:
            where[content_type] = ContentType.objects.get_for_model(apps.get_model(label))
        q |= Q(**where)
    return q


def _self_reference(model: type[Model], store: Store, key: Key) -> bool:
    """A key to the store's own model (a correction of a message) reaches rows the other
    keys already found: the same thread, the same person. The account's own id is not one."""
    return PARENT_MODELS.get(key.parent) == store.model and not _field(model, key.field).primary_key


def _key_filter(model: type[Model], store: Store, key: Key, parents: dict[Parent, QuerySet]) -> tuple[Q, OnParent]:
    """The rows of ``store`` that ``key`` ties to the person (an empty Q: none it can
    read), and what an erasure does to them."""
    action = key.action(Event.ERASE)
    if action is OnParent.UNLINK or _self_reference(model, store, key):
        return Q(), action
    if key.parent is Parent.ANY_OBJECT:
        ct = "content_type" if any(f.name == "content_type" for f in model._meta.get_fields()) else None
        return _any_object(parents, id_field=key.field, content_type=ct), action
    if not _filterable(model, key):
        return Q(), action
    field = _field(model, key.field)
    lookup = "pk" if field.primary_key else field.attname
    return Q(**{f"{lookup}__in": parents[key.parent]}), action


def person_rows(*, user_id: int) -> Iterator[tuple[type[Model], QuerySet, tuple[str, ...] | None]]:
    """(model, the person's rows, the columns emptied there or None for the whole row),
    per declared key that reaches the person. Rows that only point at the person's data
    (``unlink``) stay someone else's. Stores without a model and keys a query cannot
    read (a session's signed data) are left out."""
    parents = _parent_ids(user_id)
    for store in STORES:
        model = store_model(store)
        if model is None:
            continue
        for key in store.keys:
            q, action = _key_filter(model, store, key, parents)
            if not q:
                continue
            columns = None if action in _ROW_GOES else key.scrubs
            yield model, model._default_manager.filter(q), columns


def person_store_rows(*, user_id: int, names: Collection[str]) -> dict[str, QuerySet]:
    """Per named store (with a model), the person's rows: the rows an erasure takes
    whole, found through the declared keys (a store reached by several: their union;
    one whose keys no query can read: its ``find_with``), narrowed by its ``only``.
    Querysets, unevaluated: a reader reads each in one query."""
    parents = _parent_ids(user_id)
    found: dict[str, QuerySet] = {}
    for store in STORES:
        model = store_model(store)
        if model is None or store.name not in names:
            continue
        assert store.name not in found, f"two stores named {store.name}"
        if store.find_with is not None:
            found[store.name] = store.find_with(user_id)
            continue
        q = Q()
        for key in store.keys:
            key_q, action = _key_filter(model, store, key, parents)
            if key_q and action in _ROW_GOES:
                q |= key_q
        rows = model._default_manager.filter(q) if q else model._default_manager.none()
        found[store.name] = rows.filter(**dict(store.only))
    return found


def person_key_rows(*, user_id: int, store: Store, actions: Collection[OnParent]) -> list[tuple[Key, Q]]:
    """The declared keys of ``store`` whose erasure action is one of ``actions`` and that
    reach the person, each with the filter of the rows it ties to them."""
    model = store_model(store)
    assert model is not None, store.name
    parents = _parent_ids(user_id)
    found = []
    for key in store.keys:
        q, action = _key_filter(model, store, key, parents)
        if q and action in actions:
            found.append((key, q))
    return found


def exported_rows(*, user_id: int) -> dict[str, QuerySet]:
    """Per exported store, the person's rows: what the erasure would delete is what
    the export carries."""
    return person_store_rows(user_id=user_id, names={store.name for store in STORES if store.exported})


def declared_keys() -> dict[str, set[str]]:
    """Per model label (or table), the fields declared as keys."""
    keys: dict[str, set[str]] = {}
    for store in STORES:
        keys.setdefault(store.model or store.table, set()).update(k.field for k in store.keys)
    return keys


def describe(store_name: str) -> dict[str, Any]:
    """The plain words and the technical place of a store, for the receipt."""
    for store in STORES:
        if store.name == store_name:
            return {"name": store.name, "description": store.description, "where": store.model or store.table}
    return {"name": store_name, "description": "", "where": ""}
