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
   matches the exchange, not one side of it).

Questions are reduced to their content words first (English and Italian stop words
and "what did I say about"-style words removed). Scores are ordinal only: callers
may sort by them, never compare them across calls.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection

from conversations.models import Message, Thread
from memories.models import Memory, MemoryStatus
from memories.stopwords import STOP_WORDS

# BM25 parameters (the usual defaults) and the reciprocal-rank-fusion constant.
BM25_K1 = 1.2
BM25_B = 0.75
RRF_K = 60
# Signal weights in the fusion; the stemmed BM25 is the strongest single signal.
HISTORY_WEIGHTS = {"stem": 1.0, "simple": 0.6, "trigram": 0.4, "coverage": 0.5, "context": 0.5}
MEMORY_WEIGHTS = {"stem": 1.0, "simple": 0.7, "trigram": 0.7, "coverage": 0.4}
# How many candidates the SQL hands to the fusion, and how many query words are used.
CANDIDATE_POOL = 400
MAX_QUERY_TERMS = 32
MAX_QUERY_CHARS = 2000
MEMORY_TRIGRAM_FLOOR = 0.3


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

# One statement: per-scope statistics, candidates matching any query word, per-word
# term frequencies from the stored tsvectors, document frequencies, BM25. The scope
# clause is fixed SQL chosen below; every value is a parameter.
_HISTORY_SQL = """
WITH
terms AS (
    SELECT t.ord,
           tsvector_to_array(to_tsvector('simple', t.term)) AS lex_s,
           tsvector_to_array(to_tsvector('english', t.term) || to_tsvector('italian', t.term)) AS lex_m
    FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
),
q AS (
    SELECT to_tsquery('simple', %(tsq)s) AS qs,
           to_tsquery('english', %(tsq)s) || to_tsquery('italian', %(tsq)s) AS qm
),
scope AS (
    SELECT m.id, m.thread_id, m.sequence, m.role, m.text, m.search_simple, m.search_stem
    FROM conversations_message m
    WHERE {scope} AND m.sequence < %(before)s AND m.text <> ''
),
stats AS (
    SELECT count(*)::float AS n,
           greatest(avg(length(search_simple)), 1)::float AS avg_s,
           greatest(avg(length(search_stem)), 1)::float AS avg_m
    FROM scope
),
cand AS (
    SELECT s.id, s.thread_id, s.sequence, s.role, s.text, s.search_simple, s.search_stem,
           length(s.search_simple)::float AS dl_s, length(s.search_stem)::float AS dl_m
    FROM scope s, q
    WHERE s.search_simple @@ q.qs OR s.search_stem @@ q.qm
),
tf AS (
    SELECT c.id, t.ord, 's' AS sig, max(array_length(u.positions, 1)) AS tf
    FROM cand c CROSS JOIN LATERAL unnest(c.search_simple) u JOIN terms t ON u.lexeme = ANY (t.lex_s)
    GROUP BY c.id, t.ord
    UNION ALL
    SELECT c.id, t.ord, 'm' AS sig, max(array_length(u.positions, 1)) AS tf
    FROM cand c CROSS JOIN LATERAL unnest(c.search_stem) u JOIN terms t ON u.lexeme = ANY (t.lex_m)
    GROUP BY c.id, t.ord
),
df AS (
    SELECT ord, sig, count(*)::float AS df FROM tf GROUP BY ord, sig
),
bm25 AS (
    SELECT tf.id,
           sum(CASE WHEN tf.sig = 's' THEN w.part ELSE 0 END) AS bm25_s,
           sum(CASE WHEN tf.sig = 'm' THEN w.part ELSE 0 END) AS bm25_m,
           count(DISTINCT tf.ord) AS coverage
    FROM tf
    JOIN df USING (ord, sig)
    JOIN cand c ON c.id = tf.id
    CROSS JOIN stats
    CROSS JOIN LATERAL (
        SELECT ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5))
               * (coalesce(tf.tf, 1) * (%(k1)s + 1))
               / (coalesce(tf.tf, 1) + %(k1)s * (1 - %(b)s + %(b)s
                  * CASE WHEN tf.sig = 's' THEN c.dl_s / stats.avg_s ELSE c.dl_m / stats.avg_m END)) AS part
    ) w
    GROUP BY tf.id
)
SELECT c.id, c.thread_id, c.sequence, c.role, bm25.bm25_s, bm25.bm25_m, bm25.coverage,
       word_similarity(%(qtext)s, c.text) AS trigram
FROM bm25 JOIN cand c ON c.id = bm25.id
ORDER BY bm25.bm25_m + bm25.bm25_s DESC, c.sequence DESC
LIMIT %(pool)s
"""


@dataclass
class _Candidate:
    id: int
    thread_id: uuid.UUID
    sequence: int
    role: str
    bm25_s: float
    bm25_m: float
    coverage: int
    trigram: float


def _history_candidates(*, scope_sql: str, scope_params: dict, terms: list[str], before: int) -> list[_Candidate]:
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
        cursor.execute(_HISTORY_SQL.format(scope=scope_sql), params)
        return [_Candidate(*row) for row in cursor.fetchall()]


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
            role=c.role,
            created_at=rows[c.id].created_at,
            excerpt=_excerpt(rows[c.id].text, terms),
            score=score,
            signals=signals,
        )
        for c, score, signals in ranked
        if c.id in rows
    ]


def search_history(
    *, thread: Thread, query: str, before_sequence: int | None = None, limit: int = 10
) -> list[HistoryHit]:
    """Messages of ``thread`` (older than ``before_sequence`` when given) ranked for ``query``.

    Two queries: the ranking statement and the texts of the hits.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    before = before_sequence if before_sequence is not None else 2**31 - 1
    candidates = _history_candidates(
        scope_sql="m.thread_id = %(thread)s", scope_params={"thread": thread.pk}, terms=terms, before=before
    )
    return _history_hits(candidates, terms, limit)


def search_threads(*, user: AbstractBaseUser, query: str, limit: int = 20) -> list[HistoryHit]:
    """Messages across all of the user's threads ranked for ``query`` (IDF over them all)."""
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    candidates = _history_candidates(
        scope_sql="m.thread_id IN (SELECT id FROM conversations_thread WHERE owner_id = %(owner)s)",
        scope_params={"owner": user.pk},
        terms=terms,
        before=2**31 - 1,
    )
    return _history_hits(candidates, terms, limit)


# --- memories ---------------------------------------------------------------------

# Memories are short facts and a user has few active ones (a hard cap), so the
# tsvectors are computed on the fly over that user's rows, found by the
# (user, status, kind) index; ts_rank without length normalisation suits facts of
# similar length.
_MEMORY_SQL = """
WITH q AS (
    SELECT to_tsquery('simple', %(tsq)s) AS qs,
           to_tsquery('english', %(tsq)s) || to_tsquery('italian', %(tsq)s) AS qm,
           %(terms)s::text[] AS terms
),
mem AS (
    SELECT m.id, m.content, m.importance, m.updated_at,
           to_tsvector('simple', m.content) AS vs,
           to_tsvector('english', m.content) || to_tsvector('italian', m.content) AS vm
    FROM memories_memory m
    WHERE m.user_id = %(user)s AND m.status = %(status)s
      AND (m.expires_at IS NULL OR m.expires_at > clock_timestamp())
      AND (%(kinds)s::text[] IS NULL OR m.kind = ANY (%(kinds)s::text[]))
)
SELECT mem.id,
       CASE WHEN mem.vm @@ q.qm THEN ts_rank(mem.vm, q.qm) ELSE 0 END AS stem,
       CASE WHEN mem.vs @@ q.qs THEN ts_rank(mem.vs, q.qs) ELSE 0 END AS simple,
       word_similarity(%(qtext)s, mem.content) AS trigram,
       (SELECT count(*) FROM unnest(q.terms) t
         WHERE mem.vs @@ to_tsquery('simple', quote_literal(t))
            OR mem.vm @@ (to_tsquery('english', quote_literal(t)) || to_tsquery('italian', quote_literal(t)))
       ) AS coverage
FROM mem, q
WHERE mem.vs @@ q.qs OR mem.vm @@ q.qm OR word_similarity(%(qtext)s, mem.content) >= %(floor)s
"""


def search_memories(
    *, user: AbstractBaseUser, query: str, kinds: list[str] | None = None, limit: int = 8
) -> list[MemoryHit]:
    """The user's active, unexpired memories ranked for ``query``.

    Fused ranks of stemmed and exact full-text rank, trigram word similarity and word
    coverage; importance, then recency, break ties. Two queries.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    params = {
        "tsq": _tsquery_text(terms),
        "terms": terms,
        "qtext": " ".join(terms),
        "user": user.pk,
        "status": MemoryStatus.ACTIVE,
        "kinds": list(kinds) if kinds else None,
        "floor": MEMORY_TRIGRAM_FLOOR,
    }
    with connection.cursor() as cursor:
        cursor.execute(_MEMORY_SQL, params)
        rows = cursor.fetchall()
    if not rows:
        return []
    keys = [r[0] for r in rows]
    signals = {
        "stem": {r[0]: float(r[1]) for r in rows},
        "simple": {r[0]: float(r[2]) for r in rows},
        "trigram": {r[0]: float(r[3]) for r in rows},
        "coverage": {r[0]: float(r[4]) for r in rows},
    }
    fused, _ = _fuse(keys, signals, MEMORY_WEIGHTS)
    memories = Memory.objects.in_bulk(keys)
    order = sorted(
        (k for k in keys if k in memories),
        key=lambda k: (-round(fused[k], 9), -memories[k].importance, -memories[k].updated_at.timestamp(), -k),
    )[:limit]
    return [MemoryHit(memory=memories[k], score=fused[k]) for k in order]
