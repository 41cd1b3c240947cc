"""Stored vectors read back: float16 bytes to a matrix, exactly, whatever the dtype asked."""

from __future__ import annotations

import numpy as np

from liamemory import embeddings


def test_stored_vectors_read_back_exactly_and_a_damaged_one_as_zeros():
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((3, embeddings.DIM)).astype(np.float32)
    blobs = [embeddings.to_bytes(v) for v in vectors]
    halves = vectors.astype("<f2")

    as32 = embeddings.from_bytes(blobs)
    as64 = embeddings.from_bytes(blobs, dtype=np.float64)
    assert as32.dtype == np.float32 and as64.dtype == np.float64
    assert np.array_equal(as32, halves.astype(np.float32)) and np.array_equal(as64, halves.astype(np.float64))

    damaged = embeddings.from_bytes([blobs[0], blobs[1][:-2], blobs[2]], dtype=np.float64)
    assert np.array_equal(damaged[[0, 2]], as64[[0, 2]]) and not damaged[1].any()
    assert embeddings.from_bytes([]).shape == (0, embeddings.DIM)


def test_int8_copies_score_a_query_block_by_block_as_one_product_would():
    """The int8 pass's scores (``int8_products``, converted a block of rows at a time) are each
    copy's product with the query, for every row: across block edges and in a last, shorter block."""
    rng = np.random.default_rng(11)
    vectors = rng.uniform(-0.18, 0.18, (2 * embeddings.INT8_BLOCK + 37, embeddings.DIM)).astype(np.float32)
    query = rng.standard_normal(embeddings.DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    blob = b"".join(embeddings.to_int8_bytes(v) for v in vectors)

    scores = embeddings.int8_products(blob, query)

    whole = np.frombuffer(blob, dtype=np.int8).reshape(-1, embeddings.DIM).astype(np.float64) @ query.astype(np.float64)
    assert scores.shape == (len(vectors),) and scores.dtype == np.float32
    assert np.allclose(scores, whole, rtol=0, atol=1e-4)
    assert np.allclose(scores / embeddings.INT8_SCALE, vectors @ query, rtol=0, atol=0.005)
    assert embeddings.int8_products(b"", query).shape == (0,)
