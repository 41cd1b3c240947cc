"""Every search the product makes, one function each: the single place to change method.

- ``search_memories``: a user's active long-term memories relevant to a query.
- ``search_history``: verbatim messages of one thread relevant to a query.
- ``search_threads``: the same across all of a user's threads.

Why several signals: on long multi-session chats, trigram similarity of a question
against whole messages finds the right turn far less often than BM25, and trigram
word similarity or Postgres full-text ranking alone only about match it. History
search therefore ranks the candidate messages with several signals computed in one
SQL query and fuses their *ranks* (reciprocal rank fusion, so no signal's scale
dominates):

1. BM25 over stemmed words (English or Italian snowball, per message), with IDF and
   length normalisation from the searched messages themselves;
2. BM25 over the words as written (identifiers, numbers, names, any language);
3. trigram word similarity of the content words of the question (typos, inflections);
4. coverage: how many distinct question words a message contains;
5. the same stemmed BM25 smoothed over the neighbouring turns (a question often
   matches the exchange, not one side of it);
6. cosine similarity of e5 embeddings (``memories.embeddings``) of the question and
   the scope's embedded messages, the nearest found by ``memories.vector_search``
   (pgvector where the server has it, else an exact scan in numpy): it finds the answers
   that share no word with the question ("Who is my physician?" -> "My new GP is
   Dr. Okafor"), which no lexical list can.

Memory recall fuses the same kinds of lists over the user's memories; a memory found
by its embedding alone must pass a cosine floor, so that a message about nothing the
user ever said does not pull unrelated memories into the context.

Lexical lists use the question's content words (English and Italian stop words and
"what did I say about"-style words removed); the embedding sees the question as
written. Rows not embedded yet are simply absent from the cosine list. Whether
embeddings are used at all is decided in ``memories.embeddings.enabled()``. Scores
are ordinal only: callers may sort by them, never compare them across calls; a
history hit's ``word_share`` and ``cosine_margin`` are the strengths that compare.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from conversations.models import Message, Thread
from memories import embeddings, vector_search
from memories import retrieval_sql as sql
from memories.models import Memory, MemoryStatus
from memories.stopwords import STOP_WORDS

# BM25 parameters (the usual defaults) and the reciprocal-rank-fusion constant.
BM25_K1 = 1.2
BM25_B = 0.75
RRF_K = 60
# Signal weights in the fusion. Lexically the stemmed BM25 is the strongest list. The
# lexical lists are correlated views of the same words, the embeddings' cosine is an
# independent one and the only one that sees paraphrase: it weighs as much as the
# lexical lists together (the two families count equally, as in the usual hybrid
# search). Not fitted to the benchmark: on its dev split 1.5 / 3 / 6 give recall@10
# 0.62 / 0.63 / 0.69 and cosine alone 0.66 (lexical 0.42), see bench/README.md.
HISTORY_WEIGHTS = {"stem": 1.0, "simple": 0.6, "trigram": 0.4, "coverage": 0.5, "context": 0.5, "cosine": 3.0}
MEMORY_WEIGHTS = {"stem": 1.0, "simple": 0.7, "trigram": 0.7, "coverage": 0.4, "cosine": 3.0}
# How many candidates each method hands to the fusion, and how many query words are used.
CANDIDATE_POOL = 400
MAX_QUERY_TERMS = 32
MAX_QUERY_CHARS = 2000
MEMORY_TRIGRAM_FLOOR = 0.3
MEMORY_VECTOR_SCAN = 2_000
# A memory that no lexical list found is recalled only when its cosine exceeds what
# unrelated statements score for the same query by this margin
# (``embeddings.unrelated_similarity``). Chosen on the benchmark's dev split: 0.05
# keeps 80 % of the answers and lets an unrelated chit-chat message pull in a memory
# 11 % of the time (0.06: 68 % and 6 %).
MEMORY_COSINE_MARGIN = 0.05


@dataclass(frozen=True)
class MemoryHit:
    memory: Memory
    score: float


@dataclass(frozen=True)
class HistoryHit:
    message_id: int
    thread_id: uuid.UUID
    sequence: int
    role: str
    created_at: datetime
    excerpt: str
    score: float
    # Which signals ranked this message (name -> rank, 1 = best), for traces and tuning.
    signals: dict[str, int] = field(default_factory=dict, compare=False)
    # Two strengths comparable across queries and threads (``score`` is not), for callers
    # that need a floor: the share of the query's content words the message contains,
    # and how far its embedding's cosine to the query exceeds what everyday unrelated
    # statements score (``embeddings.unrelated_similarity``; None without a vector).
    word_share: float = field(default=0.0, compare=False)
    cosine_margin: float | None = field(default=None, compare=False)


# --- the query --------------------------------------------------------------------

_WORD_RE = re.compile(r"\w+(?:[-.]\w+)*")


def query_terms(query: str) -> list[str]:
    """The content words of ``query``, lower-cased, de-duplicated, in order.

    Elided Italian articles ("dell'ordine") and English contractions are split at the
    apostrophe. Tokens are made only of word characters, hyphens and dots, so they are
    safe to quote inside a tsquery.
    """
    text = (query or "")[:MAX_QUERY_CHARS].lower().replace("’", "'").replace("'", " ")
    terms: list[str] = []
    for token in _WORD_RE.findall(text):
        token = token.strip("_")
        if not token or token in STOP_WORDS:
            continue
        if len(token) < 2 and not token.isdigit():
            continue
        if token not in terms:
            terms.append(token)
        if len(terms) >= MAX_QUERY_TERMS:
            break
    return terms


def _tsquery_text(terms: list[str]) -> str:
    # OR semantics: a message need not contain every word of a question.
    return " | ".join(f"'{t}'" for t in terms)


# --- fusion -----------------------------------------------------------------------


def _ranks(keys: list, values: dict) -> dict:
    """Rank (1 = best) of each key with a positive value; equal values share a rank."""
    ordered = sorted((k for k in keys if values[k] > 0), key=lambda k: -values[k])
    ranks: dict = {}
    for position, key in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        same = previous is not None and values[previous] == values[key]
        ranks[key] = ranks[previous] if same else position
    return ranks


def _fuse(keys: list, signals: dict[str, dict], weights: dict[str, float]) -> tuple[dict, dict]:
    ranks = {name: _ranks(keys, values) for name, values in signals.items()}
    fused = {k: sum(weights[name] / (RRF_K + r[k]) for name, r in ranks.items() if k in r) for k in keys}
    return fused, ranks


# --- history ----------------------------------------------------------------------


@dataclass
class _Candidate:
    id: int
    thread_id: uuid.UUID
    sequence: int
    bm25_s: float = 0.0
    bm25_m: float = 0.0
    coverage: int = 0
    trigram: float = 0.0
    cosine: float | None = None
    unrelated: float = 0.0


def _history_candidates(*, scope_sql: str, scope_params: dict, terms: list[str], before: int) -> list[_Candidate]:
    if not terms:
        return []
    params = {
        **scope_params,
        "terms": terms,
        "tsq": _tsquery_text(terms),
        "qtext": " ".join(terms),
        "before": before,
        "k1": BM25_K1,
        "b": BM25_B,
        "pool": CANDIDATE_POOL,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql.HISTORY_SQL.format(scope=scope_sql.format(t="m")), params)
        return [_Candidate(*row) for row in cursor.fetchall()]


def _vector_candidates(
    *, scope_sql: str, scope_params: dict, question: Future | None, before: int, lexical: list[_Candidate]
) -> list[_Candidate]:
    """The lexical candidates with their cosine, plus the best of the rest by cosine alone.

    Which rows are nearest is asked of ``memories.vector_search`` (pgvector or an exact
    scan, chosen once per process).
    """
    if question is None:
        return lexical
    near = vector_search.backend().nearest(
        scope_sql=scope_sql,
        scope_params=scope_params,
        before=before,
        query=question,
        limit=CANDIDATE_POOL,
        also=[c.id for c in lexical],
    )
    by_id = {c.id: c for c in lexical}
    unrelated = embeddings.unrelated_similarity(question.result()) if near else 0.0
    for n in near:
        new = _Candidate(id=n.message_id, thread_id=n.thread_id, sequence=n.sequence)
        candidate = by_id.setdefault(n.message_id, new)
        candidate.cosine, candidate.unrelated = n.cosine, unrelated
    return list(by_id.values())


def _rank_history(candidates: list[_Candidate], limit: int) -> list[tuple[_Candidate, float, dict]]:
    if not candidates:
        return []
    keys = [c.id for c in candidates]
    by_pos = {(c.thread_id, c.sequence): c for c in candidates}
    stem = {c.id: c.bm25_m for c in candidates}
    # The neighbours' stemmed BM25, at half weight: a question matching the exchange
    # around a turn (the user's statement and the assistant's reply) lifts both.
    context = {}
    for c in candidates:
        around = 0.0
        for delta in (-1, 1):
            n = by_pos.get((c.thread_id, c.sequence + delta))
            if n is not None:
                around = max(around, n.bm25_m)
        context[c.id] = c.bm25_m + 0.5 * around
    signals = {
        "stem": stem,
        "simple": {c.id: c.bm25_s for c in candidates},
        "trigram": {c.id: c.trigram for c in candidates},
        # Coverage first, the BM25 sum breaks its many ties.
        "coverage": {c.id: c.coverage + 1e-3 * (c.bm25_m + c.bm25_s) / (1 + c.bm25_m + c.bm25_s) for c in candidates},
        "context": context,
        "cosine": {c.id: c.cosine or 0.0 for c in candidates},
    }
    fused, ranks = _fuse(keys, signals, HISTORY_WEIGHTS)
    by_id = {c.id: c for c in candidates}
    order = sorted(keys, key=lambda k: (-fused[k], -by_id[k].sequence))[:limit]
    return [(by_id[k], fused[k], {name: r[k] for name, r in ranks.items() if k in r}) for k in order]


def _excerpt(text: str, terms: Iterable[str], limit: int = 300) -> str:
    """Up to ``limit`` characters of ``text``, centred on the first query word found."""
    if len(text) <= limit:
        return text
    lowered = text.lower()
    positions = [p for p in (lowered.find(t) for t in terms) if p >= 0]
    if not positions:
        return text[: limit - 1] + "…"
    start = max(0, min(positions) - limit // 3)
    end = min(len(text), start + limit - 2)
    start = max(0, end - (limit - 2))
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def _history_hits(candidates: list[_Candidate], terms: list[str], limit: int) -> list[HistoryHit]:
    ranked = _rank_history(candidates, limit)
    rows = Message.objects.in_bulk([c.id for c, _, _ in ranked])
    return [
        HistoryHit(
            message_id=c.id,
            thread_id=c.thread_id,
            sequence=c.sequence,
            role=rows[c.id].role,
            created_at=rows[c.id].created_at,
            excerpt=_excerpt(rows[c.id].text, terms),
            score=score,
            signals=signals,
            word_share=c.coverage / max(1, len(terms)),
            cosine_margin=None if c.cosine is None else c.cosine - c.unrelated,
        )
        for c, score, signals in ranked
        if c.id in rows
    ]


def _search_scope(*, scope_sql: str, scope_params: dict, query: str, before: int, limit: int) -> list[HistoryHit]:
    terms = query_terms(query)
    if limit <= 0 or not terms:  # nothing but stop words: nothing to look for
        return []
    # The question is embedded in another thread while the lexical statement runs.
    question = embeddings.query_vector_soon(query[:MAX_QUERY_CHARS]) if embeddings.enabled() else None
    kwargs = {"scope_sql": scope_sql, "scope_params": scope_params, "before": before}
    candidates = _history_candidates(terms=terms, **kwargs)
    candidates = _vector_candidates(question=question, lexical=candidates, **kwargs)
    return _history_hits(candidates, terms, limit)


def search_history(
    *, thread: Thread, query: str, before_sequence: int | None = None, limit: int = 10
) -> list[HistoryHit]:
    """Messages of ``thread`` (older than ``before_sequence`` when given) ranked for ``query``.

    Three queries at most: the lexical ranking, the nearest vectors, the hits' texts;
    the question is embedded meanwhile.
    """
    return _search_scope(
        scope_sql="{t}.thread_id = %(thread)s",
        scope_params={"thread": thread.pk},
        query=query,
        before=before_sequence if before_sequence is not None else 2**31 - 1,
        limit=limit,
    )


def search_threads(*, user: AbstractBaseUser, query: str, limit: int = 20) -> list[HistoryHit]:
    """Messages across all of the user's threads ranked for ``query`` (IDF over them all)."""
    return _search_scope(
        scope_sql="{t}.thread_id IN (SELECT id FROM conversations_thread WHERE owner_id = %(owner)s)",
        scope_params={"owner": user.pk},
        query=query,
        before=2**31 - 1,
        limit=limit,
    )


# --- memories ---------------------------------------------------------------------


def _memory_rows(*, user: AbstractBaseUser, terms: list[str], kinds: list[str] | None, vectors: bool) -> list:
    """``(id, stem, simple, trigram, coverage, lexical, vector)`` per candidate memory."""
    params = {
        "tsq": _tsquery_text(terms),
        "terms": terms,
        "qtext": " ".join(terms),
        "user": user.pk,
        "status": MemoryStatus.ACTIVE,
        "kinds": list(kinds) if kinds else None,
        "vectors": vectors,
        "model": embeddings.MODEL_NAME,
        "pool": CANDIDATE_POOL,
        "scan": MEMORY_VECTOR_SCAN,
    }
    # One transaction (no savepoint, so no extra query inside a caller's): the threshold
    # is set for it only (SET LOCAL), never left on a connection a pooler hands on.
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        # The threshold of ``<%``: our floor, so the trigram index filters for us.
        cursor.execute("SELECT set_config('pg_trgm.word_similarity_threshold', %s, true)", [str(MEMORY_TRIGRAM_FLOOR)])
        cursor.execute(sql.MEMORY_SQL, params)
        parts = cursor.fetchall()
    rows: dict[int, list] = {}
    for pk, stem, simple, trigram, coverage, vector in parts:
        row = rows.setdefault(pk, [pk, 0.0, 0.0, 0.0, 0, False, None])
        if vector is None:
            row[1:6] = [float(stem), float(simple), float(trigram), int(coverage), True]
        else:
            row[6] = bytes(vector)
    return list(rows.values())


def search_memories(
    *, user: AbstractBaseUser, query: str, kinds: list[str] | None = None, limit: int = 8
) -> list[MemoryHit]:
    """The user's active, unexpired memories ranked for ``query``.

    Fused ranks of stemmed and exact full-text rank, trigram word similarity, word
    coverage and embedding cosine; importance, then recency, break ties. A memory
    that only the embedding found must stand out (``MEMORY_COSINE_MARGIN``). Three
    queries (the trigram threshold, the ranking, the rows), and the query's embedding
    when the user has embedded memories (cached per process: a turn pays for it once).
    """
    query = (query or "")[:MAX_QUERY_CHARS]
    terms = query_terms(query)
    if limit <= 0 or not terms:  # nothing but stop words: nothing to look for
        return []
    vectors = embeddings.enabled()
    # Embedded in another thread while the ranking statement runs (cached per process).
    future = embeddings.query_vector_soon(query) if vectors else None
    rows = _memory_rows(user=user, terms=terms, kinds=kinds, vectors=vectors)
    cosine: dict[int, float] = {}
    floor = 1.0
    embedded = [r for r in rows if r[6] is not None]
    if embedded and future is not None:
        question = future.result()
        sims = embeddings.from_bytes([r[6] for r in embedded]) @ question
        cosine = {r[0]: float(v) for r, v in zip(embedded, sims, strict=True)}
        floor = embeddings.unrelated_similarity(question) + MEMORY_COSINE_MARGIN
    rows = [r for r in rows if r[5] or cosine.get(r[0], 0.0) >= floor]
    if not rows:
        return []
    keys = [r[0] for r in rows]
    signals = {
        "stem": {r[0]: float(r[1]) for r in rows},
        "simple": {r[0]: float(r[2]) for r in rows},
        "trigram": {r[0]: float(r[3]) for r in rows},
        "coverage": {r[0]: float(r[4]) for r in rows},
        "cosine": {k: cosine.get(k, 0.0) for k in keys},
    }
    fused, _ = _fuse(keys, signals, MEMORY_WEIGHTS)
    memories = Memory.objects.in_bulk(keys)
    order = sorted(
        (k for k in keys if k in memories),
        key=lambda k: (-round(fused[k], 9), -memories[k].importance, -memories[k].updated_at.timestamp(), -k),
    )[:limit]
    return [MemoryHit(memory=memories[k], score=fused[k]) for k in order]
