"""Message search: the single place to change how messages are found.

- ``search_history``: verbatim messages of one thread relevant to a query (the agent's
  tool, the context's older excerpts).
- ``search_threads``: the same across all of a user's threads (the search page and API).

History search scores every message with two independent signals and adds them as
standard scores (how many standard deviations a message stands above the scope's mean,
negative parts dropped), so that neither family's scale dominates and a signal that
sees nothing special in a query adds nothing:

1. lexical: BM25 over stemmed words (English and Italian snowball) of each message
   indexed together with its neighbours at half weight, plus the dates the question
   names (a month, a year, a weekday) matched against the message's date
   (``retrieval_sql.HISTORY_SQL`` says why);
2. semantic: cosine similarity of e5 embeddings (``liamemory.embeddings``) of the
   question and the scope's embedded messages, the nearest found by
   ``conversations.vector_search`` (pgvector where the server has it, else an exact scan
   in numpy): it finds the answers that share no word with the question ("Who is my
   physician?" -> "My new GP is Dr. Okafor"), which no lexical list can.

Chosen on LoCoMo's conv-26 and checked on other chats (bench/README.md, "Long
chats"): reciprocal-rank fusion of several correlated lexical lists with a heavily
weighted cosine list ranked the speaker the question names above its words; ranks
throw away how far ahead the best matches are, standard scores keep it.

Memory recall (``memories.recall``) fuses the same kinds of lists over the
user's memories; a memory found by its embedding alone must pass a cosine floor, so
that a message about nothing the user ever said does not pull unrelated memories into
the context. Both read the question's words and dates with ``liamemory.search_terms``.

Lexical lists use the question's content words (English and Italian stop words and
"what did I say about"-style words removed); the embedding sees the question as
written. Rows not embedded yet are simply absent from the cosine list. Whether
embeddings are used at all is decided in ``liamemory.embeddings.enabled()``. Scores
of memories are ordinal only. A history hit's score is its summed standard scores
(above about 3 it stands well out of its thread); its ``word_share`` and
``cosine_margin`` are the strengths that compare across queries and threads.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection

from conversations import search_sql as sql
from conversations import vector_search
from conversations.informative import carries_nothing, near_identical
from conversations.models import MessageRole, Thread
from conversations.selectors import TOOL_USE_CONTENT, asked_before, hit_rows, said_rows_at
from liamemory import embeddings, language
from liamemory.search_terms import CANDIDATE_POOL, MAX_QUERY_CHARS, date_terms, kind_terms, query_terms, tsquery_text

__all__ = [
    "RELEVANCE_COSINE_FLOOR",
    "HistoryHit",
    "cosine_floor",
    "hits_beside",
    "informative_hits",
    "search_history",
    "search_other_threads",
    "search_threads",
]

# BM25 parameters (the usual defaults).
BM25_K1 = 1.2
BM25_B = 0.75
# History: the weight of each neighbour in a message's lexical document (the message
# itself weighs 1, so it outranks its neighbours on its own words), and of the two
# standard scores in the sum. Chosen on LoCoMo conv-26 and the generated chats' dev
# split, seed 3 (bench/README.md, "Long chats"): neighbours at 0 / 0.25 / 0.5 give
# conv-26 recall@10 64.3 / 76.1 / 78.3 (cosine weight 1); cosine weight 1 / 1.5 / 2
# gives 78.3 / 78.6 / 78.6 (neighbours 0.5), the generated style-a chats 54.7 / 59.4 / 62.5.
NEIGHBOUR_WEIGHT = 0.5
HISTORY_WEIGHTS = {"lexical": 1.0, "cosine": 1.5}
# On a thread longer than ``settings.HISTORY_LEXICAL_WINDOW`` (its newest messages, read
# in full: the development chats are 370-700 messages), the older messages holding every
# query word that the lexical statement adds, the newest first (``search_sql.OLDER_ROWS``).
LEXICAL_OLDER = 200
# Of those newest messages, the ones as old as the window's this-many-th newest message that
# holds a query word (``search_sql.NEWEST_HITS``): the statement's cost grows with the rows it
# scores. Above what any development chat reaches, so they rank as before: the most is 419, every
# message of LoCoMo conv-26 for a question naming a speaker (each turn opens with their name); at
# 400 that question's ranking moved and one context of 197 lost its evidence (bench/README.md).
LEXICAL_WINDOW_HITS = 500
# The messages nearest in meaning that no query word matched, read to see whether another language
# is why (``_across_languages``).
ACROSS_LANGUAGES_POOL = 20


@dataclass(frozen=True)
class HistoryHit:
    message_id: int
    thread_id: uuid.UUID
    sequence: int
    role: str
    created_at: datetime
    excerpt: str
    score: float
    # Each signal's standard score for this message (lexical, cosine), for traces and tuning.
    signals: dict[str, float] = field(default_factory=dict, compare=False)
    # Two strengths comparable across queries and threads, for callers that need a
    # floor: the share of the query's content words the message itself contains, and how
    # far its embedding's cosine to the query exceeds what everyday unrelated statements
    # score (``embeddings.unrelated_similarity``; None without a vector).
    word_share: float = field(default=0.0, compare=False)
    cosine_margin: float | None = field(default=None, compare=False)
    # For a reply, the person's message it answers ("" for other rows), read with the
    # hit's own row; None when not read (``informative_hits`` reads it then).
    asked: str | None = field(default=None, compare=False)
    # Written in another language than the query: no query word could match it, so it was
    # ranked by its meaning alone (``_across_languages``).
    other_language: bool = field(default=False, compare=False)


# --- history ----------------------------------------------------------------------


@dataclass
class _Candidate:
    id: int
    thread_id: uuid.UUID
    sequence: int
    lexical: float = 0.0
    own: bool = False  # the message itself holds a query word (not only its neighbours)
    coverage: int = 0  # how many distinct query words the message itself holds
    cosine: float | None = None
    unrelated: float = 0.0  # what unrelated statements score for the query (cosine)


@dataclass
class _Scores:
    """The candidates of one search and the statistics that standardise their scores."""

    candidates: dict[int, _Candidate] = field(default_factory=dict)
    lexical_mean: float = 0.0
    lexical_std: float = 0.0
    cosine_mean: float = 0.0
    cosine_std: float = 0.0


@dataclass(frozen=True)
class _LexicalRows:
    """The rows the lexical statement reads in full and the older ones it adds (``search_sql.HISTORY_SQL``)."""

    recent: str
    older: str = sql.NO_OLDER_ROWS
    window: int | None = None
    # How the window functions group ``recent``: by thread, or nothing when it is one thread's rows.
    partition: str = sql.BY_THREAD
    # One thread's window, scored back to its ``LEXICAL_WINDOW_HITS``-th newest hit (``search_sql.NEWEST_HITS``).
    newest_hits: bool = False

    def matched(self) -> str:
        """``HISTORY_SQL``'s ``{matched}``: the rows read in full, each with its length and whether it is a hit."""
        matched = sql.MATCHED_ROWS.format(recent=self.recent)
        return sql.NEWEST_HITS.format(matched=matched) if self.newest_hits else matched

    @classmethod
    def of_scope(cls, scope_sql: str, window: int | None = None) -> _LexicalRows:
        """Every row of ``scope_sql``; with ``window``, one thread's newest and the older ones holding every word."""
        scope = scope_sql.format(t="m")
        return cls(
            recent=sql.SCOPE_ROWS.format(scope=scope, window=sql.RECENT_WINDOW if window else ""),
            older=sql.OLDER_ROWS.format(rows=sql.OLDER_IN_THREAD.format(scope=scope)) if window else sql.NO_OLDER_ROWS,
            window=window,
            partition="" if window else sql.BY_THREAD,
            newest_hits=bool(window),
        )


def _history_candidates(
    *, rows: _LexicalRows, scope_params: dict, query: str, terms: list[str], before: int, also: list[str]
) -> _Scores:
    """``also``: words looked for besides ``terms`` (``kind_terms``), not required of the older rows."""
    scores = _Scores()
    if not terms:
        return scores
    dates = date_terms(query)
    params = {
        **scope_params,
        "terms": terms + also,
        "tsq": tsquery_text(terms + also),
        "tsq_all": tsquery_text(terms, every=True),
        "window": rows.window,
        "older": LEXICAL_OLDER,
        "hits": LEXICAL_WINDOW_HITS,
        "date_parts": [part for part, _ in dates],
        "date_values": [value for _, value in dates],
        "tz": settings.TIME_ZONE,
        "before": before,
        "nb": NEIGHBOUR_WEIGHT,
        "k1": BM25_K1,
        "b": BM25_B,
        "pool": CANDIDATE_POOL,
    }
    # JIT compilation is off for the connection (``settings.DB_JIT``): the planner's estimates
    # for this statement's CTEs are ~400x what it reads, and past ``jit_above_cost`` compiling
    # it cost more than running it.
    statement = sql.HISTORY_SQL.format(matched=rows.matched(), older=rows.older, partition=rows.partition)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        found = cursor.fetchall()
    for message_id, thread_id, sequence, score, own, coverage, *_ in found:
        scores.candidates[message_id] = _Candidate(
            id=message_id, thread_id=thread_id, sequence=sequence, lexical=score, own=own, coverage=coverage
        )
    if found:
        *_, s1, s2, n = found[0]
        scores.lexical_mean = s1 / n
        scores.lexical_std = max(0.0, s2 / n - scores.lexical_mean**2) ** 0.5
    return scores


def _vector_candidates(
    *, scope_sql: str, scope_params: dict, question: Future | None, before: int, scores: _Scores
) -> None:
    """Cosines of the lexical candidates and of the scope's nearest messages (which join them).

    Which rows are nearest is asked of ``conversations.vector_search`` (pgvector or an exact
    scan, chosen once per process). The cosines are standardised by their mean and
    spread over the rows it returns: on a thread of a few hundred messages nearly all
    of them, on a long one the nearest 400 and the lexical candidates (on the
    development chats, standardising over the nearest 100, 200 or all rows changes
    recall@10 by at most 1.6 points: ``bench/README.md``).
    """
    if question is None:
        return
    near = vector_search.backend().nearest(
        scope_sql=scope_sql,
        scope_params=scope_params,
        before=before,
        query=question,
        limit=CANDIDATE_POOL,
        also=list(scores.candidates),
    )
    if not near:
        return
    cosines = np.array([n.cosine for n in near])
    scores.cosine_mean, scores.cosine_std = float(cosines.mean()), float(cosines.std())
    unrelated = embeddings.unrelated_similarity(question.result())
    for n in near:
        new = _Candidate(id=n.message_id, thread_id=n.thread_id, sequence=n.sequence)
        candidate = scores.candidates.setdefault(n.message_id, new)
        candidate.cosine, candidate.unrelated = n.cosine, unrelated


def _standard(value: float | None, mean: float, std: float) -> float:
    """How far above the mean ``value`` stands, in standard deviations; nothing below it."""
    if value is None or value <= mean:
        return 0.0
    return (value - mean) / std if std > 1e-9 else 1.0


def _rank_history(scores: _Scores, limit: int, *, own_only: bool) -> list[tuple[_Candidate, float, dict]]:
    ranked = []
    for c in scores.candidates.values():
        if own_only and not c.own and c.cosine is None:
            continue
        parts = {
            "lexical": _standard(c.lexical if c.lexical > 0 else None, scores.lexical_mean, scores.lexical_std),
            "cosine": _standard(c.cosine, scores.cosine_mean, scores.cosine_std),
        }
        fused = sum(HISTORY_WEIGHTS[name] * z for name, z in parts.items())
        ranked.append((c, fused, parts))
    # Ties (a lexical match below the mean, or no vectors at all): the lexical score,
    # the cosine, then the newest message.
    ranked.sort(key=lambda r: (-r[1], -r[0].lexical, -(r[0].cosine or 0.0), -r[0].sequence))
    ranked = [r for r in ranked if r[1] > 0 or r[0].lexical > 0][:limit]
    return [(c, fused, _seen_by(c, parts)) for c, fused, parts in ranked]


def _seen_by(c: _Candidate, parts: dict[str, float]) -> dict[str, float]:
    """The standard score of each signal that saw the message (matched it, or compared it)."""
    seen = {"lexical": c.lexical > 0, "cosine": c.cosine is not None}
    return {name: round(z, 2) for name, z in parts.items() if seen[name]}


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


def _across_languages(
    scores: _Scores, ranked: list[tuple[_Candidate, float, dict]], rows: dict, *, query: str, limit: int
) -> tuple[list[tuple[_Candidate, float, dict]], set[int]]:
    """``ranked`` with the messages nearest in meaning that are written in another language than
    ``query`` scored by their meaning for both signals, and which those are.

    In a chat that switches between English and Italian, "what franchise did I choose for next
    year?" shares no word with "alzo la franchigia a 2500 dal prossimo anno": its lexical score is
    nothing because of the language, not because it is unrelated, and the same-language chatter the
    words matched ranked above it. Such a message counts its cosine's standard score in the
    lexical one's place; in a chat of one language nothing moves.
    """
    asked_in = language.detect(query)
    other = {
        c.id
        for c in scores.candidates.values()
        if c.id in rows and c.lexical <= 0 and language.detect(rows[c.id].text) != asked_in
    }
    if not other:
        return ranked, other
    kept = [r for r in ranked if r[0].id not in other]
    for c in scores.candidates.values():
        if c.id in other:
            z = _standard(c.cosine, scores.cosine_mean, scores.cosine_std)
            if z > 0:
                kept.append((c, sum(HISTORY_WEIGHTS.values()) * z, {"cosine": round(z, 2)}))
    kept.sort(key=lambda r: (-r[1], -r[0].lexical, -(r[0].cosine or 0.0), -r[0].sequence))
    return kept[:limit], other


def _nearest_unmatched(scores: _Scores, ranked: list[tuple[_Candidate, float, dict]]) -> list[int]:
    """The ``ACROSS_LANGUAGES_POOL`` candidates nearest in meaning that no query word matched, not in ``ranked``."""
    listed = {c.id for c, _, _ in ranked}
    unmatched = [
        c for c in scores.candidates.values() if c.cosine is not None and c.lexical <= 0 and c.id not in listed
    ]
    unmatched.sort(key=lambda c: -(c.cosine or 0.0))
    return [c.id for c in unmatched[:ACROSS_LANGUAGES_POOL]]


def _history_hits(
    scores: _Scores, terms: list[str], limit: int, *, own_only: bool, also: list[str], query: str
) -> list[HistoryHit]:
    ranked = _rank_history(scores, limit, own_only=own_only)
    # The rows of the nearest unmatched messages are read with the hits' (one query): their language.
    rows = hit_rows(message_ids=[c.id for c, _, _ in ranked] + _nearest_unmatched(scores, ranked))
    ranked, other = _across_languages(scores, ranked, rows, query=query, limit=limit)
    return [
        HistoryHit(
            message_id=c.id,
            thread_id=c.thread_id,
            sequence=c.sequence,
            role=rows[c.id].role,
            created_at=rows[c.id].created_at,
            excerpt=_excerpt(rows[c.id].text, terms + also),
            score=score,
            signals=signals,
            word_share=min(1.0, c.coverage / max(1, len(terms))),
            cosine_margin=None if c.cosine is None else c.cosine - c.unrelated,
            asked=rows[c.id].asked,
            other_language=c.id in other,
        )
        for c, score, signals in ranked
        if c.id in rows
    ]


def _search_scope(
    *,
    scope_sql: str,
    scope_params: dict,
    query: str,
    before: int,
    limit: int,
    own_only: bool = False,
    lexical: _LexicalRows | None = None,
    kinds: bool = False,
) -> list[HistoryHit]:
    query = (query or "")[:MAX_QUERY_CHARS]
    terms = query_terms(query)
    if limit <= 0 or not terms:  # nothing but stop words: nothing to look for
        return []
    also = kind_terms(query) if kinds else []
    # The question is embedded in another thread while the lexical statement runs.
    question = embeddings.query_vector_soon(query[:MAX_QUERY_CHARS]) if embeddings.enabled() else None
    scores = _history_candidates(
        query=query,
        terms=terms,
        rows=lexical or _LexicalRows.of_scope(scope_sql),
        scope_params=scope_params,
        before=before,
        also=also,
    )
    _vector_candidates(question=question, scores=scores, scope_sql=scope_sql, scope_params=scope_params, before=before)
    return _history_hits(scores, terms, limit, own_only=own_only, also=also, query=query)


# What was said in a thread: the person's messages, the replies, correction notes. Tool
# calls (``[remember_fact] {"content": …}``) and tool results (``{"ok": true, …}``) are
# the agent's workings: quoted back to a model they are noise, and a reply that quoted
# them was read as an answer. The lexical statement leaves them out by the messages' own
# role and content. They have no vector (``conversations.embedding_services``), so the
# vectors are read by thread alone: looking up each vector's message to leave them out
# cost 8.5 of the scan's 14.5 ms on the 10,000-message thread (``EXPLAIN ANALYZE``).
_THREAD_VECTORS = "{t}.thread_id = %(thread)s"
_SAID_IN_THREAD_MESSAGES = """{t}.thread_id = %(thread)s AND {t}.role <> %(tool_role)s
    AND NOT {t}.content @> %(tool_use)s::jsonb"""


def search_history(
    *, thread: Thread, query: str, before_sequence: int | None = None, limit: int = 10, kinds: bool = False
) -> list[HistoryHit]:
    """Messages of ``thread`` (older than ``before_sequence`` when given) ranked for ``query``.

    Tool calls and tool results are not searched (``_SAID_IN_THREAD_MESSAGES``). ``kinds``: also
    the words that show one of the kinds the query names, or name the kind it shows one of
    (``liamemory.search_terms.kind_terms``: "my dog" / "he's a beagle"), as the context looks.

    Three queries at most: the lexical ranking, the nearest vectors, the hits' texts;
    the question is embedded meanwhile. On a long thread the lexical ranking reads the
    newest ``settings.HISTORY_LEXICAL_WINDOW`` messages and, before them, only those holding every query word.
    """
    return _search_scope(
        scope_sql=_THREAD_VECTORS,
        lexical=_LexicalRows.of_scope(_SAID_IN_THREAD_MESSAGES, settings.HISTORY_LEXICAL_WINDOW or None),
        scope_params={"thread": thread.pk, "tool_role": MessageRole.TOOL, "tool_use": TOOL_USE_CONTENT},
        query=query,
        before=before_sequence if before_sequence is not None else 2**31 - 1,
        limit=limit,
        kinds=kinds,
    )


def hits_beside(
    hits: list[HistoryHit], *, thread: Thread, query: str, before_sequence: int, reach: int
) -> dict[int, list[HistoryHit]]:
    """For each hit (by message id), what was said right after it and right before it, in that order.

    A hit is one side of an exchange: "Did you go?" is answered by the next message, and
    "Yes, to the pottery class" needs the question before it. The nearest message the
    person or the assistant wrote on each side within ``reach`` sequences (a tool call
    and its result may sit between), older than ``before_sequence``. One query.
    """
    wanted = {
        h.sequence + step
        for h in hits
        for step in range(-reach, reach + 1)
        if step and 0 < h.sequence + step < before_sequence
    }
    rows = said_rows_at(thread=thread, sequences=sorted(wanted))
    terms = query_terms((query or "")[:MAX_QUERY_CHARS])
    out: dict[int, list[HistoryHit]] = {}
    for hit in hits:
        after = next((rows[s] for s in range(hit.sequence + 1, hit.sequence + reach + 1) if s in rows), None)
        before = next((rows[s] for s in range(hit.sequence - 1, hit.sequence - reach - 1, -1) if s in rows), None)
        out[hit.message_id] = [
            HistoryHit(
                message_id=said.message_id,
                thread_id=thread.pk,
                sequence=said.sequence,
                role=said.row.role,
                created_at=said.row.created_at,
                excerpt=_excerpt(said.row.text, terms),
                score=0.0,
                asked=said.row.asked,
            )
            for said in (after, before)
            if said is not None
        ]
    return out


# The messages a person searches in their own conversations: what they wrote and the
# replies they read. Tool calls (``[recall_facts] {"query": ""}``), tool results and
# system notes are the agent's workings, stored as text for the agent's own
# ``search_history``, and meaningless in a person's list. The clause names a message by
# (thread, sequence), which both the messages and their embeddings carry.
_PEOPLES_MESSAGES = """({t}.thread_id, {t}.sequence) IN (
    SELECT x.thread_id, x.sequence
    FROM conversations_message x JOIN conversations_thread th ON th.id = x.thread_id
    WHERE th.owner_id = %(owner)s AND x.role = ANY (%(people_roles)s::text[])
      AND NOT x.content @> %(tool_use)s::jsonb
)"""
# A person's search lists only messages that hold one of the query's content words
# themselves, or whose embedding is this much closer to the query than everyday unrelated
# statements are (``HistoryHit.cosine_margin``): a word said nowhere ("xylophone") finds
# nothing rather than the least unrelated chit-chat. The standard scores cannot serve as
# the floor: within a scope someone always stands above the mean. Chosen on a small
# probe (tests/conversations/test_search.py's chit-chat): words said nowhere ("xylophone",
# "trumpet lessons", "quantum chromodynamics") reached margins up to 0.05, paraphrases
# of what was said ("Who is my physician?" -> "My new GP is Dr. Okafor", "delivery to my
# sibling" -> the parcel sent to the sister) 0.08 to 0.085.
THREAD_SEARCH_COSINE_FLOOR = 0.07
# The same floor serves the context's excerpts (``usecases.turn.context``): relevant in itself.
RELEVANCE_COSINE_FLOOR = THREAD_SEARCH_COSINE_FLOOR
# Across languages e5-small's cosines sit lower: on the development chats that switch between
# English and Italian (w53), the person's facts asked in the other language stood 0.047-0.066 above
# unrelated statements, where paraphrases in one language stand 0.08 and more. A message written in
# another language than the question (``HistoryHit.other_language``) needs this much.
ACROSS_LANGUAGES_COSINE_FLOOR = 0.04


def cosine_floor(hit: HistoryHit) -> float:
    """How far above unrelated statements ``hit``'s meaning must stand to be relevant in itself."""
    return ACROSS_LANGUAGES_COSINE_FLOOR if hit.other_language else RELEVANCE_COSINE_FLOOR


def search_threads(
    *, user: AbstractBaseUser, query: str, limit: int = 20, thread: Thread | None = None
) -> list[HistoryHit]:
    """What the user wrote and the replies, across all their threads (or in ``thread``), ranked for ``query``.

    IDF is over all of them. The person reads these hits in a list: a message that only
    its neighbours matched (no query word of its own, no vector compared) is left out,
    where the agent's ``search_history`` keeps it, and so is one below the relevance
    floor (``THREAD_SEARCH_COSINE_FLOOR``). One thread's search (``thread``, one of the
    user's) follows the same rules over that thread only.
    """
    scope_params = {
        "owner": user.pk,
        "people_roles": [MessageRole.USER, MessageRole.ASSISTANT],
        "tool_use": TOOL_USE_CONTENT,
    }
    scope_sql = _PEOPLES_MESSAGES
    if thread is not None:
        scope_sql = "{t}.thread_id = %(thread)s AND " + _PEOPLES_MESSAGES
        scope_params["thread"] = thread.pk
    hits = _search_scope(
        scope_sql=scope_sql,
        scope_params=scope_params,
        query=query,
        before=2**31 - 1,
        limit=limit,
        own_only=True,
    )
    return [h for h in hits if _relevant_to_a_person(h)]


# A person's other conversations, for the context of this one: what they wrote and the
# replies, never an incognito conversation (nothing of it is remembered) nor this one.
_OTHER_THREAD = "th.owner_id = %(owner)s AND th.id <> %(this)s AND NOT th.incognito"
_SAID_BY_PEOPLE = "x.role = ANY (%(people_roles)s::text[]) AND NOT x.content @> %(tool_use)s::jsonb"
_OTHER_THREADS = f"""({{t}}.thread_id, {{t}}.sequence) IN (
    SELECT x.thread_id, x.sequence
    FROM conversations_message x JOIN conversations_thread th ON th.id = x.thread_id
    WHERE {_OTHER_THREAD} AND {_SAID_BY_PEOPLE}
)"""


def _other_threads_rows() -> _LexicalRows:
    """The lexical rows of a person's other conversations: their newest ``HISTORY_LEXICAL_WINDOW``
    messages there and the older ones holding every query word (all of them without the setting)."""
    window = settings.HISTORY_LEXICAL_WINDOW or None
    if not window:
        return _LexicalRows.of_scope(_OTHER_THREADS)
    return _LexicalRows(
        recent=sql.RECENT_IN_THREADS.format(threads=_OTHER_THREAD, said=_SAID_BY_PEOPLE),
        older=sql.OLDER_ROWS.format(rows=sql.OLDER_IN_THREADS.format(threads=_OTHER_THREAD, said=_SAID_BY_PEOPLE)),
        window=window,
    )


def search_other_threads(*, user: AbstractBaseUser, thread: Thread, query: str, limit: int = 10) -> list[HistoryHit]:
    """What ``user`` wrote in their other conversations (not ``thread``, never an incognito one) about ``query``.

    The person's own words only: a reply elsewhere is an echo of them at best, and may
    quote what was since forgotten ("Done, I've forgotten: …"). The rules of the person's
    own search (``search_threads``): a hit holds a query word or is close in meaning;
    then filler out (``informative_hits``). Whether long-term memory allows looking at
    all, and what was forgotten, are the caller's to decide.
    """
    hits = _search_scope(
        scope_sql=_OTHER_THREADS,
        lexical=_other_threads_rows(),
        scope_params={
            "owner": user.pk,
            "this": thread.pk,
            "people_roles": [MessageRole.USER],
            "tool_use": TOOL_USE_CONTENT,
        },
        query=query,
        before=2**31 - 1,
        limit=limit * 3,
        own_only=True,
        kinds=True,
    )
    relevant = [h for h in hits if _relevant_to_a_person(h, floor=cosine_floor(h))]
    return informative_hits(relevant, query=query, limit=limit)


def _relevant_to_a_person(hit: HistoryHit, *, floor: float = THREAD_SEARCH_COSINE_FLOOR) -> bool:
    """The floor of a person's search: a query word of its own, or a meaning well above chit-chat's.

    A hit by meaning alone must also carry something (``conversations.informative``): a
    refusal ("I don't have information about that") or a bare question sits close to
    any question, so "Did I ever mention a xylophone?" found the assistant's "I don't
    know" in a chat that never named one. An assistant's reply is listed by its words
    only: by meaning, the way it recounts ("From what you told me: …") sits close to any
    "have I told you about …?", and what it recounts is the person's own message, which
    the search finds itself.
    """
    if hit.word_share > 0:
        return True
    if hit.role != MessageRole.USER:
        return False
    if hit.cosine_margin is None or hit.cosine_margin < floor:
        return False
    return not carries_nothing(hit.excerpt, role=hit.role, asked=hit.asked or "")


def informative_hits(hits: list[HistoryHit], *, query: str = "", limit: int | None = None) -> list[HistoryHit]:
    """``hits`` without filler, in their order: what is worth quoting back to a model.

    Left out: a reply that carries nothing (a refusal, "I don't know", a restatement of
    the message it answers: ``conversations.informative``), a row near-identical to the
    query or to a row kept before it, except that the person's own words replace a
    reply that quoted them. No query for the hits of this module's searches (they carry
    what each reply answers); one for hits built elsewhere.

    ``limit``: only the first ``limit`` of them are wanted. Once that many are kept, a later
    hit can only change them by replacing a reply with the person's own words, so only such
    a hit is read further: the same rows as the whole list cut to ``limit``, without judging
    every hit of a 50-hit pool (5 ms of CPU a context on the generated long threads).
    """
    unread = [h.message_id for h in hits if h.role == MessageRole.ASSISTANT and h.asked is None]
    asked = asked_before(message_ids=unread)

    def filler(hit: HistoryHit) -> bool:
        answered = asked.get(hit.message_id, hit.asked or "")
        return carries_nothing(hit.excerpt, role=hit.role, asked=answered) or bool(
            query and near_identical(hit.excerpt, query)
        )

    kept: list[HistoryHit] = []
    for hit in hits:
        full = limit is not None and len(kept) >= limit
        if full and hit.role != MessageRole.USER:
            continue
        if not full and filler(hit):
            continue
        twin = next((i for i, k in enumerate(kept) if near_identical(k.excerpt, hit.excerpt)), None)
        if twin is None:
            if not full:
                kept.append(hit)
        elif kept[twin].role != MessageRole.USER and hit.role == MessageRole.USER and not (full and filler(hit)):
            kept[twin] = hit
    return kept
