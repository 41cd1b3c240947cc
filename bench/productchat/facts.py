"""The offline model's fact detector on the labelled turns, per writer, in seconds (no replay).

    .venv/bin/python -m bench.productchat.facts                  # both splits, per writer
    .venv/bin/python -m bench.productchat.facts --show w26       # and the turns it stores unlabelled
    .venv/bin/python -m bench.productchat.facts --no-vectors     # the change test without e5 (faster)
    .venv/bin/python -m bench.productchat.facts --split dev      # the development writers only

Each statement-like turn (every kind but questions and "remember", which the model stores
when asked) is given to the detector as the offline model reads a message it was not asked
to remember: a stable fact (``stable_fact``) is stored; a change said in passing
(``stated_change``) only when the memory service's change test (``change_verdicts``, with e5
vectors unless ``--no-vectors``) finds a memory of the chat so far that it supersedes — the
memories being the facts stored before it and what the person asked to remember, superseded
ones retired. Stored is compared with the writer's ``store`` label. A replay
(``python -m bench.productchat``) adds what this leaves out: the memory cap, review, the
vectors' arrival after commit.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

import numpy as np

from bench.productchat.data import SPLITS, Chat, load_split
from liamemory import embeddings
from memories.services import change_verdicts
from memories.text import memory_text
from usecases.turn.offline import _REMEMBER, _match
from usecases.turn.offline_facts import stable_fact, stated_change

ASKED = {"question", "remember"}


class Memories:
    """One person's active memories as the chat goes on, judged by the memory service's change test."""

    def __init__(self, vectors: dict[str, np.ndarray] | None) -> None:
        self.active: dict[int, str] = {}
        self.vectors = vectors

    def _vector(self, text: str) -> np.ndarray | None:
        if self.vectors is None:
            return None
        if text not in self.vectors:
            self.vectors[text] = embeddings.passage_vectors([text])[0]
        return self.vectors[text]

    def remember(self, said: str, *, only_if_it_replaces: bool = False) -> bool:
        """Store ``said`` as ``memory_remember`` would (a restatement updates, a change supersedes); stored?"""
        vector = self._vector(said)
        old = {pk: v for pk, text in self.active.items() if (v := self._vector(text)) is not None}
        candidates = [
            (pk, text, float(old[pk] @ vector) if vector is not None and pk in old else None)
            for pk, text in sorted(self.active.items(), reverse=True)
        ]
        verdicts = change_verdicts(said, candidates, vector=vector, old_vectors=old if vector is not None else None)
        superseded = [pk for pk, v in verdicts if v.relation == "supersedes"]
        if only_if_it_replaces and not superseded:
            return False
        same = next((pk for pk, v in verdicts if v.relation == "same"), None)
        if same is not None:
            self.active[same] = memory_text(said)
            return True
        for pk in superseded:
            del self.active[pk]
        self.active[max(self.active, default=0) + 1] = memory_text(said)
        return True


def detect(chat: Chat, vectors: dict[str, np.ndarray] | None) -> dict[int, bool]:
    """Turn index -> stored, for every statement-like turn of ``chat``, in order."""
    memories = Memories(vectors)
    stored: dict[int, bool] = {}
    for turn in chat.turns:
        if turn.kind == "remember":
            memories.remember(_match(_REMEMBER, turn.text) or turn.text)
        if turn.kind in ASKED:
            continue
        if fact := stable_fact(turn.text):
            stored[turn.index] = memories.remember(fact)
        elif change := stated_change(turn.text):
            stored[turn.index] = memories.remember(change, only_if_it_replaces=True)
        else:
            stored[turn.index] = False
    return stored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", nargs="*", default=[], help="writers whose unlabelled stored turns to print")
    parser.add_argument("--no-vectors", action="store_true", help="judge changes without e5 vectors")
    parser.add_argument("--split", choices=SPLITS, help="one split only (default: both)")
    args = parser.parse_args(argv)
    vectors: dict[str, np.ndarray] | None = None if args.no_vectors or not embeddings.enabled() else {}
    counts: dict[str, Counter[tuple[bool, bool]]] = defaultdict(Counter)
    unlabelled: dict[str, list[str]] = defaultdict(list)
    for split in [args.split] if args.split else SPLITS:
        for chat in load_split(split):
            for index, stored in detect(chat, vectors).items():
                turn = chat.turns[index]
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
