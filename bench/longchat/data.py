"""Long chats with known evidence, in one shape, from LoCoMo files and from our generator.

A ``Chat`` is what the evaluation loads as one thread: its turns (role, text, date)
and its questions, each with the indexes of the turns that hold the answer (the
evidence) and a category. Two sources:

- ``locomo_chats``: files shaped like LoCoMo's ``locomo10.json`` (a list of samples
  with ``conversation`` and ``qa``). A turn's text is ``"speaker: text"`` (the
  benchmark's standard document), the first speaker is the thread's ``user`` and the
  second its ``assistant``, and every turn of a session gets the session's date and
  time (one minute apart, in order). Questions without valid evidence are skipped.
- ``generated_chats``: ``bench.retrieval.dataset``'s chats (styles ``a`` and ``b``,
  a third of them Italian), with sessions given dates three to four days apart.

The LoCoMo data is read from where it lies (``../shared/data/locomo-dev/`` by default),
never copied into the repository.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.retrieval.dataset import generate

LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open", 4: "single-hop", 5: "adversarial"}
LOCOMO_RELATIVE = Path("shared") / "data" / "locomo-dev" / "locomo-dev.json"


def default_locomo() -> Path:
    """``../shared/data/locomo-dev/locomo-dev.json`` beside the repository (or beside the
    main checkout, for a worktree one level deeper)."""
    repo = Path(__file__).resolve().parents[2]
    candidates = [repo.parent / LOCOMO_RELATIVE, repo.parent.parent / LOCOMO_RELATIVE]
    return next((c for c in candidates if c.exists()), candidates[0])


@dataclass
class Question:
    text: str
    evidence: list[int]  # indexes into Chat.turns
    category: str


@dataclass
class Chat:
    name: str  # e.g. "conv-26", "a7-0"
    dataset: str  # the row of the report it belongs to
    lang: str
    turns: list[tuple[str, str, datetime]] = field(default_factory=list)  # (role, text, created_at)
    questions: list[Question] = field(default_factory=list)


def _session_date(value: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware datetime (UTC: the files carry no zone)."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _session_numbers(conversation: dict) -> list[int]:
    found = (re.fullmatch(r"session_(\d+)", k) for k in conversation)
    return sorted(int(m.group(1)) for m in found if m and isinstance(conversation[m.group(0)], list))


def locomo_chats(path: Path | str, *, samples: list[str] | None = None) -> list[Chat]:
    """The conversations of a LoCoMo-shaped file (only ``samples`` when given, by ``sample_id``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    chats: list[Chat] = []
    for sample in data:
        name = sample.get("sample_id", f"sample-{len(chats)}")
        if samples and name not in samples:
            continue
        conv = sample["conversation"]
        roles = {conv["speaker_a"]: "user", conv["speaker_b"]: "assistant"}
        chat = Chat(name=name, dataset=name, lang="en")
        index: dict[str, int] = {}
        for number in _session_numbers(conv):
            start = _session_date(conv[f"session_{number}_date_time"])
            for i, turn in enumerate(conv[f"session_{number}"]):
                index[turn["dia_id"]] = len(chat.turns)
                role = roles.get(turn["speaker"], "user")
                chat.turns.append((role, f"{turn['speaker']}: {turn['text']}", start + timedelta(minutes=i)))
        for qa in sample.get("qa", []):
            ids = [e for item in qa.get("evidence", []) for e in re.split(r"[;,\s]+", item) if e]
            evidence = sorted({index[e] for e in ids if e in index})
            if evidence:
                category = LOCOMO_CATEGORIES.get(qa.get("category"), str(qa.get("category")))
                chat.questions.append(Question(text=qa["question"], evidence=evidence, category=category))
        chats.append(chat)
    return chats


def generated_chats(*, seed: int, style: str, split: str, quick: bool) -> list[Chat]:
    """``bench.retrieval.dataset`` chats of one seed and style; only ``split``'s questions.

    English chats form the data set ``<style>`` and Italian ones ``it``; a question's
    category says whether it asks about the user's or the assistant's words.
    """

    convs = generate(seed=seed, style=style, conversations=3 if quick else 6, sessions=4 if quick else 12, turns=22)
    rng = random.Random(f"dates-{seed}-{style}")
    chats = []
    for conv in convs:
        chat = Chat(name=conv.name, dataset="it" if conv.lang == "it" else style, lang=conv.lang)
        day = datetime(2025, 1, 6, 18, 0, tzinfo=UTC) + timedelta(days=rng.randrange(300))
        starts = set(conv.session_starts)
        for i, (role, text) in enumerate(conv.turns):
            if i in starts and i:
                day += timedelta(days=rng.choice((3, 4)), minutes=rng.randrange(-120, 120))
            chat.turns.append((role, text, day + timedelta(minutes=i - max(s for s in starts if s <= i))))
        for q in conv.questions:
            if q.split == split:
                kind = conv.turns[q.answer_turns[0]][0]
                chat.questions.append(Question(text=q.text, evidence=list(q.answer_turns), category=kind))
        chats.append(chat)
    return chats
