"""The offline model's fact detector on the labelled turns, per writer, in seconds (no replay).

    .venv/bin/python -m bench.productchat.facts                  # both splits, per writer
    .venv/bin/python -m bench.productchat.facts --show w26       # and the turns it stores unlabelled
    .venv/bin/python -m bench.productchat.facts --no-vectors     # the change test without e5 (faster)
    .venv/bin/python -m bench.productchat.facts --split dev      # the development writers only
    .venv/bin/python -m bench.productchat.facts --stale          # and the stale memories at each chat's end

Each statement-like turn (every kind but questions and "remember", which the model stores
when asked) is given to the detector as the offline model reads a message it was not asked
to remember: a stable fact (``stable_fact``) is stored; a change said in passing
(``stated_change``) only when the memory service's change test (``change_verdicts``, with e5
vectors unless ``--no-vectors``) finds a memory of the chat so far that it supersedes, a
correction (``stated_correction``) only when it corrects one (``memories.thread_evidence``) — the
memories being the facts stored before it and what the person asked to remember, superseded
ones retired. Stored is compared with the writer's ``store`` label. A replay
(``python -m bench.productchat``) adds what this leaves out: the memory cap, review, the
vectors' arrival after commit. ``--stale`` counts the memories left active at each chat's end
that hold an older value of a changed fact, as the replay's scorer does (``score_memories``).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

import numpy as np

from bench.productchat.data import SPLITS, STATEMENTS, Chat, load_split
from bench.productchat.score import score_memories
from liamemory import embeddings
from memories.services import change_verdicts
from memories.text import memory_text
from memories.thread_evidence import SAID_HERE, corrected_text
from usecases.turn.offline import _REMEMBER, _match
from usecases.turn.offline_facts import stable_fact, stated_change, stated_correction

ASKED = {"question", "remember"}


class Memories:
    """One person's active memories as the chat goes on, judged by the memory service's change test."""

    def __init__(self, vectors: dict[str, np.ndarray] | None) -> None:
        self.active: dict[int, str] = {}
        self.vectors = vectors
        # Every memory stored (id -> its text, its source turn, active?), for the stale count.
        self.stored: dict[int, tuple[str, int, bool]] = {}
        # Every supersession: (the old memory's source turn, the new one's, why).
        self.supersessions: list[tuple[int, int, str]] = []
        self.turn = -1

    def _vector(self, text: str) -> np.ndarray | None:
        if self.vectors is None:
            return None
        if text not in self.vectors:
            self.vectors[text] = embeddings.passage_vectors([text])[0]
        return self.vectors[text]

    def remember(self, said: str, *, only_if_it_replaces: bool = False, only_if_it_corrects: bool = False) -> bool:
        """Store ``said`` as ``memory_remember`` would (a restatement updates, a change supersedes); stored?"""
        vector = self._vector(said)
        old = {pk: v for pk, text in self.active.items() if (v := self._vector(text)) is not None}
        candidates = [
            (pk, text, float(old[pk] @ vector) if vector is not None and pk in old else None)
            for pk, text in sorted(self.active.items(), reverse=True)
        ]
        # Every statement of a chat is said in its one thread, where every memory came from.
        verdicts = change_verdicts(
            said,
            candidates,
            vector=vector,
            old_vectors=old if vector is not None else None,
            same_thread=frozenset(self.active),
            only_corrections=only_if_it_corrects,
        )
        superseded = [pk for pk, v in verdicts if v.relation == "supersedes"]
        why = {pk: v.reason for pk, v in verdicts}
        if (only_if_it_replaces or only_if_it_corrects) and not superseded:
            return False
        same = next((pk for pk, v in verdicts if v.relation == "same"), None)
        if same is not None:
            self.active[same] = memory_text(said)
            self.stored[same] = (memory_text(said), self.stored[same][1], True)
            return True
        text = memory_text(said)
        if len(superseded) == 1 and why[superseded[0]].startswith(SAID_HERE):
            text = memory_text(corrected_text(self.active[superseded[0]], said) or said)
        for pk in superseded:
            del self.active[pk]
            self.stored[pk] = (*self.stored[pk][:2], False)
            self.supersessions.append((self.stored[pk][1], self.turn, why[pk]))
        pk = max(self.stored, default=0) + 1
        self.active[pk] = text
        self.stored[pk] = (text, self.turn, True)
        return True

    def record(self, chat: Chat) -> dict:
        """What the replay would record of these memories (``bench.productchat.score``'s chat record)."""
        return {
            "turns": [{"index": t.index, "message_id": t.index + 1} for t in chat.turns],
            "memories": [
                {"id": pk, "content": text, "status": "active" if on else "superseded", "source_message_id": turn + 1}
                for pk, (text, turn, on) in self.stored.items()
            ],
        }


def detect(chat: Chat, vectors: dict[str, np.ndarray] | None) -> dict[int, bool]:
    """Turn index -> stored, for every statement-like turn of ``chat``, in order."""
    return replay(chat, vectors)[0]


def replay(chat: Chat, vectors: dict[str, np.ndarray] | None) -> tuple[dict[int, bool], Memories]:
    """Turn index -> stored, for every statement-like turn of ``chat``, and the memories at the end."""
    memories = Memories(vectors)
    stored: dict[int, bool] = {}
    for turn in chat.turns:
        memories.turn = turn.index
        if turn.kind == "remember":
            memories.remember(_match(_REMEMBER, turn.text) or turn.text)
        if turn.kind in ASKED:
            continue
        if fact := stable_fact(turn.text):
            stored[turn.index] = memories.remember(fact)
        elif change := stated_change(turn.text):
            stored[turn.index] = memories.remember(change, only_if_it_replaces=True)
        elif correction := stated_correction(turn.text):
            stored[turn.index] = memories.remember(correction, only_if_it_corrects=True)
        else:
            stored[turn.index] = False
    return stored, memories


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", nargs="*", default=[], help="writers whose unlabelled stored turns to print")
    parser.add_argument("--no-vectors", action="store_true", help="judge changes without e5 vectors")
    parser.add_argument("--split", choices=SPLITS, help="one split only (default: both)")
    parser.add_argument("--stale", action="store_true", help="also count and list the stale memories per writer")
    args = parser.parse_args(argv)
    vectors: dict[str, np.ndarray] | None = None if args.no_vectors or not embeddings.enabled() else {}
    counts: dict[str, Counter[tuple[bool, bool]]] = defaultdict(Counter)
    unlabelled: dict[str, list[str]] = defaultdict(list)
    stale: dict[str, list[str]] = defaultdict(list)
    wrong: dict[str, list[str]] = defaultdict(list)
    for split in [args.split] if args.split else SPLITS:
        for chat in load_split(split):
            found, memories = replay(chat, vectors)
            name = f"{split}/{chat.writer}"
            stale[name] += [f"  {chat.id} {m['fact_id']}: {m['content'][:110]}" for m in _stale(chat, memories)]
            wrong[name] += [f"  {chat.id} {old} -> {new}" for old, new in _wrong_supersessions(chat, memories)]
            for index, stored in found.items():
                turn = chat.turns[index]
                counts[name][(turn.store, stored)] += 1
                if stored and not turn.store:
                    unlabelled[chat.writer].append(f"  {chat.id} {turn.kind}: {turn.text[:120]}")
    total: Counter[tuple[bool, bool]] = Counter()
    print(f"{'writer':16} {'stored':>6} {'precision':>9} {'recall':>6} {'unlabelled':>10}")
    for name in sorted(counts):
        total.update(counts[name])
        print(_line(name, counts[name]))
    print(_line("all", total))
    if args.stale:
        print(
            f"stale memories at the end: {sum(len(v) for v in stale.values())}; "
            f"wrong supersessions: {sum(len(v) for v in wrong.values())}"
        )
        for name in sorted(counts):
            print(f"{name:16} stale {len(stale[name]):3}  wrong supersessions {len(wrong[name]):3}")
            print("\n".join(stale[name] + wrong[name]))
    for writer in args.show:
        print(f"{writer}: stored, not labelled to store")
        print("\n".join(unlabelled[writer]) or "  none")
    return 0


def _stale(chat: Chat, memories: Memories) -> list[dict]:
    """The memories left active holding an older value of a changed fact, as the replay's scorer counts them."""
    return score_memories(chat, memories.record(chat))["stale"]


def _wrong_supersessions(chat: Chat, memories: Memories) -> list[tuple[str, str]]:
    """Supersessions of a labelled statement by a turn that is no statement of the same fact."""
    out = []
    for old, new, why in memories.supersessions:
        before, after = chat.turns[old], chat.turns[new]
        if before.kind in STATEMENTS and not (after.kind in STATEMENTS and after.fact_id == before.fact_id):
            out.append((f"[{old}] {before.text[:70]}", f"[{new}] {after.kind}: {after.text[:70]} ({why[:60]})"))
    return out


def _line(name: str, c: Counter[tuple[bool, bool]]) -> str:
    right, wrong, missed = c[(True, True)], c[(False, True)], c[(True, False)]
    precision = right / (right + wrong) if right + wrong else 0.0
    recall = right / (right + missed) if right + missed else 0.0
    return f"{name:16} {right + wrong:6} {precision:9.2f} {recall:6.2f} {wrong:10}"


if __name__ == "__main__":
    raise SystemExit(main())
