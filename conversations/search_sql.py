"""The SQL of the history search (``conversations.search``; kept apart so the ranking logic reads short).

Every value is a parameter; only fixed clauses chosen by ``conversations.search`` are
formatted in.
"""

# One statement: the lexical score of every message of the scope that matches a query
# word or sits beside one that does. Each message is scored as a small document made of
# itself and, at half weight, its previous and next message in the scope (``%(nb)s``):
# a question often matches the exchange, not one side of it ("Did you go?" / "Yes, to
# the pottery class"), so the turn holding the answer is found through its neighbour's
# words while a turn that holds the words itself still scores highest. Per query word
# (and per date word: a month, a year, a weekday the question names, matched against
# the message's ``created_at`` in the installation's time zone) the window's weighted
# term frequency goes through BM25 with IDF from per-message document frequencies and
# length normalisation by the window's weighted length; ``own`` says whether the
# message itself holds a query word (or date), ``coverage`` how many distinct query
# words it holds. The scope clause is fixed SQL
# chosen by the caller ("{t}" is the table's alias); every value is a parameter.
# ``terms`` is MATERIALIZED, or each query word is stemmed again for every word of every
# candidate (260 ms on a 419-message thread). ``stats`` is MATERIALIZED: inlined, the
# planner recomputed the scope's aggregate per candidate (850 ms instead of 50 ms on a
# 2,000-message thread, bench/README.md). ``{matched}`` is ``MATCHED_ROWS`` (or ``NEWEST_HITS``)
# over ``{recent}``, the rows read in full, and
# ``{older}`` the older ones added: every row of the scope and nothing (``NO_OLDER_ROWS``) for a person's
# search over their threads; one thread's search bounds them with ``RECENT_WINDOW`` and
# ``OLDER_IN_THREAD``, the context's look at a person's other conversations with
# ``RECENT_IN_THREADS`` and ``OLDER_IN_THREADS`` (below; both older ones in ``OLDER_ROWS``).
# Each row of ``{recent}`` carries its neighbours (id, sequence, document length) from the
# window functions (``{partition}``: by thread, or nothing for one thread, whose rows then
# come in index order and need no sort) and its words only if it matches a query word, so
# a candidate's words are credited to itself and to its neighbours without joining the
# rows back by row number: that join, its sorts, copying every row's words twice and
# unnesting every word of every candidate cost a quarter of the statement on a
# 3,000-message window (bench/README.md, "The lexical statement, cheaper"). Only the
# query's lexemes of a candidate are unnested (``ts_filter`` of the ones ``setweight``
# marked). Lengths are float8 (hashing and summing numeric was a sixth of it).
# Also returned: the sum and the sum of squares of all scores (``conversations.search``
# standardises the scores with them) and the scope's size.
HISTORY_SQL = """
WITH
terms AS MATERIALIZED (
    SELECT DISTINCT t.ord, l.lexeme
    FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
    CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', t.term) || to_tsvector('italian', t.term)))
         AS l(lexeme)
),
lexemes AS MATERIALIZED (
    SELECT array_agg(DISTINCT lexeme) AS a FROM terms
),
q AS (
    SELECT to_tsquery('english', %(tsq)s) || to_tsquery('italian', %(tsq)s) AS qm
),
recent AS (
    SELECT r.id, r.thread_id, r.sequence, r.created_at, r.hit,
           CASE WHEN r.hit THEN r.search_stem END AS search_stem,
           r.len + %(nb)s::float * (coalesce(lag(r.len) OVER w, 0) + coalesce(lead(r.len) OVER w, 0)) AS dl,
           lag(r.id) OVER w AS prev_id, lag(r.sequence) OVER w AS prev_seq,
           lag(r.len) OVER w + %(nb)s::float * (coalesce(lag(r.len, 2) OVER w, 0) + r.len) AS prev_dl,
           lead(r.id) OVER w AS next_id, lead(r.sequence) OVER w AS next_seq,
           lead(r.len) OVER w + %(nb)s::float * (coalesce(lead(r.len, 2) OVER w, 0) + r.len) AS next_dl
    FROM ({matched}) r
    WINDOW w AS ({partition} ORDER BY r.sequence DESC)
),
older AS (
    SELECT o.id, o.thread_id, o.sequence, o.created_at, o.search_stem,
           length(o.search_stem) * (1 + 2 * %(nb)s::float) AS dl
    FROM ({older}) o
),
stats AS MATERIALIZED (
    SELECT count(*)::float AS n, greatest(avg(s.dl), 1)::float AS avg_dl
    FROM (SELECT dl FROM recent UNION ALL SELECT dl FROM older) s
),
cand AS MATERIALIZED (
    SELECT r.id, r.thread_id, r.sequence, r.created_at, r.search_stem, r.dl,
           r.prev_id, r.prev_seq, r.prev_dl, r.next_id, r.next_seq, r.next_dl
    FROM recent r
    WHERE r.hit
    UNION ALL
    SELECT o.id, o.thread_id, o.sequence, o.created_at, o.search_stem, o.dl, NULL, NULL, NULL, NULL, NULL, NULL
    FROM older o, q
    WHERE o.search_stem @@ q.qm
),
tf AS (
    SELECT c.id, t.ord, coalesce(max(array_length(u.positions, 1)), 1)::float AS tf
    FROM cand c CROSS JOIN lexemes
    CROSS JOIN LATERAL unnest(ts_filter(setweight(c.search_stem, 'A', lexemes.a), '{{a}}')) u
    JOIN terms t ON u.lexeme = t.lexeme
    GROUP BY c.id, t.ord
    UNION ALL
    SELECT c.id, 1000 + d.ord, 1.0::float
    FROM cand c
    JOIN unnest(%(date_parts)s::text[], %(date_values)s::int[]) WITH ORDINALITY AS d(part, value, ord)
      ON date_part(d.part, c.created_at AT TIME ZONE %(tz)s) = d.value
),
df AS (
    SELECT ord, ln(1 + (stats.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf
    FROM tf CROSS JOIN stats GROUP BY ord, stats.n
),
win AS (
    SELECT x.id, c.thread_id, x.sequence, x.dl, tf.ord, sum(x.w * tf.tf) AS tf, bool_or(x.own) AS own
    FROM tf JOIN cand c ON c.id = tf.id
    CROSS JOIN LATERAL (VALUES (c.id, c.sequence, c.dl, 1.0::float, true),
                               (c.prev_id, c.prev_seq, c.prev_dl, %(nb)s::float, false),
                               (c.next_id, c.next_seq, c.next_dl, %(nb)s::float, false)) AS x(id, sequence, dl, w, own)
    WHERE x.id IS NOT NULL
    GROUP BY x.id, c.thread_id, x.sequence, x.dl, tf.ord
),
bm25 AS (
    SELECT w.id, w.thread_id, w.sequence, bool_or(w.own) AS own,
           count(*) FILTER (WHERE w.own AND w.ord < 1000) AS coverage,
           sum(df.idf * w.tf * (%(k1)s + 1)
               / (w.tf + %(k1)s * (1 - %(b)s + %(b)s * w.dl / stats.avg_dl))) AS score
    FROM win w
    JOIN df USING (ord)
    CROSS JOIN stats
    GROUP BY w.id, w.thread_id, w.sequence
)
SELECT b.id, b.thread_id, b.sequence, b.score, b.own, b.coverage,
       sum(b.score) OVER () AS s1, sum(b.score * b.score) OVER () AS s2, stats.n
FROM bm25 b CROSS JOIN stats
ORDER BY b.score DESC, b.sequence DESC
LIMIT %(pool)s
"""

# The rows ``HISTORY_SQL`` reads in full (its ``{recent}``): every message of the scope
# (``{window}`` empty, ``{partition}`` ``BY_THREAD``), or one thread's newest ``%(window)s``
# (``RECENT_WINDOW``, newest first as the window functions read them), so
# that the statement costs the same on a thread of 100,000 messages as on one of a few
# thousand: reading every row to number it and measure its neighbours took 1-2 s there
# (bench/README.md, "Long threads"). Of that window, only the rows as old as its
# ``%(hits)s``-th newest row holding a query word, when it has that many (``NEWEST_HITS``):
# the statement's cost grows with the rows it scores (each one's words, its neighbours, its
# BM25 sum), and a question of common words matched 1,118 of the 3,000 (bench/README.md, "The
# lexical candidates bounded"); a question of rarer words still reads the whole window.
SCOPE_ROWS = """
    SELECT m.id, m.thread_id, m.sequence, m.created_at, m.search_stem
    FROM conversations_message m
    WHERE {scope} AND m.sequence < %(before)s AND m.text <> ''
    {window}
"""
RECENT_WINDOW = "ORDER BY m.sequence DESC LIMIT %(window)s"
# ``HISTORY_SQL``'s ``{matched}``: the rows of ``{recent}`` with their length and whether each
# holds a query word.
MATCHED_ROWS = """SELECT x.*, length(x.search_stem) AS len, x.search_stem @@ (SELECT qm FROM q) AS hit
    FROM ({recent}) x"""
# One thread's window (``RECENT_WINDOW``) scored back to its ``%(hits)s``-th newest row holding a
# query word, when it has that many (``{matched}``: ``MATCHED_ROWS``, newest first): the rows
# older than that one are left to ``OLDER_IN_THREAD``.
NEWEST_HITS = """SELECT y.* FROM (
        SELECT z.*, count(*) FILTER (WHERE z.hit) OVER (ORDER BY z.sequence DESC ROWS UNBOUNDED PRECEDING) AS seen
        FROM ({matched}) z
    ) y
    WHERE y.seen - y.hit::int < %(hits)s"""
# The window functions' ``{partition}`` where the rows may come from several threads.
BY_THREAD = "PARTITION BY r.thread_id"
# Before that window, the GIN index finds the messages that hold every query word (in
# English or Italian stemming): an order code or a name said long ago is still found,
# without reading the rows that share only a common word with the question. They come
# apart from the window and from each other (no neighbours: their order there changes no
# score), their length counted as if their neighbours were as long as they are; the newest
# ``%(older)s`` of them at most, chosen by ``{rows}``: ``OLDER_IN_THREAD`` or ``OLDER_IN_THREADS``.
OLDER_ROWS = """{rows}
        LIMIT %(older)s"""
# ``HISTORY_SQL``'s ``{older}`` where there is no window: no rows.
NO_OLDER_ROWS = """
        SELECT m.id, m.thread_id, m.sequence, m.created_at, m.search_stem
        FROM conversations_message m
        WHERE false"""
# Holds every query word (``%(tsq_all)s``), in either stemming.
_EVERY_WORD = "search_stem @@ (to_tsquery('english', %(tsq_all)s) || to_tsquery('italian', %(tsq_all)s))"
# One thread's rows older than its window (``RECENT_WINDOW``).
OLDER_IN_THREAD = f"""
        SELECT m.id, m.thread_id, m.sequence, m.created_at, m.search_stem
        FROM conversations_message m
        WHERE {{scope}} AND m.text <> ''
          AND m.sequence < (SELECT coalesce(min(r.sequence), 0) FROM recent r)
          AND m.{_EVERY_WORD}
        ORDER BY m.sequence DESC"""

# A person's other conversations (the context of a new one): their newest ``%(window)s``
# messages there, taken thread by thread from the most recently active one, each
# thread's newest by the (thread, sequence) index, so that the statement reads about
# ``%(window)s`` rows whether the person wrote a few hundred messages or 100,000 in an
# old thread (reading them all took 0.3-1.5 s a context for the person of ``bench.overhead``,
# who owns threads of 100, 10,000 and 100,000 messages).
# ``{threads}`` names the conversations (alias ``th``), ``{said}`` the messages of one
# (alias ``x``); older rows come as for one thread (``OLDER_IN_THREADS``).
RECENT_IN_THREADS = """
    SELECT m.id, m.thread_id, m.sequence, m.created_at, m.search_stem
    FROM conversations_thread th
    CROSS JOIN LATERAL (
        SELECT x.id, x.thread_id, x.sequence, x.created_at, x.search_stem
        FROM conversations_message x
        WHERE x.thread_id = th.id AND {said} AND x.text <> ''
        ORDER BY x.sequence DESC
        LIMIT %(window)s
    ) m
    WHERE {threads}
    ORDER BY th.last_activity_at DESC, m.sequence DESC
    LIMIT %(window)s
"""
# The rows of those conversations outside that window (``RECENT_IN_THREADS``).
OLDER_IN_THREADS = f"""
        SELECT x.id, x.thread_id, x.sequence, x.created_at, x.search_stem
        FROM conversations_message x JOIN conversations_thread th ON th.id = x.thread_id
        WHERE {{threads}} AND {{said}} AND x.text <> ''
          AND x.{_EVERY_WORD}
          AND NOT EXISTS (SELECT 1 FROM recent r WHERE r.id = x.id)
        ORDER BY x.id DESC"""
