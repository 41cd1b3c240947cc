"""What an erasure does to a person's data, step by step: read from the map of personal data.

Every step follows the declared keys to the person (``<app>/personal_data.py``), so a
store added to an app's declarations is erased, counted and dry-run with no edit here:

1. rows found through any object of the person (the admin log names a thread, a run, a
   memory by id): first, while those objects still exist to be found;
2. the person's threads, runs and memories, each with what hangs under it
   (``deletion_plan``), in the order their keys give: a store whose rows go with another
   parent (a run with its thread) after it, one that is only unlinked from it (a memory
   drawn from a thread) before it, so nothing is updated that is about to go;
3. audit rows about the person kept as tombstones (``scrub_history``: the app's own
   ``scrub_with``);
4. the person's rows nothing hangs under (``delete``; a store's ``only`` narrows them,
   its ``find_with`` finds them where no key can be queried);
5. other records that name the person (``pseudonymize``): the person's columns emptied
   or given the pseudonym, counted under the key's ``counted_as``;
6. the account, last (``erasure_execution._finish``, with the scan and the receipt).

A step works in batches: ``next_ids`` picks the next rows, ``apply`` removes or empties
them, after which no key finds them again. Keys to any object are followed only for
rows that go whole: a row that stays names its subject too, and the subject's key
empties the ids with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Case, F, Field, Model, Q, QuerySet, Value, When

from liamemory.personal_data import Event, Key, OnParent, Parent, Store
from usecases import personal_data
from usecases.personal_data import PARENT_MODELS, person_key_rows, person_store_rows, store_model
from usecases.personal_data_plan import deletion_plan
from usecases.thread_deletion import threads_delete

_PARENT_OF = {label: parent for parent, label in PARENT_MODELS.items()}
# The account: what every other row points at, deleted last with the scan.
ACCOUNT = "account"


@dataclass(frozen=True)
class Subject:
    """The person being erased: their id and the receipt's pseudonym of it."""

    user_id: int
    ref: str


@dataclass(frozen=True)
class ErasureStep:
    """One kind of change to one store's rows of the person, applied in batches."""

    store: Store
    action: OnParent
    # PSEUDONYMIZE: the keys whose columns this step empties.
    keys: tuple[Key, ...] = ()
    # The counts the step reports (a parent's deletion: every store its plan reaches).
    counted: tuple[str, ...] = ()

    def rows(self, subject: Subject) -> QuerySet:
        if self.action is OnParent.PSEUDONYMIZE:
            q, kept, _ = self._pseudonymized(subject)
            rows = self._model()._default_manager.filter(q)
            return rows.exclude(kept) if kept else rows
        if self.action is OnParent.SCRUB_HISTORY:
            q = Q()
            for _, key_q in person_key_rows(user_id=subject.user_id, store=self.store, actions={self.action}):
                q |= key_q
            return self._model()._default_manager.filter(q)
        return person_store_rows(user_id=subject.user_id, names=(self.store.name,))[self.store.name]

    def next_ids(self, subject: Subject, size: int) -> list[Any]:
        return list(self.rows(subject).order_by("pk").values_list("pk", flat=True)[:size])

    def apply(self, subject: Subject, ids: list[Any]) -> dict[str, int]:
        """Remove or empty these rows (call inside the batch's transaction); counts."""
        if self.action is OnParent.SCRUB_HISTORY:
            assert self.store.scrub_with is not None, f"{self.store.name}: declare scrub_with"
            return {self.store.name: self.store.scrub_with(ids=ids)}
        if self.action is OnParent.PSEUDONYMIZE:
            return {self.counted[0]: self._pseudonymize(subject, ids)}
        parent = _PARENT_OF.get(self.store.model)
        if parent is Parent.THREAD:
            # Its runs locked first: a run still writing waits, then finds its thread gone.
            return threads_delete(thread_ids=ids, event=Event.ERASE)
        if parent is not None:
            return deletion_plan(event=Event.ERASE, parent=parent, ids=ids).execute()
        return {self.store.name: self._model()._default_manager.filter(pk__in=ids).delete()[0]}

    def _model(self) -> type[Model]:
        model = store_model(self.store)
        assert model is not None, f"{self.store.name}: a person's rows live in a model"
        return model

    def _pseudonymized(self, subject: Subject) -> tuple[Q, Q, list[tuple[Key, Q]]]:
        """The rows this step empties: those its keys tie to the person, less those the
        store's other keys take whole or keep as the erasure's own record (a request the
        person filed about themselves). (rows, rows left out, each key's filter.)"""
        keyed = [
            (key, q)
            for key, q in person_key_rows(user_id=subject.user_id, store=self.store, actions={self.action})
            if key in self.keys
        ]
        q, kept = Q(), Q()
        for _, key_q in keyed:
            q |= key_q
        for key, key_q in person_key_rows(
            user_id=subject.user_id, store=self.store, actions={OnParent.DELETE, OnParent.KEEP}
        ):
            if key.parent is Parent.PERSON:
                kept |= key_q
        return q, kept, keyed

    def _pseudonymize(self, subject: Subject, ids: list[Any]) -> int:
        model = self._model()
        _, _, keyed = self._pseudonymized(subject)
        whens: dict[str, list[When]] = {}
        for key, key_q in keyed:
            for column in key.scrubs:
                blank = None if _column(model, column).null else ""
                whens.setdefault(column, []).append(When(key_q, then=Value(blank)))
            for column, template in key.pseudonym:
                whens.setdefault(column, []).append(When(key_q, then=Value(template.format(ref=subject.ref))))
        changes = {
            column: Case(*cases, default=F(column), output_field=_column(model, column))
            for column, cases in whens.items()
        }
        return model._default_manager.filter(pk__in=ids).update(**changes)


def _column(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{model._meta.label}.{name} is not a column"
    return field


def _person_keys(store: Store, action: OnParent) -> tuple[Key, ...]:
    return tuple(k for k in store.keys if k.parent is Parent.PERSON and k.action(Event.ERASE) is action)


def _reached(store: Store, stores: tuple[Store, ...]) -> list[str]:
    """The stores a parent's erasure plan can count: what hangs under it, depth first."""
    names = [store.name]
    names += [s.name for s in stores if s.goes_with == store.name]
    parent = _PARENT_OF.get(store.model)
    if parent is None:
        return names
    for child in stores:
        if child is store or child.model == store.model:
            continue
        actions = {k.action(Event.ERASE) for k in child.keys if k.parent is parent}
        if actions & {OnParent.DELETE, OnParent.SCRUB_HISTORY}:
            names += _reached(child, stores) if OnParent.DELETE in actions else [child.name]
    return names


def _parents_in_order(parents: list[Store]) -> list[Store]:
    """Threads, runs, memories ordered by their keys to each other: after a parent they go
    with, before one they are only unlinked from (declared order breaks ties)."""
    models = {_PARENT_OF[s.model]: s for s in parents}
    after: dict[str, set[str]] = {s.name: set() for s in parents}
    for store in parents:
        for key in store.keys:
            other = models.get(key.parent)
            if other is None or other is store:
                continue
            if key.action(Event.ERASE) is OnParent.DELETE:
                after[store.name].add(other.name)
            else:
                after[other.name].add(store.name)
    ordered: list[Store] = []
    while len(ordered) < len(parents):
        ready = [s for s in parents if s not in ordered and after[s.name] <= {o.name for o in ordered}]
        assert ready, "the parents' keys go round in a circle"
        ordered.append(ready[0])
    return ordered


def erasure_steps() -> tuple[ErasureStep, ...]:
    """Every step of a person's erasure but the account's, in order, from the declarations."""
    stores = personal_data.STORES
    person_model = PARENT_MODELS[Parent.PERSON]
    erased = [s for s in stores if s.model and s.model != person_model and not s.goes_with]
    by_object, parents, scrubbed, leaves, named = [], [], [], [], []
    for store in erased:
        deletes = _person_keys(store, OnParent.DELETE)
        if any(k.parent is Parent.ANY_OBJECT and k.action(Event.ERASE) is OnParent.DELETE for k in store.keys):
            by_object.append(ErasureStep(store, OnParent.DELETE, counted=(store.name,)))
        if deletes and store.model in _PARENT_OF:
            parents.append(store)
        elif deletes or store.find_with is not None:
            leaves.append(ErasureStep(store, OnParent.DELETE, counted=(store.name,)))
        if _person_keys(store, OnParent.SCRUB_HISTORY):
            scrubbed.append(ErasureStep(store, OnParent.SCRUB_HISTORY, counted=(store.name,)))
        pseudonymized = _person_keys(store, OnParent.PSEUDONYMIZE)
        for counted in dict.fromkeys(k.counted_as or store.name for k in pseudonymized):
            keys = tuple(k for k in pseudonymized if (k.counted_as or store.name) == counted)
            named.append(ErasureStep(store, OnParent.PSEUDONYMIZE, keys=keys, counted=(counted,)))
    deleted = [
        ErasureStep(store, OnParent.DELETE, counted=tuple(dict.fromkeys(_reached(store, stores))))
        for store in _parents_in_order(parents)
    ]
    return (*by_object, *deleted, *scrubbed, *leaves, *named)


def erasure_counts() -> tuple[str, ...]:
    """The counts an erasure reports, in the order it takes them, the account last: its
    dry run, its progress and its receipt carry exactly these."""
    return (*dict.fromkeys(name for step in erasure_steps() for name in step.counted), ACCOUNT)
