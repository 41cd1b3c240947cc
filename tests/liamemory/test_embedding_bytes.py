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
