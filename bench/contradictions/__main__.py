"""``python -m bench.contradictions [--write] [--show-errors SUBSET] [--json]``: see the package docstring."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from bench.contradictions import handwritten
from bench.contradictions.generate import generate
from memories.matching import (
    DEFAULT_DUPLICATE_SIMILARITY,
    DEFAULT_SUBJECT_SIMILARITY,
    analyse,
    compare,
    trigram_similarity,
)

PAIRS = Path(__file__).resolve().parent / "pairs.jsonl"
SUBSETS = ("dev", "heldout", "generated", "heldout2", "heldout3", "heldout4")


def build_pairs() -> list[dict]:
    rows = []
    for split, items in (
        ("dev", handwritten.DEV),
        ("heldout", handwritten.HELDOUT),
        ("heldout2", handwritten.HELDOUT2),
        ("heldout3", handwritten.HELDOUT3),
        ("heldout4", handwritten.HELDOUT4),
    ):
        for lang, old, new, label in items:
            rows.append({"old": old, "new": new, "label": label, "lang": lang, "subset": split})
    for item in generate():
        rows.append({**item, "subset": "generated"})
    return rows


def load_pairs() -> list[dict]:
    return [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]


def baseline(old: str, new: str) -> str:
    """The rule before this benchmark: pg_trgm similarity of the texts and of their subjects."""
    sim = trigram_similarity(old, new)
    if sim <= 0.2:  # the candidate query's own cut
        return "compatible"
    a, b = analyse(old), analyse(new)
    if sim >= DEFAULT_DUPLICATE_SIMILARITY and not a.differs_from(b):
        return "same"
    if trigram_similarity(a.subject, b.subject) >= DEFAULT_SUBJECT_SIMILARITY and a.differs_from(b):
        return "supersedes"
    return "compatible"


def offline(old: str, new: str) -> str:
    return compare(old, new).relation


def score(rows: list[dict], rule: Callable[[str, str], str]) -> dict:
    tp = fp = fn = tn = agree = 0
    errors = []
    for row in rows:
        got = rule(row["old"], row["new"])
        want_s, got_s = row["label"] == "supersedes", got == "supersedes"
        tp += want_s and got_s
        fp += got_s and not want_s
        fn += want_s and not got_s
        tn += not want_s and not got_s
        agree += got == row["label"]
        if got != row["label"]:
            errors.append({**row, "got": got})
    positives, negatives = tp + fn, fp + tn
    return {
        "pairs": len(rows),
        "supersedes": positives,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / positives if positives else 1.0,
        # Of the pairs that must both stay (or be restated), the share wrongly superseded.
        "wrong_supersessions": fp / negatives if negatives else 0.0,
        "false_supersessions": fp,
        "three_way_accuracy": agree / len(rows) if rows else 1.0,
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite pairs.jsonl from handwritten.py and generate.py")
    parser.add_argument("--show-errors", choices=[*SUBSETS, "all"], help="print the misjudged pairs of a subset")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.write:
        PAIRS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in build_pairs()), encoding="utf-8")
    rows = load_pairs()
    groups = {name: [r for r in rows if r["subset"] == name] for name in SUBSETS}
    for lang in ("en", "it"):
        groups[f"heldout4 ({lang})"] = [r for r in groups["heldout4"] if r["lang"] == lang]
    results = {
        name: {"offline": score(subset, offline), "today": score(subset, baseline)} for name, subset in groups.items()
    }
    if args.json:
        trimmed = {
            n: {k: {x: y for x, y in v.items() if x != "errors"} for k, v in r.items()} for n, r in results.items()
        }
        print(json.dumps(trimmed, indent=2))
    else:
        print(f"{len(rows)} pairs ({', '.join(f'{n} {len(groups[n])}' for n in SUBSETS)})")
        head = f"{'subset':28} {'pairs':>5} {'S':>4} | {'precision':>9} {'recall':>6} {'wrong':>6} {'3-way':>6}"
        print(head + " | today: precision recall wrong")
        for name, r in results.items():
            o, t = r["offline"], r["today"]
            print(
                f"{name:28} {o['pairs']:5} {o['supersedes']:4} | {o['precision']:9.3f} {o['recall']:6.3f} "
                f"{o['wrong_supersessions']:6.1%} {o['three_way_accuracy']:6.1%} | "
                f"{t['precision']:9.3f} {t['recall']:6.3f} {t['wrong_supersessions']:6.1%}"
            )
    if args.show_errors:
        names = SUBSETS if args.show_errors == "all" else (args.show_errors,)
        for name in names:
            for e in results[name]["offline"]["errors"]:
                print(f"  [{name}] want {e['label']:10} got {e['got']:10} {e['old']!r} -> {e['new']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
