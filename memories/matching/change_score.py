"""How strongly a new statement reads as a change of a close older one: a learned score.

The change test in ``memories.matching.change`` asks for phrases ("no longer", "sold",
"turned"); outside writers say changes in ways no list holds ("the movers dropped the
last boxes at our flat in Turin", "so tre mesi che nn tocco una sigaretta"). This score
weighs, with one logistic regression:

- the e5 vector of the new statement and its difference from the old one's (multilingual:
  what "a change happened" looks like in meaning, and what the new one says that the old
  one did not, whatever the words and the language);
- a few general signals of the pair: closeness in meaning, shared words, the values each
  gives (numbers, names) and whether the new one keeps the old ones, a negation flipped,
  someone else or one more item named, and the rules' own verdict.

The weights are fitted by ``python -m bench.contradictions.train`` on the labelled sets,
each writer weighed equally, and its threshold is chosen on scores of writers left out
of the fit (leave-one-writer-out) so that wrong supersessions stay near 1 %. It only adds
supersessions to the rules' (whose own are kept), never about someone else or one more
item. The weights are data (``change_weights.json``), written by that command, never
edited by hand, and shipped only when that command's leave-one-writer-out figures beat
the rules on every writer (none are shipped today: ``bench/README.md``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memories.matching import analyse, trigram_similarity, values_in

WEIGHTS = Path(__file__).with_name("change_weights.json")

# Below this closeness two statements are not about the same thing, whatever the score
# (the labelled changes' lowest cosine is 0.75; a person's unrelated memories sit lower).
FLOOR = 0.75

FEATURES = (
    "closeness",
    "trigram",
    "subject_trigram",
    "shared_words",
    "new_has_cue",
    "new_has_end",
    "negation_flipped",
    "denies_old_value",
    "someone_else",
    "one_more",
    "values_disjoint",
    "old_values_kept",
    "numbers_disjoint",
    "length_ratio",
    "speaks_of_self",
    "rules_supersede",
)


@dataclass(frozen=True)
class ScoreModel:
    """A fitted score: standardised features and the pair's vector (``pair_vector``), weighed."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # len(FEATURES) + twice the vector dimension
    bias: float
    # At or above it the score supersedes what the rules left side by side.
    threshold: float
    note: str = ""

    def score(self, features: np.ndarray, vector: np.ndarray) -> float:
        z = (np.concatenate([features, vector]) - self.mean) / self.scale
        return float(z @ self.weights + self.bias)

    def as_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "mean": [round(float(x), 6) for x in self.mean],
            "scale": [round(float(x), 6) for x in self.scale],
            "weights": [round(float(x), 6) for x in self.weights],
            "bias": round(self.bias, 6),
            "threshold": round(self.threshold, 6),
            "note": self.note,
        }


@cache
def shipped() -> ScoreModel | None:
    """The fitted model committed beside this module; None if absent or for other features."""
    if not WEIGHTS.exists():
        return None
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    if tuple(data.get("features", ())) != FEATURES:
        return None
    return ScoreModel(
        mean=np.asarray(data["mean"], dtype=np.float64),
        scale=np.asarray(data["scale"], dtype=np.float64),
        weights=np.asarray(data["weights"], dtype=np.float64),
        bias=float(data["bias"]),
        threshold=float(data["threshold"]),
        note=str(data.get("note", "")),
    )


def pair_vector(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """The score's vector input: the new statement's e5 vector, then what it adds to the old one's."""
    return np.concatenate([new, new - old])


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"[\w.+-]+@[\w.-]+\w|\d+(?:[.,:]\d+)?", text.lower()))


def pair_features(old: str, new: str, *, closeness: float, signals: dict[str, float]) -> np.ndarray:
    """The pair's general signals, in ``FEATURES`` order.

    ``signals`` carries what ``memories.matching.change`` reads with its word lists (shared
    content words, cues, someone else, one more item, the rules' verdict), so the two never
    disagree on a word.
    """
    a, b = analyse(old), analyse(new)
    old_values, new_values = values_in(old), values_in(new)
    old_numbers, new_numbers = _numbers(old), _numbers(new)
    values = {
        "closeness": closeness,
        "trigram": trigram_similarity(old, new),
        "subject_trigram": trigram_similarity(a.subject, b.subject),
        "negation_flipped": float(a.negated != b.negated),
        "values_disjoint": float(bool(old_values and new_values and not old_values & new_values)),
        "old_values_kept": len(old_values & new_values) / len(old_values) if old_values else 0.0,
        "numbers_disjoint": float(bool(old_numbers and new_numbers and not old_numbers & new_numbers)),
        "length_ratio": math.log((len(new) + 1) / (len(old) + 1)),
    }
    values.update(signals)
    return np.array([values[name] for name in FEATURES], dtype=np.float64)
