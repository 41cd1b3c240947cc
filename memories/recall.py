"""Memory recall: a user's active long-term memories relevant to a message.

Reciprocal-rank fusion of stemmed and exact full-text rank, trigram word similarity,
word coverage and embedding cosine (memories are short and similar in length, so
ranks fuse them well); a memory found by its embedding alone must pass a cosine floor,
so that a message about nothing the user ever said pulls in no memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils import timezone

from liamemory import embeddings
from liamemory.search_terms import CANDIDATE_POOL, MAX_QUERY_CHARS, kind_terms, kinds_linked, query_terms, tsquery_text
from memories.models import Memory, MemoryStatus

# The reciprocal-rank-fusion constant and each list's weight.
RRF_K = 60
MEMORY_WEIGHTS = {"stem": 1.0, "simple": 0.7, "trigram": 0.7, "coverage": 0.4, "cosine": 3.0, "kind": 1.0}
MEMORY_TRIGRAM_FLOOR = 0.3
MEMORY_VECTOR_SCAN = 2_000
# A memory that no lexical list found is recalled only when its cosine exceeds what
# unrelated statements score for the same query by this margin
# (``embeddings.unrelated_similarity``). Chosen on the benchmark's dev split: 0.05
# keeps 80 % of the answers and lets an unrelated chit-chat message pull in a memory
# 11 % of the time (0.06: 68 % and 6 %).
MEMORY_COSINE_MARGIN = 0.05


# One statement of three parts, each keeping the most recently updated rows (there is no
# index on updated_at, so the planner filters by user and match first and never walks a
# big index in order). The first: the user's active memories that match a query word
# (stored tsvectors) or hold the content words by trigram word similarity, with their
# lexical signals. The second, when embeddings are on: the newest of their active
# memories whose vector is current (its hash matches the content). The third, when
# asked: their superseded memories that match, from which ``_successors`` follows the
# chain to the current value. Every part returns the memory's own columns, so no second
# read builds the hits. A memory may come from the first two parts; Python merges.
# The trigram floor is compared with ``word_similarity`` rather than through ``<%``
# and its session threshold: the user's filter (``memory_user_status_kind_idx``) leaves
# a handful of rows to compare, so the trigram index would not serve, and setting the
# threshold cost a statement of its own (with a transaction around it) on every recall.
# ts_rank without length normalisation suits facts of similar length.
MEMORY_VISIBLE = """
    m.user_id = %(user)s AND m.status = {status}
    AND (m.expires_at IS NULL OR m.expires_at > clock_timestamp())
    AND (%(kinds)s::text[] IS NULL OR m.kind = ANY (%(kinds)s::text[]))
"""
_MEMORY_COLUMNS = ", ".join(f"m.{f.column}" for f in Memory._meta.concrete_fields)
_MEMORY_MATCH = f"""
SELECT {{part}} AS part, {_MEMORY_COLUMNS},
       CASE WHEN m.search_stem @@ q.qm THEN ts_rank(m.search_stem, q.qm) ELSE 0 END AS stem,
       CASE WHEN m.search_simple @@ q.qs THEN ts_rank(m.search_simple, q.qs) ELSE 0 END AS simple,
       word_similarity(%(qtext)s, m.content) AS trigram,
       (SELECT count(*) FROM unnest(%(terms)s::text[]) t
         WHERE m.search_simple @@ to_tsquery('simple', quote_literal(t))
            OR m.search_stem @@ (to_tsquery('english', quote_literal(t)) || to_tsquery('italian', quote_literal(t)))
       ) AS coverage,
       NULL::bytea AS vector
FROM memories_memory m,
     (SELECT to_tsquery('simple', %(tsq)s) AS qs,
             to_tsquery('english', %(tsq)s) || to_tsquery('italian', %(tsq)s) AS qm) q
WHERE {{visible}}
  AND (m.search_simple @@ q.qs OR m.search_stem @@ q.qm OR word_similarity(%(qtext)s, m.content) >= %(trigram)s)
ORDER BY m.updated_at DESC
LIMIT %(pool)s
"""
MEMORY_SQL = f"""
({_MEMORY_MATCH.format(part=0, visible=MEMORY_VISIBLE.format(status="%(active)s"))})
UNION ALL
(SELECT 1, {_MEMORY_COLUMNS}, 0, 0, 0, 0, e.vector
 FROM memories_memory m JOIN memories_memoryembedding e ON e.memory_id = m.id
 WHERE %(vectors)s AND {MEMORY_VISIBLE.format(status="%(active)s")}
   AND e.model = %(model)s AND e.content_md5 = md5(m.content)
 ORDER BY m.updated_at DESC
 LIMIT %(scan)s)
UNION ALL
({_MEMORY_MATCH.format(part=2, visible="%(successors)s AND " + MEMORY_VISIBLE.format(status="%(superseded)s"))})
"""
# The parts of MEMORY_SQL, by the number each row carries first.
_LEXICAL, _VECTOR, _SUPERSEDED = 0, 1, 2


@dataclass(frozen=True)
class MemoryHit:
    memory: Memory
    score: float


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


@dataclass
class _Row:
    """A candidate memory and its signals (``lexical``: a lexical part found it)."""

    memory: Memory
    stem: float = 0.0
    simple: float = 0.0
    trigram: float = 0.0
    coverage: int = 0
    lexical: bool = False
    vector: bytes | None = None


_FIELDS = [f.attname for f in Memory._meta.concrete_fields]


def _memory_rows(
    *,
    user: AbstractBaseUser,
    terms: list[str],
    also: list[str],
    kinds: list[str] | None,
    vectors: bool,
    successors: bool,
) -> tuple[list[_Row], list[_Row]]:
    """The active candidates and, when ``successors``, the superseded memories that match: one statement.

    ``also``: words matched besides ``terms`` (``kind_terms``), left out of the trigram text.
    """
    params = {
        "tsq": tsquery_text(terms + also),
        "terms": terms + also,
        "qtext": " ".join(terms),
        "trigram": MEMORY_TRIGRAM_FLOOR,
        "user": user.pk,
        "active": MemoryStatus.ACTIVE,
        "superseded": MemoryStatus.SUPERSEDED,
        "successors": successors,
        "kinds": list(kinds) if kinds else None,
        "vectors": vectors,
        "model": embeddings.MODEL_NAME,
        "pool": CANDIDATE_POOL,
        "scan": MEMORY_VECTOR_SCAN,
    }
    with connection.cursor() as cursor:
        cursor.execute(MEMORY_SQL, params)
        parts = cursor.fetchall()
    n = len(_FIELDS)
    active: dict[int, _Row] = {}
    superseded: list[_Row] = []
    for part, *values in parts:
        fields, (stem, simple, trigram, coverage, vector) = values[:n], values[n:]
        if part == _SUPERSEDED:
            memory = Memory.from_db(connection.alias, _FIELDS, fields)
            superseded.append(_Row(memory, float(stem), float(simple), float(trigram), int(coverage), True))
            continue
        row = active.get(fields[0])
        if row is None:
            row = active[fields[0]] = _Row(Memory.from_db(connection.alias, _FIELDS, fields))
        if part == _LEXICAL:
            row.stem, row.simple, row.trigram = float(stem), float(simple), float(trigram)
            row.coverage, row.lexical = int(coverage), True
        else:
            row.vector = bytes(vector)
    return list(active.values()), superseded


def search_memories(
    *, user: AbstractBaseUser, query: str, kinds: list[str] | None = None, limit: int = 8
) -> list[MemoryHit]:
    """The user's active, unexpired memories ranked for ``query``.

    Fused ranks of stemmed and exact full-text rank, trigram word similarity, word
    coverage and embedding cosine; importance, then recency, break ties. A memory
    that only the embedding found must stand out (``MEMORY_COSINE_MARGIN``). One
    statement (``MEMORY_SQL``: the candidates, their rows and the superseded ones the
    successors come from; following a chain of supersessions reads more), and the
    query's embedding when the user has embedded memories (cached per process: a turn
    pays for it once).
    """
    query = (query or "")[:MAX_QUERY_CHARS]
    terms = query_terms(query)
    if limit <= 0 or not terms:  # nothing but stop words: nothing to look for
        return []
    vectors = embeddings.enabled()
    # Embedded in another thread while the ranking statement runs (cached per process).
    future = embeddings.query_vector_soon(query) if vectors else None
    rows, superseded = _memory_rows(
        user=user, terms=terms, also=kind_terms(query), kinds=kinds, vectors=vectors, successors=True
    )
    cosine: dict[int, float] = {}
    floor = 1.0
    embedded = [r for r in rows if r.vector is not None]
    if embedded and future is not None:
        question = future.result()
        sims = embeddings.from_bytes([r.vector for r in embedded if r.vector is not None]) @ question
        cosine = {r.memory.pk: float(v) for r, v in zip(embedded, sims, strict=True)}
        floor = embeddings.unrelated_similarity(question) + MEMORY_COSINE_MARGIN
    # A memory that shows one of the kinds the query names ("I'm on Ramipril 5mg" for "which pill
    # am I on?") counts as found by its words; the vector part reads every recent memory.
    shows_kind = kinds_linked(query)
    linked = {r.memory.pk for r in rows if shows_kind and shows_kind(r.memory.content)}
    rows = [r for r in rows if r.lexical or r.memory.pk in linked or cosine.get(r.memory.pk, 0.0) >= floor]
    if not rows:
        return _successors(user=user, superseded=superseded, kinds=kinds, found=set(), limit=limit, score=0.0)
    keys = [r.memory.pk for r in rows]
    signals = {
        "stem": {r.memory.pk: r.stem for r in rows},
        "simple": {r.memory.pk: r.simple for r in rows},
        "trigram": {r.memory.pk: r.trigram for r in rows},
        "coverage": {r.memory.pk: float(r.coverage) for r in rows},
        "cosine": {k: cosine.get(k, 0.0) for k in keys},
        "kind": {k: float(k in linked) for k in keys},
    }
    fused, _ = _fuse(keys, signals, MEMORY_WEIGHTS)
    memories = {r.memory.pk: r.memory for r in rows}
    order = sorted(
        keys,
        key=lambda k: (-round(fused[k], 9), -memories[k].importance, -memories[k].updated_at.timestamp(), -k),
    )[:limit]
    hits = [MemoryHit(memory=memories[k], score=fused[k]) for k in order]
    if len(hits) < limit:
        lowest = min((h.score for h in hits), default=0.0)
        more = limit - len(hits)
        hits += _successors(user=user, superseded=superseded, kinds=kinds, found=set(order), limit=more, score=lowest)
    return hits


# How far a chain of supersessions is followed to its current memory.
SUCCESSOR_STEPS = 10


def _successors(
    *,
    user: AbstractBaseUser,
    superseded: list[_Row],
    kinds: list[str] | None,
    found: set[int],
    limit: int,
    score: float,
) -> list[MemoryHit]:
    """The current memories that replaced the superseded ones matching the query words.

    "Where do I live?" names what "I live in Rome" was about, not "I moved from Rome to
    Turin", which superseded it: the question still reaches the newest statement, never
    the old one. Ranked after the direct hits. ``superseded`` comes with the recall's
    statement. The chains are followed all together, a step at a time, with one read per
    step for the versions that statement did not bring (usually just the current ones):
    a fact restated every few turns makes a long chain whose versions all match, and
    walking each from its own start, a read per version, cost hundreds of reads per turn
    in the soak (bench.footprint: turn latency 0.7 -> 2.0 s over 1,705 turns).
    """
    if limit <= 0:
        return []
    matched = sorted(superseded, key=lambda r: -(r.stem + r.simple + r.trigram))
    known: dict[int, Memory] = {r.memory.pk: r.memory for r in superseded}
    ends: list[Memory | None] = [row.memory for row in matched]
    for _ in range(SUCCESSOR_STEPS):
        # The next version of each chain still on a superseded one, by its place in ``ends``.
        steps = {
            i: m.superseded_by_id
            for i, m in enumerate(ends)
            if m is not None and m.status == MemoryStatus.SUPERSEDED and m.superseded_by_id is not None
        }
        if not steps:
            break
        missing = set(steps.values()) - known.keys()
        if missing:
            known.update((m.pk, m) for m in Memory.objects.for_user(user).filter(pk__in=missing))
        for i, pk in steps.items():
            ends[i] = known.get(pk)
    out: list[MemoryHit] = []
    for memory in ends:
        current = (
            memory is not None
            and memory.status == MemoryStatus.ACTIVE
            and (memory.expires_at is None or memory.expires_at > timezone.now())
        )
        if current and memory is not None and memory.pk not in found and (not kinds or memory.kind in kinds):
            found.add(memory.pk)
            out.append(MemoryHit(memory=memory, score=score / 2))
        if len(out) >= limit:
            break
    return out
