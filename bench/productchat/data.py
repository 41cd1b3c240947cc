"""The chats of the product evaluation: JSONL files, one chat (one person) a line.

The format is in ``bench/productchat/FORMAT.md``. ``data/dev/`` holds the development
chats (anything may be tuned on them); ``data/heldout/`` the split scored once, put
there by the lead when it is scored (never read or tuned on while building).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SPLITS = ("dev", "heldout")
KINDS = {"fact", "remember", "correction", "smalltalk", "opinion", "general_question", "question"}
STATEMENTS = {"fact", "remember", "correction"}


@dataclass
class Turn:
    index: int
    text: str
    kind: str
    fact_id: str = ""
    value: str = ""
    store: bool = False
    expected: list[str] = field(default_factory=list)
    new_thread: bool = False


@dataclass
class Chat:
    id: str
    lang: str
    turns: list[Turn]
    writer: str = ""

    @property
    def questions(self) -> list[Turn]:
        return [t for t in self.turns if t.kind == "question"]


class ChatFormatError(ValueError):
    pass


def parse_chat(obj: dict[str, Any], where: str = "") -> Chat:
    """One chat from its JSON object, checked: known kinds, each question's fact stated before it."""
    try:
        turns = []
        stated: set[str] = set()
        for i, raw in enumerate(obj["turns"]):
            kind = raw["kind"]
            if kind not in KINDS:
                raise ChatFormatError(f"{where} turn {i}: unknown kind {kind!r}")
            turn = Turn(
                index=i,
                text=raw["text"],
                kind=kind,
                fact_id=raw.get("fact_id", ""),
                value=raw.get("value", ""),
                store=bool(raw.get("store", False)),
                expected=[str(e) for e in raw.get("expected") or []],
                new_thread=bool(raw.get("new_thread", False)),
            )
            if kind in STATEMENTS:
                if not turn.fact_id or not turn.value:
                    raise ChatFormatError(f"{where} turn {i}: a {kind} needs fact_id and value")
                stated.add(turn.fact_id)
            if kind == "question":
                if turn.fact_id not in stated:
                    raise ChatFormatError(f"{where} turn {i}: question about {turn.fact_id!r} before any statement")
                if not turn.expected:
                    raise ChatFormatError(f"{where} turn {i}: a question needs expected")
            turns.append(turn)
        return Chat(id=str(obj["id"]), lang=obj.get("lang", ""), writer=obj.get("writer", ""), turns=turns)
    except KeyError as exc:
        raise ChatFormatError(f"{where}: missing field {exc}") from exc


def load_split(split: str, root: Path = DATA) -> list[Chat]:
    """Every chat of ``root/split/*.jsonl``, in file and line order."""
    chats = []
    for path in sorted((root / split).glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                chats.append(parse_chat(json.loads(line), where=f"{path.name}:{n}"))
    ids = [c.id for c in chats]
    if len(ids) != len(set(ids)):
        raise ChatFormatError(f"split {split}: duplicate chat ids")
    return chats


def quick_subset(chats: list[Chat], n: int = 2) -> list[Chat]:
    """The ``n`` shortest chats (a smoke run)."""
    return sorted(chats, key=lambda c: len(c.turns))[:n]
