"""Contradiction benchmark: does a new memory supersede an older one? (``python -m bench.contradictions``)

Scores ``memories.matching.compare`` (the offline rule the memory services use) on a
labelled set of statement pairs, English and Italian: hand-written pairs (a ``dev``
half the rule was developed on, a ``heldout`` half only scored) and pairs generated
from templates (``generate.py``). Prints, per subset, the precision and recall of
"supersedes", the wrong supersessions (pairs that should both stay, or be a
restatement, that the rule superseded), and the same for today's rule (``--baseline``
shows the rule the services used before: trigram subject similarity plus a changed
identifier or negation). No database, no model: pure Python, about a second.
"""
