"""The SQL statements of ``memories.retrieval`` (kept apart so the ranking logic reads short).

Every value is a parameter; only fixed clauses chosen by ``memories.retrieval`` are
formatted in.
"""

# One statement: per-scope statistics, candidates matching any query word, per-word
# term frequencies from the stored tsvectors, document frequencies, BM25. The scope
# clause is fixed SQL chosen by the caller ("{t}" is the table's alias); every value is a
# parameter. ``stats`` is MATERIALIZED: referenced once, it would be inlined, and the
# planner (misestimating the tf/df/cand join at one row) recomputed the thread's
# aggregate for every candidate and term — 850 ms instead of 50 ms on a 2,000-message
# thread (bench/README.md, "Retrieval latency").
HISTORY_SQL = """
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
    SELECT m.id, m.thread_id, m.sequence, m.text, m.search_simple, m.search_stem
    FROM conversations_message m
    WHERE {scope} AND m.sequence < %(before)s AND m.text <> ''
),
stats AS MATERIALIZED (
    SELECT count(*)::float AS n,
           greatest(avg(length(search_simple)), 1)::float AS avg_s,
           greatest(avg(length(search_stem)), 1)::float AS avg_m
    FROM scope
),
cand AS (
    SELECT s.id, s.thread_id, s.sequence, s.text, s.search_simple, s.search_stem,
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
SELECT c.id, c.thread_id, c.sequence, bm25.bm25_s, bm25.bm25_m, bm25.coverage,
       word_similarity(%(qtext)s, c.text) AS trigram
FROM bm25 JOIN cand c ON c.id = bm25.id
ORDER BY bm25.bm25_m + bm25.bm25_s DESC, c.sequence DESC
LIMIT %(pool)s
"""


# One statement of two parts. The first: the user's visible memories that match a
# query word (GIN indexes on the stored tsvectors) or the content words by trigram word
# similarity (the trigram GIN index, through ``<%``), with their lexical signals. The
# second, when embeddings are on: the newest of their memories whose vector is current
# (its hash matches the content). A memory may come from both parts; Python merges.
# Each part keeps the most recently updated rows (there is no index on updated_at, so
# the planner filters by user and match first and never walks a big index in order).
# ts_rank without length normalisation suits facts of similar length.
MEMORY_VISIBLE = """
    m.user_id = %(user)s AND m.status = %(status)s
    AND (m.expires_at IS NULL OR m.expires_at > clock_timestamp())
    AND (%(kinds)s::text[] IS NULL OR m.kind = ANY (%(kinds)s::text[]))
"""
MEMORY_SQL = f"""
(SELECT m.id,
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
 WHERE {MEMORY_VISIBLE}
   AND (m.search_simple @@ q.qs OR m.search_stem @@ q.qm OR %(qtext)s <%% m.content)
 ORDER BY m.updated_at DESC
 LIMIT %(pool)s)
UNION ALL
(SELECT m.id, 0, 0, 0, 0, e.vector
 FROM memories_memory m JOIN memories_memoryembedding e ON e.memory_id = m.id
 WHERE %(vectors)s AND {MEMORY_VISIBLE}
   AND e.model = %(model)s AND e.content_md5 = md5(m.content)
 ORDER BY m.updated_at DESC
 LIMIT %(scan)s)
"""
