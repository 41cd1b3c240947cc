"""``python -m bench.contradictions [--write] [--show-errors SET] [--json] [--no-vectors]``: see the package doc."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable

from bench.contradictions import handwritten
from bench.contradictions.generate import generate
from bench.contradictions.sets import PAIRS, Closeness, load_sets
from memories.matching import (
    DEFAULT_DUPLICATE_SIMILARITY,
    DEFAULT_SUBJECT_SIMILARITY,
    analyse,
    compare,
    trigram_similarity,
)
from memories.matching.change import choose, judge
from memories.matching.change_score import shipped


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


def grammar(old: str, new: str) -> str:
    """The slot grammar alone (``memories.matching.compare``)."""
    return compare(old, new).relation


def offline_rule(closeness: Closeness) -> Callable[[str, str], str]:
    """What the services decide without a model: the grammar, then the change test (``memories.matching.change``)."""

    def rule(old: str, new: str) -> str:
        verdict = judge(
            old, new, closeness=closeness(old, new), vector=closeness.vector(new), old_vector=closeness.vector(old)
        )
        return verdict.relation

    return rule


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


def crowd(rows: list[dict], closeness: Closeness) -> dict:
    """Each set as one person's memories: every new statement judged against all the set's old ones.

    How the services see it: all of a person's memories are candidates. Counts the change
    test's supersessions (the grammar's are scored pair by pair; the sets pair one old
    statement with several slots, so its crowd figures would count right ones as wrong):
    any memory but one a labelled change of that statement is a wrong one.
    """
    olds = sorted({r["old"] for r in rows})
    vectors = {i: closeness.vector(text) for i, text in enumerate(olds)}
    old_vectors = {i: v for i, v in vectors.items() if v is not None}
    wrong = right = 0
    for row in rows:
        candidates = [(i, text, closeness(text, row["new"])) for i, text in enumerate(olds)]
        picked = choose(row["new"], candidates, vector=closeness.vector(row["new"]), old_vectors=old_vectors)
        for i, verdict in picked:
            if verdict.relation != "supersedes" or compare(olds[i], row["new"]).relation == "supersedes":
                continue
            if olds[i] == row["old"] and row["label"] == "supersedes":
                right += 1
            elif not any(r["new"] == row["new"] and r["old"] == olds[i] and r["label"] == "supersedes" for r in rows):
                wrong += 1
    return {"statements": len(rows), "memories": len(olds), "wrong": wrong, "right": right}


def worst_writers(results: dict[str, dict]) -> dict[str, tuple[str, float]]:
    """The outside writers' worst recall and most wrong supersessions, each with its set (``dev/wN``,
    ``fresh/*``): a method is counted by its worst writer, not by the average of all."""
    outside = {n: r["offline"] for n, r in results.items() if n.startswith("fresh/") or re.fullmatch(r"dev/w\d+", n)}
    if not outside:
        return {}
    low = min(outside, key=lambda n: outside[n]["recall"])
    high = max(outside, key=lambda n: outside[n]["wrong_supersessions"])
    return {"recall": (low, outside[low]["recall"]), "wrong": (high, outside[high]["wrong_supersessions"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite pairs.jsonl from handwritten.py and generate.py")
    parser.add_argument("--show-errors", metavar="SET", help="print the misjudged pairs of a set ('all' for every set)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-vectors", action="store_true", help="judge without e5 vectors (lexical closeness only)")
    parser.add_argument("--vector-cache", metavar="PATH", help="keep the e5 vectors of the sets in this .npz file")
    args = parser.parse_args(argv)
    if args.write:
        PAIRS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in build_pairs()), encoding="utf-8")
    sets = load_sets()
    closeness = Closeness(enabled=not args.no_vectors, cache=args.vector_cache)
    closeness.prepare({t for rows in sets.values() for r in rows for t in (r["old"], r["new"])})
    offline = offline_rule(closeness)
    rules = {"offline": offline, "grammar": grammar, "before": baseline}
    results = {name: {k: score(rows, rule) for k, rule in rules.items()} for name, rows in sets.items() if rows}
    for name, rows in sets.items():
        if rows:
            results[name]["crowd"] = crowd(rows, closeness)
    if args.json:
        trimmed = {
            n: {k: {x: y for x, y in v.items() if x != "errors"} for k, v in r.items()} for n, r in results.items()
        }
        print(json.dumps({"vectors": closeness.enabled, "sets": trimmed, "worst": worst_writers(results)}, indent=2))
    else:
        total = sum(len(rows) for rows in sets.values())
        print(
            f"{total} pairs in {len(results)} sets; offline = what the services decide without a key "
            f"(grammar + change test{' + learned score' if shipped() is not None else ', no learned score shipped'}), "
            f"e5 vectors {'on' if closeness.enabled else 'off'}"
        )
        head = f"{'set':22} {'pairs':>5} {'changes':>7} | {'recall':>6} {'wrong':>6} {'prec.':>6} {'3-way':>6}"
        print(head + " | crowd: wrong right/stmts | grammar: recall wrong | before: recall wrong")
        for name, r in results.items():
            o, g, t = r["offline"], r["grammar"], r["before"]
            print(
                f"{name:22} {o['pairs']:5} {o['supersedes']:7} | {o['recall']:6.3f} {o['wrong_supersessions']:6.1%} "
                f"{o['precision']:6.3f} {o['three_way_accuracy']:6.1%} | "
                f"{r['crowd']['wrong']:5} {r['crowd']['right']:5}/{r['crowd']['statements']:<5} | "
                f"{g['recall']:6.3f} {g['wrong_supersessions']:6.1%} | "
                f"{t['recall']:6.3f} {t['wrong_supersessions']:6.1%}"
            )
        recalls = [r["offline"]["recall"] for r in results.values()]
        wrongs = [r["offline"]["wrong_supersessions"] for r in results.values()]
        print(
            f"spread across sets: recall {min(recalls):.3f}–{max(recalls):.3f}, "
            f"wrong {min(wrongs):.1%}–{max(wrongs):.1%}"
        )
        worst = worst_writers(results)
        if worst:
            (low, recall), (high, wrong) = worst["recall"], worst["wrong"]
            print(f"worst outside writer: recall {recall:.3f} ({low}), wrong {wrong:.1%} ({high})")
    if args.show_errors:
        names = list(results) if args.show_errors == "all" else [args.show_errors]
        for name in names:
            for e in results[name]["offline"]["errors"]:
                print(f"  [{name}] want {e['label']:10} got {e['got']:10} {e['old']!r} -> {e['new']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
