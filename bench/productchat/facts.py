"""The offline model's fact detector on the labelled turns, per writer, in seconds (no replay).

    .venv/bin/python -m bench.productchat.facts                  # both splits, per writer
    .venv/bin/python -m bench.productchat.facts --show w26       # and the turns it stores unlabelled

Each statement-like turn (every kind but questions and "remember", which the model stores
when asked) is given to ``stable_fact`` alone, as the offline model reads a message it
was not asked to remember; stored is compared with the writer's ``store`` label. A replay
(``python -m bench.productchat``) adds what this leaves out: the memory cap, duplicates,
review and corrections through the change test; on w26 the two agree (47 memories a
replay, 47 here; precision 0.73 there, 0.70 here).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from bench.productchat.data import SPLITS, load_split
from usecases.turn.offline_facts import stable_fact

ASKED = {"question", "remember"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", nargs="*", default=[], help="writers whose unlabelled stored turns to print")
    args = parser.parse_args(argv)
    counts: dict[str, Counter[tuple[bool, bool]]] = defaultdict(Counter)
    unlabelled: dict[str, list[str]] = defaultdict(list)
    for split in SPLITS:
        for chat in load_split(split):
            for turn in chat.turns:
                if turn.kind in ASKED:
                    continue
                stored = stable_fact(turn.text) is not None
                counts[f"{split}/{chat.writer}"][(turn.store, stored)] += 1
                if stored and not turn.store:
                    unlabelled[chat.writer].append(f"  {chat.id} {turn.kind}: {turn.text[:120]}")
    total: Counter[tuple[bool, bool]] = Counter()
    print(f"{'writer':16} {'stored':>6} {'precision':>9} {'recall':>6} {'unlabelled':>10}")
    for name in sorted(counts):
        total.update(counts[name])
        print(_line(name, counts[name]))
    print(_line("all", total))
    for writer in args.show:
        print(f"{writer}: stored, not labelled to store")
        print("\n".join(unlabelled[writer]) or "  none")
    return 0


def _line(name: str, c: Counter[tuple[bool, bool]]) -> str:
    right, wrong, missed = c[(True, True)], c[(False, True)], c[(True, False)]
    precision = right / (right + wrong) if right + wrong else 0.0
    recall = right / (right + missed) if right + missed else 0.0
    return f"{name:16} {right + wrong:6} {precision:9.2f} {recall:6.2f} {wrong:10}"


if __name__ == "__main__":
    raise SystemExit(main())
