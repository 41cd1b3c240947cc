"""The benchmarks' generated data sets: built once, kept across migrations that only add to them.

What the person running the benchmarks notices: a data set whose vectors took 20 minutes to
make is not rebuilt because a migration added a nullable column; it is brought up to the
tables in place, filled as the migration filled the product's own.
"""

from __future__ import annotations

import pytest
from django.db import connection

from bench import scale_data
from conversations.models import MessageEmbedding
from liamemory import embeddings

pytestmark = pytest.mark.django_db(transaction=True)

SPEC = scale_data.Spec(
    "bench_test_upgrade", main_threads=(30,), tables=("conversations_thread", "conversations_message")
)


@pytest.fixture
def data_set(settings):
    settings.HISTORY_SEARCH_EMBEDDINGS = "on"
    yield SPEC
    with connection.cursor() as cur:
        cur.execute(f"DROP SCHEMA IF EXISTS {SPEC.name} CASCADE")


def _rows():
    with scale_data.using(SPEC.name):
        # When each was written: a rebuild writes them again (the same ids and texts).
        written = sorted(MessageEmbedding.objects.values_list("message_id", "created_at"))
        copies = dict(MessageEmbedding.objects.values_list("message_id", "vector_int8"))
        vectors = dict(MessageEmbedding.objects.values_list("message_id", "vector"))
    return written, copies, vectors


def _as_built_before(data_set, statement: str) -> None:
    """The data set as an older schema left it: ``statement`` undoes a migration, and its marker
    holds the fingerprint of those tables, as if built then."""
    with connection.cursor() as cur:
        cur.execute(statement)
        cur.execute(
            f"UPDATE {data_set.name}.bench_marker SET fingerprint = %s",
            [scale_data._fingerprint(data_set, schema=data_set.name)],
        )


def test_a_data_set_built_before_the_int8_copies_gets_them_in_place_not_rebuilt(data_set):
    assert scale_data.ensure(data_set) > 0 and scale_data.current(data_set)
    written, _, vectors = _rows()
    assert len(written) == 30 and len(vectors) == 30
    # As it was built before migration 0010: no column, its fingerprint of those tables.
    _as_built_before(data_set, f"ALTER TABLE {data_set.name}.conversations_messageembedding DROP COLUMN vector_int8")
    assert not scale_data.current(data_set)

    scale_data.ensure(data_set)

    assert scale_data.current(data_set)
    same, copies, same_vectors = _rows()
    assert same == written and same_vectors == vectors  # the same rows, not generated again
    assert {i: bytes(c) for i, c in copies.items()} == {
        i: embeddings.to_int8_bytes(embeddings.from_bytes([bytes(v)])[0]) for i, v in vectors.items()
    }


def _indexes(schema: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT indexname FROM pg_indexes WHERE schemaname = %s", [schema])
        return {name for (name,) in cur.fetchall()}


def test_a_data_set_built_before_an_index_was_dropped_loses_it_in_place(data_set):
    """Else the benchmarks measure the plans of the index the product no longer has."""
    scale_data.ensure(data_set)
    written, _, _ = _rows()
    # As it was built before migration conversations.0011: the thread's own index, its fingerprint.
    _as_built_before(
        data_set,
        f'CREATE INDEX "conversations_message_thread_id_2e6e7032" ON {data_set.name}.conversations_message (thread_id)',
    )
    assert not scale_data.current(data_set)

    scale_data.ensure(data_set)

    assert scale_data.current(data_set)
    # Its copies' tables and indexes are the product's again.
    assert scale_data._fingerprint(data_set, schema=data_set.name) == scale_data._fingerprint(data_set)
    assert "conversations_message_thread_id_2e6e7032" not in _indexes(data_set.name)
    assert _rows()[0] == written  # the same rows, not generated again
