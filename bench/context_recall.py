"""Context evidence recall on LoCoMo-shaped conversations, and the tokens the context costs.

A conversation is replayed turn by turn into one thread through the product's import
(``usecases.importer.export_import``: the session dates become the messages' dates),
with the rolling summary updated after every turn as the background task would
(extractive, no API key) and the embeddings made eagerly as a worker would. Every
message of the first speaker (the "user") is a turn: the context the product assembles
for it (``usecases.turn.context.build_context``) is counted against what resending the whole
history would cost. At the end each question is asked as the next user message (in a
rolled-back savepoint), and the question counts as carried when at least one of its
evidence turns reaches the assembled context: in the window, as an excerpt, or quoted
in the summary.

    .venv/bin/python -m bench.context_recall                     # conv-26 (dev) and conv-30 (held out)
    .venv/bin/python -m bench.context_recall --conversations conv-26
    .venv/bin/python -m bench.context_recall --generated         # the generated chats of bench.retrieval

The LoCoMo file is read from ``../shared/data/locomo-dev/locomo-dev.json`` (relative to
the repository) or ``--data``; it is never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bench.common import tasks_inline, write_result
from bench.retrieval.dataset import generate
from conversations.models import Message, Thread
from conversations.selectors import summary_current
from conversations.tokens import estimate_messages, estimate_text
from usecases.importer import export_import
from usecases.thread_summary import thread_summarize
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent


def _default_data() -> Path:
    """``../shared/data/locomo-dev/`` beside the repository (or beside a worktree's parent)."""
    for parent in Path(__file__).resolve().parents[1:4]:
        candidate = parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
        if candidate.exists():
            return candidate
    return Path("../shared/data/locomo-dev/locomo-dev.json")


@dataclass
class Turn:
    role: str
    text: str
    at: datetime
    key: str  # the data set's id of the turn (LoCoMo's dia_id)


@dataclass
class Question:
    text: str
    evidence: list[str]
    category: str


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)


def _locomo_date(value: str) -> datetime:
    from datetime import UTC

    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_locomo(path: Path) -> list[Conversation]:
    """LoCoMo conversations: the first speaker is the user, the other the assistant.

    Each turn's text is ``speaker: text`` (the benchmark's own document form), a shared
    photo's caption appended; a turn's date is its session's, a minute per turn.
    """
    out = []
    for item in json.loads(path.read_text()):
        conv = item["conversation"]
        sessions = sorted(
            (int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k)),
        )
        turns = []
        for n in sessions:
            start = _locomo_date(conv[f"session_{n}_date_time"])
            for i, t in enumerate(conv[f"session_{n}"]):
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares a photo: {t['blip_caption']}]"
                role = "user" if t["speaker"] == conv["speaker_a"] else "assistant"
                turns.append(Turn(role=role, text=text, at=start + timedelta(minutes=i), key=t["dia_id"]))
        questions = [
            Question(text=q["question"], evidence=list(q.get("evidence") or []), category=str(q["category"]))
            for q in item["qa"]
            if q.get("evidence")
        ]
        out.append(Conversation(name=item["sample_id"], turns=turns, questions=questions))
    return out


def load_generated(*, seed: int, style: str, quick: bool) -> list[Conversation]:
    """The generated chats of ``bench.retrieval`` (test-split questions), one date per session."""
    from datetime import UTC

    convs = generate(seed=seed, style=style, conversations=2 if quick else 3, sessions=10, turns=22)
    out = []
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    for conv in convs:
        turns = [
            Turn(role=role, text=text, at=start + timedelta(days=i // 44, minutes=i), key=str(i))
            for i, (role, text) in enumerate(conv.turns)
        ]
        questions = [
            Question(text=q.text, evidence=[str(a) for a in q.answer_turns], category=q.split)
            for q in conv.questions
            if q.split == "test"
        ]
        out.append(Conversation(name=f"{conv.name}-{style}{seed}", turns=turns, questions=questions))
    return out


def _import(thread_id: uuid.UUID, owner, turns: list[tuple[int, Turn]], title: str = "") -> None:

    messages = [
        {"sequence": seq, "role": t.role, "content": [{"type": "text", "text": t.text}], "created_at": t.at.isoformat()}
        for seq, t in turns
    ]
    export_import(
        document={
            "format": "liamemory.export",
            "version": 1,
            "threads": [{"id": str(thread_id), "title": title, "messages": messages}],
        },
        owner=owner,
    )


def _in_summary(text: str, summary: str) -> bool:
    """A turn counts as carried by the summary when one of its sentences (5+ words) is quoted there."""
    body = text.split(": ", 1)[-1]
    for sentence in re.split(r"(?<=[.!?])\s+", body):
        if len(sentence.split()) >= 5 and sentence.strip().lower() in summary.lower():
            return True
    return False


def replay(conv: Conversation, *, owner, questions: bool = True) -> dict:
    from django.db import transaction

    agent = get_agent("assistant")
    Thread.objects.filter(owner=owner, title=conv.name).delete()
    thread_id = uuid.uuid4()
    per_turn, pending = [], []
    seq_of = {}
    for seq, turn in enumerate(conv.turns, start=1):
        seq_of[turn.key] = seq
        if turn.role != "user":
            pending.append((seq, turn))
            continue
        if pending:
            _import(thread_id, owner, pending, title=conv.name)
            pending = []
            thread_summarize(thread_id=thread_id, use_model=False)
        _import(thread_id, owner, [(seq, turn)], title=conv.name)
        thread = Thread.objects.get(pk=thread_id)
        request = Message.objects.get(thread=thread, sequence=seq)
        started = time.perf_counter()
        ctx = build_context(thread=thread, agent=agent, user=owner, request_message=request)
        per_turn.append(
            {
                "sent": ctx.report.estimated_tokens,
                "full": ctx.report.full_resend_tokens,
                "prefix": ctx.report.prefix_tokens,
                "excerpts": ctx.report.excerpt_tokens,
                "summary": (estimate_text(ctx.system[1]["text"]) if len(ctx.system) > 1 else 0)
                - ctx.report.excerpt_tokens,
                "window": estimate_messages(ctx.messages),
                "excerpt_count": len(ctx.report.excerpts),
                "ms": (time.perf_counter() - started) * 1000,
            }
        )
    if pending:
        _import(thread_id, owner, pending)
        thread_summarize(thread_id=thread_id, use_model=False)

    asked = []
    if questions:
        thread = Thread.objects.get(pk=thread_id)
        last = thread.next_sequence
        texts = dict(Message.objects.filter(thread=thread).values_list("sequence", "text"))
        current = summary_current(thread=thread)
        summary = current.text if current else ""
        for q in conv.questions:
            evidence = {seq_of[k] for k in q.evidence if k in seq_of}
            if not evidence:
                continue
            with transaction.atomic():
                when = conv.turns[-1].at + timedelta(minutes=5)
                _import(thread_id, owner, [(last, Turn(role="user", text=q.text, at=when, key="q"))])
                thread.refresh_from_db()
                request = Message.objects.get(thread=thread, sequence=last)
                ctx = build_context(thread=thread, agent=agent, user=owner, request_message=request)
                transaction.set_rollback(True)
            window = range(ctx.report.window_first_sequence or last, last)
            # Only this thread's excerpts can hold its evidence: an excerpt of another of the
            # owner's conversations (recall across conversations) has a sequence of its own thread.
            excerpts = {e.sequence for e in ctx.report.excerpts if e.thread_id is None}
            where = []
            for seq in evidence:
                if seq in window:
                    where.append("window")
                elif seq in excerpts:
                    where.append("excerpt")
                elif _in_summary(texts.get(seq, ""), summary):
                    where.append("summary")
            asked.append(
                {
                    "category": q.category,
                    "carried": bool(where),
                    "where": where,
                    "tokens": ctx.report.estimated_tokens,
                    "full": ctx.report.full_resend_tokens,
                    "excerpt_tokens": ctx.report.excerpt_tokens,
                }
            )
    Thread.objects.filter(pk=thread_id).delete()
    return {"turns": per_turn, "questions": asked}


def figures(name: str, result: dict) -> dict:
    turns, asked = result["turns"], result["questions"]
    sent, full = sum(t["sent"] for t in turns), sum(t["full"] for t in turns)
    where: dict[str, int] = {}
    for a in asked:
        for w in set(a["where"]):
            where[w] = where.get(w, 0) + 1
    by_cat: dict[str, list[bool]] = {}
    for a in asked:
        by_cat.setdefault(a["category"], []).append(a["carried"])
    carried = [a["carried"] for a in asked]
    return {
        "conversation": name,
        "user_turns": len(turns),
        "sent": sent,
        "full_resend": full,
        "ratio": round(sent / full, 4) if full else None,
        "summary_tokens_per_turn": round(sum(t["summary"] for t in turns) / max(1, len(turns)), 1),
        "window_tokens_per_turn": round(sum(t["window"] for t in turns) / max(1, len(turns)), 1),
        "excerpt_tokens_per_turn": round(sum(t["excerpts"] for t in turns) / max(1, len(turns)), 1),
        "turns_with_excerpts": sum(1 for t in turns if t["excerpt_count"]),
        "build_ms_median": round(statistics.median(t["ms"] for t in turns), 1) if turns else None,
        "questions": len(asked),
        "context_evidence_recall": round(sum(carried) / max(1, len(carried)), 4),
        "carried_by": where,
        "by_category": {c: round(sum(v) / len(v), 3) for c, v in sorted(by_cat.items())},
        "question_context_ratio": round(statistics.mean(a["tokens"] / a["full"] for a in asked), 4) if asked else None,
        "question_excerpt_tokens": round(statistics.mean(a["excerpt_tokens"] for a in asked), 1) if asked else None,
    }


def _print(f: dict) -> None:
    print(
        f"{f['conversation']}: context evidence recall {100 * f['context_evidence_recall']:.1f} % "
        f"of {f['questions']} questions {f['by_category']}, carried by {f['carried_by']}; "
        f"tokens sent over {f['user_turns']} turns {f['sent']:,} vs full resend {f['full_resend']:,}: "
        f"ratio {f['ratio']:.3f}; per turn: summary/memories {f['summary_tokens_per_turn']}, "
        f"window {f['window_tokens_per_turn']}, excerpts {f['excerpt_tokens_per_turn']} tokens/turn "
        f"({f['turns_with_excerpts']} turns with any); a question's context vs full resend "
        f"{f['question_context_ratio']:.3f} ({f['question_excerpt_tokens']} excerpt tokens)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("LOCOMO_DEV") or _default_data()))
    parser.add_argument("--conversations", nargs="*", default=["conv-26", "conv-30"])
    parser.add_argument("--generated", action="store_true", help="the generated chats instead of LoCoMo")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    tasks_inline()
    from django.contrib.auth import get_user_model

    owner, _ = get_user_model().objects.get_or_create(username="bench-context")
    if args.generated:
        convs = [c for style in ("a", "b") for c in load_generated(seed=7, style=style, quick=args.quick)]
    else:
        convs = [c for c in load_locomo(args.data) if c.name in args.conversations]
    report = []
    for conv in convs:
        f = figures(conv.name, replay(conv, owner=owner))
        _print(f)
        report.append(f)
    if len(report) > 1:
        recall = statistics.mean(f["context_evidence_recall"] for f in report)
        print(f"mean context evidence recall {100 * recall:.1f} %; ratios {[f['ratio'] for f in report]}")
    write_result("context_recall" + ("_generated" if args.generated else ""), {"conversations": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
