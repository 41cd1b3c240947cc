"""What goes when a thread, a run or a memory goes: the plan, read from the map.

One engine for every deletion of personal data: a thread deleted by its owner, the
retention purge (threads, runs, memories), the erasure's deletions. ``deletion_plan``
reads the declared keys (``<app>/personal_data.py``) to the parent that goes and, per
event, what each row does: goes with it (and, if it is a parent itself, what hangs
under it first), loses the pointer, or loses it saying its source expired. A store
with an audit to write (memories) is handed the ids and deletes them with what hangs
under them itself (``Store.delete_with``). The plan is a list of steps run in order;
a dry run is the same steps in a transaction that is rolled back, so it counts what
the execution would, by construction.

Rows are picked by subqueries of the parent's rows, which still exist when a step runs
(what hangs under a row goes before it); the deletions are plain DELETEs, because
Django's collector would load every message into memory to emulate cascades. Foreign
keys are checked at commit: run a plan inside a transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F, QuerySet, TextField
from django.db.models.functions import Cast, Coalesce

from liamemory.personal_data import Event, Key, OnParent, Parent, Store
from usecases.personal_data import PARENT_MODELS, STORES, store_model

Ids = Sequence[Any] | QuerySet

# The model of each parent, the other way round.
_PARENT_OF = {label: parent for parent, label in PARENT_MODELS.items()}
# What a deletion (not an erasure of a person) does nothing to: audit rows stay as they
# are, or change only when the person is erased (usecases/erasure_execution.py).
_LEFT_ALONE = {OnParent.KEEP, OnParent.SCRUB_HISTORY, OnParent.PSEUDONYMIZE}


def _place(store: Store) -> str:
    return store.model or store.table


@dataclass(frozen=True)
class Step:
    """One statement of a plan: ``action`` on the rows of ``store`` whose ``key`` is in
    ``ids`` (``key`` None: the rows whose own id is)."""

    store: Store
    key: Key | None
    action: OnParent
    ids: Ids
    # The count's name, when the step is counted (deletions are, by their store's name).
    counted_as: str = ""

    def rows(self) -> QuerySet:
        model = store_model(self.store)
        assert model is not None
        if self.key is None:
            return model._default_manager.filter(pk__in=self.ids)
        field = model._meta.get_field(self.key.field)
        lookup = "pk" if getattr(field, "primary_key", False) else getattr(field, "attname", self.key.field)
        rows = model._default_manager.filter(**{f"{lookup}__in": self.ids})
        if self.store.model == _parent_label(self.key.parent):
            # A pointer between rows of one store (a retry of a run): the rows that go
            # themselves are not updated.
            rows = rows.exclude(pk__in=self.ids)
        return rows

    def run(self, *, event: Event, actor: User | None, reason: str) -> dict[str, int]:
        if self.action is OnParent.DELETE and self.store.delete_with is not None:
            if self.store.model:
                ids = list(self.rows().values_list("pk", flat=True))
            else:
                ids = list(self.ids.values_list("pk", flat=True)) if isinstance(self.ids, QuerySet) else list(self.ids)
            return self.store.delete_with(ids=ids, event=event, actor=actor, reason=reason)
        if self.store.table:
            return {self.store.name: _delete_from_table(self.store.table, self._column(), self.ids)}
        rows = self.rows()
        if self.action is OnParent.DELETE:
            return {self.store.name: rows._raw_delete(rows.db)}
        assert self.key is not None
        changes: dict[str, Any] = {self.key.field: None}
        if self.action is OnParent.DETACH:
            changes[self.key.flag] = True
            if self.key.ref:
                # The id as a plain value: read before the same UPDATE clears the pointer.
                attname = getattr(rows.model._meta.get_field(self.key.field), "attname", self.key.field)
                changes[self.key.ref] = Coalesce(F(self.key.ref), F(attname))
        updated = rows.update(**changes)
        return {self.counted_as: updated} if self.counted_as else {}

    def _column(self) -> str:
        assert self.key is not None
        return self.key.field


def _parent_label(parent: Parent) -> str:
    return PARENT_MODELS.get(parent, "")


def _delete_from_table(table: str, column: str, ids: Ids) -> int:
    """A store without a model (the checkpointer's tables) keys its rows by the text of the id."""
    with connection.cursor() as cur:
        if isinstance(ids, QuerySet):
            sql, params = ids.annotate(_text_id=Cast("pk", TextField())).values("_text_id").query.sql_with_params()
            cur.execute(f"DELETE FROM {table} WHERE {column} IN ({sql})", params)
        else:
            cur.execute(f"DELETE FROM {table} WHERE {column} = ANY(%s)", [[str(i) for i in ids]])
        return cur.rowcount


@dataclass(frozen=True)
class Plan:
    event: Event
    parent: Parent
    steps: tuple[Step, ...]

    def execute(self, *, actor: User | None = None, reason: str = "") -> dict[str, int]:
        """Run every step in order; counts per store. Call inside a transaction."""
        counts: Counter[str] = Counter()
        for step in self.steps:
            counts.update(step.run(event=self.event, actor=actor, reason=reason))
        return dict(counts)

    def preview(self) -> dict[str, int]:
        """What ``execute`` would count now: the same steps, rolled back."""
        with transaction.atomic():
            counts = self.execute()
            transaction.set_rollback(True)
        return counts


def deletion_plan(*, event: Event, parent: Parent, ids: Ids) -> Plan:
    """The steps that remove these threads, runs or memories (``parent``) with what
    hangs under them, as ``event`` says, in an order that keeps every subquery valid."""
    label = _parent_label(parent)
    root = next(store for store in STORES if store.model == label)
    steps: list[Step] = []
    if root.delete_with is None:
        _visit(event=event, parent=parent, ids=ids, root=parent, going=set(), steps=steps)
    steps.append(Step(root, None, OnParent.DELETE, ids))
    return Plan(event=event, parent=parent, steps=tuple(steps))


def _visit(*, event: Event, parent: Parent, ids: Ids, root: Parent, going: set[str], steps: list[Step]) -> None:
    """Add the steps for the rows keyed to ``parent`` (ids ``ids``), depth first."""
    keyed = [(store, key, key.action(event)) for store in STORES for key in store.keys if key.parent is parent]
    # A row goes before what it points at (a message's vector before the message: some
    # of those keys also cascade in the database, and the row would go uncounted), so
    # the rows nothing hangs under come first, then the parents in declared order.
    keyed.sort(key=lambda item: item[0].model in _PARENT_OF)
    # A store that goes whole with an ancestor (messages with their thread) is not
    # visited again below it: what hangs under a thread hangs under it whole.
    above = set(going)
    going |= {_place(s) for s, _, action in keyed if action is OnParent.DELETE and s.delete_with is None}
    for store, key, action in keyed:
        own = store.model == _parent_label(parent)
        if action in _LEFT_ALONE or store.goes_with or _place(store) in above or (own and action is OnParent.DELETE):
            # (A row pointing at a row of its own store that goes, a correction of a
            # message, is in the same thread and goes with it.)
            continue
        if action is OnParent.DELETE and store.delete_with is None and store.model in _PARENT_OF:
            child = Step(store, key, action, ids)
            _visit(
                event=event,
                parent=_PARENT_OF[store.model],
                ids=child.rows().values("pk"),
                root=root,
                going=going,
                steps=steps,
            )
        counted = f"{store.name}_source_expired" if action is OnParent.DETACH and key.ref and parent is root else ""
        steps.append(Step(store, key, action, ids, counted_as=counted))
