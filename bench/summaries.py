"""What the rolling summary keeps at the end of long chats, against a reference summary of the same size.

Replays each conversation through the product: messages appended one by one with
their own dates (``created_at``), the rolling summary updated after each as the
background task would (``thread_summarize``, no API key: the extractive
summarizer). At the end it reads the thread's current summary (body and "Key facts"
line) and counts, over the whole conversation:

- **answers**: questions whose gold answer is held, i.e. every content word of the
  answer (stop words out, crude stemming, dates written any way normalised to ISO on
  both sides) is a word of the summary;
- **names**: distinct capitalised words that are not the first word of a sentence
  (people, places, brands), the speakers' own names left out, held as a word.

LoCoMo-shaped files also carry the benchmark's own LLM-written ``session_summary``
per session; it is cut to the token size of the product's summary (estimated as the
product estimates: characters / 3.2) in two ways, and both are scored the same way:
``prefix`` (the sessions' summaries in order, cut at the size) and ``even`` (each
session's summary cut to an equal share, at whole words).

    .venv/bin/python -m bench.summaries                      # LoCoMo dev (conv-26, conv-30) + generated sets
    .venv/bin/python -m bench.summaries --locomo PATH        # another LoCoMo-shaped file
    .venv/bin/python -m bench.summaries --quick              # conv-26 only and one generated chat

Constants were chosen on conv-26; conv-30 and the generated chats are held out.
The LoCoMo file is read where it lies (default ``../shared/data/locomo-dev/``): it is
never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

from bench.common import write_result
from bench.longchat.data import default_locomo
from bench.retrieval.dataset import generate
from conversations.content import text_block
from conversations.models import Message, ThreadSummary
from conversations.selectors import summary_current
from conversations.services import messages_append, thread_create
from conversations.tokens import estimate_text
from usecases.thread_summary import thread_summarize

STOP = set(
    """
    a an the and or of to in on at for with from by as is are was were be been being it its this that these
    those i you he she we they me him her us them my your his our their mine yours do does did have has had not
    no yes il lo la i gli le un una uno di da in con su per tra fra e o ma che non è sono al del della dei delle
    nel nella
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan", "gennaio"),
            ("february", "feb", "febbraio"),
            ("march", "mar", "marzo"),
            ("april", "apr", "aprile"),
            ("may", "maggio"),
            ("june", "jun", "giugno"),
            ("july", "jul", "luglio"),
            ("august", "aug", "agosto"),
            ("september", "sep", "sept", "settembre"),
            ("october", "oct", "ottobre"),
            ("november", "nov", "novembre"),
            ("december", "dec", "dicembre"),
        ]
    )
    for m in names
}
_MONTH_RX = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RX})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MDY = re.compile(rf"\b({_MONTH_RX})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+")


def normalise_dates(text: str) -> str:
    """ "7 May 2023", "May 7, 2023" -> "2023-05-07", so a date written either way matches."""
    text = _DMY.sub(lambda m: f"{m[3]}-{_MONTHS[m[2].lower()]:02d}-{int(m[1]):02d}", text)
    return _MDY.sub(lambda m: f"{m[3]}-{_MONTHS[m[1].lower()]:02d}-{int(m[2]):02d}", text)


def _stem(word: str) -> str:
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


def words(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(normalise_dates(text).lower()):
        for part in [w, *re.split(r"[-']", w)]:
            part = part.strip("-'")
            if part and part not in STOP:
                out.add(_stem(part))
    return out


def answer_held(answer: str, summary_words: set[str]) -> bool | None:
    """None when the answer has no content word to look for."""
    need = words(str(answer))
    return None if not need else need <= summary_words


_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“(]\s*|\n)\s*$")
_CAP = re.compile(r"\b(?:[A-Z][a-zà-ÿ]+(?:[A-Z][a-z]+)?|[A-Z]{2,}[a-z]?)\b")
NOT_NAMES = set(
    """
    I I'm I've I'd I'll Im Ok OK Oh Hey Hi Hello Wow Yeah Yes No Thanks Thank Sure Haha Lol Omg Ugh Yay Aww
    Awesome Cool Great Nice Good Well So And But Or The A An It That This What When Where Why How Who Do Did
    Does Can Could Would Should Will Just Really Also Anyway Absolutely Totally Definitely Congrats
    Congratulations Sorry Please Mondays Tuesdays Ciao Grazie Sì Però Ecco Comunque Buono Uffa Capisco Allora
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


def names_in(text: str, *, exclude: set[str]) -> set[str]:
    """Capitalised words that do not start a sentence: people, places, brands."""
    found = set()
    for m in _CAP.finditer(text):
        word = m.group(0)
        if word in NOT_NAMES or word.lower() in exclude or _SENTENCE_START.search(text[: m.start()]):
            continue
        found.add(word.lower())
    return found


# --- Data sets ------------------------------------------------------------------------


@dataclass
class Chat:
    name: str
    # (role, text, created_at)
    messages: list[tuple[str, str, datetime]]
    answers: list[str]
    speakers: set[str] = field(default_factory=set)
    reference: list[str] = field(default_factory=list)  # per-session reference summaries, in order


def _locomo_date(value: str) -> datetime:
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def locomo_chats(path: Path, only: set[str] | None) -> list[Chat]:
    chats = []
    for sample in json.loads(path.read_text()):
        if only and sample["sample_id"] not in only:
            continue
        conv = sample["conversation"]
        a, b = conv["speaker_a"], conv["speaker_b"]
        n = 1
        messages = []
        while f"session_{n}" in conv:
            when = _locomo_date(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                role = "user" if turn["speaker"] == a else "assistant"
                messages.append((role, turn["text"], when + timedelta(seconds=30 * i)))
            n += 1
        answers = [str(q["answer"]) for q in sample["qa"] if "answer" in q]
        reference = [sample["session_summary"].get(f"session_{s}_summary", "") for s in range(1, n)]
        chats.append(Chat(sample["sample_id"], messages, answers, speakers={a.lower(), b.lower()}, reference=reference))
    return chats


def generated_chats(quick: bool) -> list[Chat]:

    chats = []
    for style in ("a", "b"):
        convs = generate(seed=7, style=style, conversations=1 if quick else 3, sessions=10, turns=20)
        for conv in convs:
            start = datetime(2026, 1, 5, 9, tzinfo=UTC)
            messages = []
            session = -1
            for i, (role, text) in enumerate(conv.turns):
                if session + 1 < len(conv.session_starts) and i >= conv.session_starts[session + 1]:
                    session += 1
                messages.append((role, text, start + timedelta(days=4 * session, minutes=i % 200)))
            answers = [" ".join(q.answer) for q in conv.questions]
            chats.append(Chat(f"generated-{conv.name}-{conv.lang}", messages, answers))
    return chats


# --- Replay and scoring -----------------------------------------------------------------


def replay(chat: Chat) -> dict:
    """The product's summary at the end of ``chat``, updated after every message."""
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="bench-summaries")
    user.threads.all().delete()
    thread = thread_create(owner=user)
    outcomes: dict[str, int] = {}
    for role, text, when in chat.messages:
        (row,) = messages_append(thread=thread, items=[{"role": role, "content": [text_block(text)]}])
        Message.objects.filter(pk=row.pk).update(created_at=when)
        status = thread_summarize(thread_id=thread.pk, use_model=False).status
        outcomes[status] = outcomes.get(status, 0) + 1
    summary = summary_current(thread=thread)
    texts = list(ThreadSummary.objects.filter(thread=thread).order_by("version").values_list("text", flat=True))
    identical = sum(1 for a, b in pairwise(texts) if a == b)
    user.delete()
    text = summary.text if summary else ""
    return {"text": text, "versions": len(texts), "identical": identical, "outcomes": outcomes}


def cut_prefix(parts: list[str], tokens: int) -> str:

    text = "\n".join(p for p in parts if p)
    out = text[: int(tokens * 3.2)]
    while out and estimate_text(out) > tokens:
        out = out[:-1]
    return out.rsplit(" ", 1)[0] if " " in out else out


def cut_even(parts: list[str], tokens: int) -> str:

    parts = [p for p in parts if p]
    share = max(1, int(tokens * 3.2 / max(1, len(parts)))) - 1
    out = "\n".join(p[:share].rsplit(" ", 1)[0] if len(p) > share else p for p in parts)
    while estimate_text(out) > tokens:
        out = out[:-1]
    return out


def score(chat: Chat, text: str, all_names: set[str]) -> dict:
    held_words = words(text)
    checks = [answer_held(a, held_words) for a in chat.answers]
    held = [c for c in checks if c is not None]
    kept = {n for n in all_names if _stem(n) in held_words or n in held_words}

    return {
        "tokens": estimate_text(text),
        "answers_held": sum(held),
        "answers": len(held),
        "answers_pct": round(100 * sum(held) / max(1, len(held)), 1),
        "names_held": len(kept),
        "names": len(all_names),
        "names_pct": round(100 * len(kept) / max(1, len(all_names)), 1),
    }


def evaluate(chat: Chat, *, show: bool) -> dict:
    result = replay(chat)
    all_names: set[str] = set()
    for _, text, _ in chat.messages:
        all_names |= names_in(text, exclude=chat.speakers)
    ours = score(chat, result["text"], all_names)
    row = {"chat": chat.name, "messages": len(chat.messages), "ours": ours, "versions": result["versions"]}
    row["identical_versions"] = result["identical"]
    row["outcomes"] = result["outcomes"]
    if chat.reference:
        row["reference_prefix"] = score(chat, cut_prefix(chat.reference, ours["tokens"]), all_names)
        row["reference_even"] = score(chat, cut_even(chat.reference, ours["tokens"]), all_names)
    if show:
        print(f"--- {chat.name}: the product's summary at the end ---\n{result['text']}\n")
    return row


def _fmt(s: dict) -> str:
    return (
        f"answers {s['answers_held']}/{s['answers']} ({s['answers_pct']:.1f} %), "
        f"names {s['names_held']}/{s['names']} ({s['names_pct']:.1f} %), {s['tokens']} tokens"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--locomo", type=Path, default=Path(os.environ.get("LOCOMO_PATH", default_locomo())))
    parser.add_argument("--only", nargs="*", help="LoCoMo sample ids (default: all in the file)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-generated", action="store_true")
    parser.add_argument("--show", action="store_true", help="print each final summary")
    args = parser.parse_args()
    # No embeddings: they play no part in the summary and would be computed per message.
    os.environ.setdefault("HISTORY_SEARCH_EMBEDDINGS", "off")

    only = set(args.only or (["conv-26"] if args.quick else []))
    chats = locomo_chats(args.locomo, only or None) if args.locomo.exists() else []
    if not chats:
        print(f"(no LoCoMo file at {args.locomo}: generated sets only)")
    if not args.no_generated:
        chats += generated_chats(args.quick)
    rows = []
    for chat in chats:
        row = evaluate(chat, show=args.show)
        rows.append(row)
        print(
            f"{row['chat']} ({row['messages']} messages; summary versions written {row['versions']}, "
            f"identical to the one before {row['identical_versions']}; updates {row['outcomes']}):"
        )
        print(f"  product summary:   {_fmt(row['ours'])}")
        for key in ("reference_prefix", "reference_even"):
            if key in row:
                print(f"  benchmark {key.split('_')[1]:<7} {_fmt(row[key])}")
    generated = [r for r in rows if r["chat"].startswith("generated-")]
    versions = sum(r["versions"] for r in rows)
    identical = sum(r["identical_versions"] for r in rows)
    print(f"all chats: {versions} summary versions written, {identical} identical to the one before")
    if generated:
        held = sum(r["ours"]["answers_held"] for r in generated)
        total = sum(r["ours"]["answers"] for r in generated)
        nh = sum(r["ours"]["names_held"] for r in generated)
        nt = sum(r["ours"]["names"] for r in generated)
        print(
            f"generated, all {len(generated)} chats: answers {held}/{total} ({100 * held / max(1, total):.1f} %), "
            f"names {nh}/{nt} ({100 * nh / max(1, nt):.1f} %)"
        )
    write_result("summaries", {"quick": args.quick, "chats": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
