"""``python -m bench.productchat.facts_model [--vector-cache PATH]``: a learned fact detector, judged honestly.

Could a small model over the labelled turns do what the phrase grammar of
``usecases.turn.offline_facts`` has not: hold on writers it was not written from? This
fits one leave-one-writer-out over every development writer and prints it beside the
rules, as a veto on the rules' stores (precision) and as an add to them (recall); it
ships nothing.

The model is a logistic regression (numpy, L2, each writer weighed equally) over the
turn's e5 query vector (what the product computes for the person's message when it builds
the context, so it would cost nothing at run time) and a few signals of who the sentence
is about and how it is said (the rules' verdict, a question mark, a first-person or a
possessive opening, a digit, a name, someone beyond the household, an opinion word, the
length). Two fits: on every statement-like turn ("all turns"), and on the turns the rules
store only ("stores only", the veto's own population). Each writer's scores come from a
model fitted on the other writers. The thresholds are a fixed grid of probabilities, not
chosen on anyone; the last lines say, for each, how many writers keep precision >= 0.95 and
whether any reaches it on every writer (a threshold chosen nested, without the judged
writer, can only do worse than the best of the grid in hindsight).

Embedding the ~12,000 turns takes a few minutes (about two on a quiet machine);
``--vector-cache`` keeps them between runs (a .npy file, rebuilt when the turns change).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

from bench.productchat.data import load_split
from bench.productchat.facts import ASKED
from liamemory import embeddings, language
from usecases.turn.offline_facts import stable_fact

# L2 penalty on the standardised weights: the vector has 384 of them.
PENALTY = 100.0
# The hand signals weigh this much against one vector dimension once standardised.
SIGNAL_WEIGHT = 3.0
NEWTON_STEPS = 12
# Each fold starts from the fit on every writer, so a few steps reach its optimum.
FOLD_STEPS = 4
TARGET = 0.95
# Probabilities at which the veto keeps a rules' store, and at which the add stores a turn the rules do not.
VETO_AT = (0.5, 0.73, 0.88, 0.95)
ADD_AT = (0.95, 0.98, 0.99)

_OPENS_FIRST_PERSON = re.compile(
    r"^\W*(?:\w+\W+){0,3}(?:i|i'm|im|i've|ive|we|we're|we've|io|sono|ho|abbiamo|siamo)\b", re.I
)
_POSSESSIVE = re.compile(language.any_word("POSSESSIVES"), re.I)
_FAR = re.compile(rf"\b(?:{language.alternation('FAR_RELATIONS')})\b", re.I)
_NAME_INSIDE = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_OPINION = re.compile(r"\b(?:i think|i feel|i love|i hate|lol|haha|ahah|ugh|secondo me|penso che)\b", re.I)


def signals(text: str) -> list[float]:
    """Who the sentence is about and how it is said: the few hand features beside the vector."""
    return [
        float(stable_fact(text) is not None),
        float("?" in text),
        float(bool(_OPENS_FIRST_PERSON.search(text))),
        float(bool(_POSSESSIVE.search(text))),
        float(bool(re.search(r"\d", text))),
        float(bool(_NAME_INSIDE.search(text))),
        float(bool(_FAR.search(text))),
        min(len(text.split()), 60) / 60,
        float(bool(_OPINION.search(text))),
    ]


def load_turns() -> tuple[list[str], list[str], np.ndarray]:
    """Every statement-like development turn: its writer, its text, and whether it is to be stored."""
    writers, texts, labels = [], [], []
    for chat in load_split("dev"):
        for turn in chat.turns:
            if turn.kind in ASKED:
                continue
            writers.append(chat.writer)
            texts.append(turn.text)
            labels.append(turn.store)
    return writers, texts, np.asarray(labels, dtype=bool)


def vectors(texts: list[str], cache: Path | None) -> np.ndarray:
    """The e5 query vector of each text, as the product embeds the person's message."""
    if cache is not None and cache.exists():
        cached = np.load(cache)
        if cached.shape == (len(texts), embeddings.DIM):
            return cached
    found = np.stack([embeddings.query_vector(t) for t in texts]).astype(np.float32)
    if cache is not None:
        np.save(cache, found)
    return found


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Weighted L2 logistic regression by Newton's method (from ``start``); the last coefficient is the bias."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    ridge = PENALTY * np.diag(np.r_[np.ones(x.shape[1]), 0.0])
    beta = np.zeros(xb.shape[1]) if start is None else start.copy()
    for _ in range(NEWTON_STEPS if start is None else FOLD_STEPS):
        p = 1 / (1 + np.exp(-xb @ beta))
        gradient = xb.T @ (weight * (p - y)) + ridge @ beta
        hessian = (xb * (weight * p * (1 - p))[:, None]).T @ xb + ridge
        beta -= np.linalg.solve(hessian, gradient)
    return beta


def writer_weights(writers: np.ndarray) -> np.ndarray:
    """Each writer counts the same, however many turns it wrote."""
    names, counts = np.unique(writers, return_counts=True)
    per = dict(zip(names, len(writers) / (len(names) * counts), strict=True))
    return np.asarray([per[w] for w in writers])


def held_out_scores(x: np.ndarray, y: np.ndarray, writers: np.ndarray) -> np.ndarray:
    """Each turn's probability from a model fitted on the other writers' turns only."""
    everyone = fit(x, y.astype(float), writer_weights(writers))
    scores = np.zeros(len(y))
    for held in np.unique(writers):
        train = writers != held
        beta = fit(x[train], y[train].astype(float), writer_weights(writers[train]), start=everyone)
        scores[~train] = x[~train] @ beta[:-1] + beta[-1]
    return 1 / (1 + np.exp(-scores))


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """The chance that a turn to store scores above one not to (ties aside)."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores)] = np.arange(len(scores))
    right, wrong = int(y.sum()), int((~y).sum())
    return float((ranks[y].sum() - right * (right - 1) / 2) / (right * wrong))


def line(name: str, stored: np.ndarray, y: np.ndarray, writers: np.ndarray) -> tuple[str, int]:
    """Precision / recall per writer; and how many writers reach the target precision."""
    cells, reached = [], 0
    for w in sorted(set(writers), key=lambda s: int(s[1:])):
        m = writers == w
        right, n = int((stored & y & m).sum()), int((stored & m).sum())
        precision = right / n if n else 0.0
        reached += precision >= TARGET
        cells.append(f"{w} {precision:.2f}/{right / int((y & m).sum()):.2f}")
    right, n = int((stored & y).sum()), int(stored.sum())
    cells.append(f"all {right / n:.2f}/{right / int(y.sum()):.2f} ({n} stored, {n - right} wrong)")
    return f"{name:22} " + "  ".join(cells), reached


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vector-cache", type=Path, default=None, help="a .npy file to keep the turns' vectors in")
    args = parser.parse_args(argv)
    names, texts, y = load_turns()
    writers = np.asarray(names)
    x = np.hstack([vectors(texts, args.vector_cache), SIGNAL_WEIGHT * np.asarray([signals(t) for t in texts])])
    keep = x.std(axis=0) > 0
    x = (x[:, keep] - x[:, keep].mean(axis=0)) / x[:, keep].std(axis=0)
    rules = np.asarray([stable_fact(t) is not None for t in texts])
    every = held_out_scores(x, y, writers)
    only = np.zeros(len(y))
    only[rules] = held_out_scores(x[rules], y[rules], writers[rules])
    print(f"{len(y)} turns, {int(y.sum())} to store, {len(set(names))} writers; figures are leave-one-writer-out")
    among = f"all-turns model {auc(every[rules], y[rules]):.3f}, stores-only model {auc(only[rules], y[rules]):.3f}"
    print(f"AUC, all turns: {auc(every, y):.3f}; among the rules' stores: {among}")
    print("precision/recall per writer (recall over every turn to store)")
    ways = {"rules": rules}
    ways |= {f"veto p>={p} (all turns)": rules & (every >= p) for p in VETO_AT}
    ways |= {f"veto p>={p} (stores)": rules & (only >= p) for p in VETO_AT}
    ways |= {f"add p>={p}": rules | (every >= p) for p in ADD_AT}
    reached = {}
    for name, stored in ways.items():
        text, reached[name] = line(name, stored, y, writers)
        print(text)
    print(f"writers at precision >= {TARGET}: " + ", ".join(f"{k} {v}" for k, v in reached.items()))
    every_writer = [k for k, v in reached.items() if v == len(set(names))]
    print(f"precision >= {TARGET} on every writer: {', '.join(every_writer) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
