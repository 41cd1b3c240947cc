"""Long-chat evaluation: history search and the assembled context, on any long-chat data set.

    .venv/bin/python -m bench.longchat.run                 # LoCoMo dev + generated sets
    .venv/bin/python -m bench.longchat.run --quick         # smoke: fewer questions, smaller chats
    .venv/bin/python -m bench.longchat.run --locomo PATH   # another LoCoMo-shaped file
    threads (and vectors) an earlier run loaded are kept when their content is the same
    (the thread id is a hash of it); --reload loads them again; --no-generated,
    --no-locomo, --replay to also replay each LoCoMo chat turn by turn (tokens over it)

Every chat (``bench.longchat.data``) is loaded as one thread through the product's
import (``usecases.importer.export_import``), each message with its date as
``created_at``, under the user ``bench-longchat``; Celery runs eagerly, so the
embedding task the import enqueues runs here as a worker would run it.

Two measures per data set, side by side in one run:

- **History search**: fractional evidence recall@5/10/25 (|evidence ∩ top k| /
  |evidence|, averaged over the questions) of ``search_history`` with embeddings
  (``ours``), without them (``lexical``), and BM25 (``bm25s``: lower-cased words, the
  language's stop words, no stemming) over the same turns; overall and per category.
- **Context evidence recall**: each question is appended as the next user message at
  the end of the conversation (in a transaction rolled back afterwards), after the
  rolling summary was brought up to date (extractive, no model), and ``build_context``
  assembles the context. Evidence "reaches" it when a turn's text is in the window
  or anywhere else in the context verbatim (an excerpt), when a summary line cites the
  turn's sequence, or when a memory in it was taken from that turn. Reported: the
  share of questions with at least one evidence turn in the context (``any``), the
  fractional share, where it came from, and the context's tokens against resending
  the whole history. ``--replay`` also replays each LoCoMo chat turn by turn (each
  message imported, the summary updated as the task would, a context built for every
  user turn) and sums the tokens sent over the whole conversation against full resend.

No LLM anywhere; the LoCoMo file is read where it lies, never copied.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

from bench.common import tasks_inline, write_result
from bench.longchat.data import default_locomo, generated_chats, locomo_chats
from bench.retrieval.dataset import DEV_SEEDS, TEST_SEEDS
from conversations.content import text_block
from conversations.embedding_services import message_embeddings_update
from conversations.models import Message, Thread, ThreadSummary
from conversations.search import search_history
from conversations.services import messages_append
from liamemory import embeddings
from memories.models import Memory
from usecases.importer import export_import
from usecases.thread_summary import thread_summarize
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent

KS = (5, 10, 25)
METHODS = ("ours", "lexical", "bm25")
USER = "bench-longchat"


def _embeddings(on: bool) -> None:
    from django.conf import settings

    settings.HISTORY_SEARCH_EMBEDDINGS = "on" if on else "off"
    embeddings._query_cached.cache_clear()


# --- loading ----------------------------------------------------------------------------


def _document(chat, turns: list | None = None) -> dict:
    turns = chat.turns if turns is None else turns
    return {
        "format": "liamemory.export",
        "version": 1,
        "threads": [
            {
                "id": str(_thread_id(chat)),
                "title": chat.name,
                "messages": [
                    {
                        "sequence": i,
                        "role": role,
                        "created_at": created.isoformat(),
                        "content": [{"type": "text", "text": text}],
                    }
                    for i, (role, text, created) in enumerate(turns, start=1)
                ],
            }
        ],
    }


def _thread_id(chat, salt: str = "") -> uuid.UUID:
    digest = hashlib.sha256(repr([(r, t, c.isoformat()) for r, t, c in chat.turns]).encode()).hexdigest()
    return uuid.uuid5(uuid.NAMESPACE_URL, f"liamemory-bench-longchat/{chat.name}/{digest}{salt}")


def load(user, chat, *, reuse: bool):
    """The chat as one thread through the import; with ``reuse``, a thread loaded before."""

    _embeddings(True)
    thread_id = _thread_id(chat)
    existing = Thread.objects.filter(pk=thread_id, owner=user).first()
    if existing and reuse and existing.next_sequence - 1 == len(chat.turns):
        message_embeddings_update(message_ids=list(existing.messages.values_list("id", flat=True)))
        return existing
    Thread.objects.filter(owner=user, title=chat.name).delete()
    export_import(document=_document(chat), owner=user)
    thread = Thread.objects.get(pk=thread_id)
    # The import's task made them already when Celery is eager; not when it is queued.
    message_embeddings_update(message_ids=list(thread.messages.values_list("id", flat=True)))
    return thread


# --- history search ---------------------------------------------------------------------


def _bm25(texts: list[str], lang: str):
    import bm25s

    stop = "it" if lang == "it" else "en"
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords=stop, show_progress=False), show_progress=False)

    def rank(query: str, k: int) -> list[int]:
        tokens = bm25s.tokenize([query], stopwords=stop, show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = retriever.retrieve(tokens, k=min(k, len(texts)), show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return rank


def _fraction(ranked: list[int], evidence: list[int], k: int) -> float:
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def history(thread, chat, questions) -> list[dict]:
    """Per question: the category and, per method, the ranked turn indexes (top 25)."""

    bm25 = _bm25([t for _, t, _ in chat.turns], chat.lang)
    rows = []
    for q in questions:
        ranked = {"bm25": bm25(q.text, max(KS))}
        for method in ("ours", "lexical"):
            _embeddings(method == "ours")
            started = time.perf_counter()
            hits = search_history(thread=thread, query=q.text, limit=max(KS))
            ranked[method + "_ms"] = (time.perf_counter() - started) * 1000
            ranked[method] = [h.sequence - 1 for h in hits]  # sequence 1 is turn 0
        rows.append({"category": q.category, "evidence": q.evidence, **ranked})
    _embeddings(True)
    return rows


# --- the assembled context --------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def distinctive_pieces(texts: dict[int, str]) -> dict[int, list[str]]:
    """Per turn, its sentences (25 characters or more) that no other turn of the chat contains.

    Their verbatim presence in a context shows the turn is there; a sentence many turns
    share ("Anyway, the weather was grey all day.") shows nothing.
    """
    normed = {seq: _norm(t) for seq, t in texts.items()}
    out = {}
    for seq, text in texts.items():
        body = text.split(": ", 1)[1] if re.match(r"^[^:]{1,40}: ", text) else text
        sentences = {_norm(s) for s in re.split(r"(?<=[.!?])\s+", body) if len(s.strip()) >= 25}
        out[seq] = [s for s in sentences if sum(1 for t in normed.values() if s in t) == 1]
    return out


def context_sources(ctx, evidence_seqs: list[int], pieces: dict[int, list[str]], parts: dict) -> dict:
    """Where each evidence turn (by sequence) reaches the context, if it does.

    ``parts``: the normalised text of the summary and of the memories in the context,
    the sequences the summary's lines cite, the source sequences of those memories.
    """
    whole = _norm(
        " ".join(b.get("text", "") for b in ctx.system)
        + " "
        + " ".join(
            b.get("text", "") if isinstance(b, dict) else str(b)
            for m in ctx.messages
            for b in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
        )
    )
    first_window = ctx.report.window_first_sequence
    found = {}
    for seq in evidence_seqs:
        own = pieces.get(seq, [])
        if seq >= first_window and (not own or any(p in whole for p in own)):
            found[seq] = "window"
        elif seq in parts["memory_refs"] or any(p in parts["memories"] for p in own):
            found[seq] = "memory"
        elif seq in parts["summary_refs"] or any(p in parts["summary"] for p in own):
            found[seq] = "summary"
        elif any(p in whole for p in own):
            found[seq] = "excerpt"
    return found


def _context_parts(ctx, thread) -> dict:

    version = ctx.report.summary_version
    summary = ThreadSummary.objects.filter(thread=thread, version=version).first() if version else None
    memories = list(Memory.objects.filter(id__in=ctx.report.memory_ids).select_related("source_message"))
    return {
        "summary": _norm(summary.text) if summary else "",
        "summary_refs": {int(n) for n in re.findall(r"\(#(\d+)\)", summary.text)} if summary else set(),
        "memories": _norm(" ".join(m.content for m in memories)),
        "memory_refs": {
            m.source_message.sequence
            for m in memories
            if m.source_message is not None and m.source_message.thread_id == thread.pk
        },
    }


def _summary_up_to_date(thread) -> None:

    for _ in range(50):
        if thread_summarize(thread_id=thread.pk, force=True, use_model=False).status != "created":
            return


def context(user, thread, chat, questions) -> list[dict]:
    """Each question as the next user message at the end of the chat; the context built for it."""
    from django.db import transaction

    _summary_up_to_date(thread)
    agent = get_agent(thread.agent)
    pieces = distinctive_pieces(dict(Message.objects.filter(thread=thread).values_list("sequence", "text")))
    rows = []
    for q in questions:
        with transaction.atomic():
            request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(q.text)]}])[0]
            thread.refresh_from_db()
            started = time.perf_counter()
            ctx = build_context(thread=thread, agent=agent, user=user, request_message=request)
            elapsed = (time.perf_counter() - started) * 1000
            found = context_sources(ctx, [e + 1 for e in q.evidence], pieces, _context_parts(ctx, thread))
            transaction.set_rollback(True)
        rows.append(
            {
                "category": q.category,
                "any": bool(found),
                "fraction": len(found) / len(q.evidence),
                "sources": sorted(set(found.values())),
                "tokens": ctx.report.estimated_tokens,
                "full": ctx.report.full_resend_tokens,
                "ms": elapsed,
            }
        )
    thread.refresh_from_db()
    return rows


def replay(user, chat) -> dict:
    """The chat replayed message by message through the import, a context per user turn.

    Tokens sent over the whole conversation (each user turn's context) against resending
    the whole history at each of those turns.
    """

    thread_id = _thread_id(chat, salt="/replay")
    Thread.objects.filter(pk=thread_id).delete()
    agent = get_agent("assistant")
    sent = full = turns = 0
    for i in range(len(chat.turns)):
        document = _document(chat, chat.turns[: i + 1])
        document["threads"][0]["id"] = str(thread_id)
        document["threads"][0]["messages"] = document["threads"][0]["messages"][i:]
        export_import(document=document, owner=user)
        if chat.turns[i][0] == "user":
            thread = Thread.objects.get(pk=thread_id)
            request = Message.objects.get(thread=thread, sequence=i + 1)
            ctx = build_context(thread=thread, agent=agent, user=user, request_message=request)
            sent += ctx.report.estimated_tokens or 0
            full += ctx.report.full_resend_tokens or 0
            turns += 1
        thread_summarize(thread_id=thread_id, use_model=False)
    Thread.objects.filter(pk=thread_id).delete()
    return {"turns": turns, "sent": sent, "full": full, "ratio": sent / max(1, full)}


# --- report ---------------------------------------------------------------------------


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def summarize(dataset: str, hist: list[dict], ctx: list[dict], replays: list[dict]) -> dict:
    def recall(rows):
        return {m: {k: _mean(_fraction(r[m], r["evidence"], k) for r in rows) for k in KS} for m in METHODS}

    categories = sorted({r["category"] for r in hist})
    out = {
        "dataset": dataset,
        "questions": len(hist),
        "recall": recall(hist),
        "by_category": {
            c: {
                "questions": sum(r["category"] == c for r in hist),
                "recall": recall([r for r in hist if r["category"] == c]),
            }
            for c in categories
        },
        "latency_ms": {m: statistics.median([r[m + "_ms"] for r in hist]) for m in ("ours", "lexical")} if hist else {},
    }
    if ctx:
        sources: dict[str, int] = {}
        for r in ctx:
            for s in r["sources"]:
                sources[s] = sources.get(s, 0) + 1
        out["context"] = {
            "any": _mean(r["any"] for r in ctx),
            "fraction": _mean(r["fraction"] for r in ctx),
            "sources": sources,
            "tokens": _mean(r["tokens"] for r in ctx),
            "full": _mean(r["full"] for r in ctx),
            "ms": statistics.median(r["ms"] for r in ctx),
        }
    if replays:
        sent, full = sum(r["sent"] for r in replays), sum(r["full"] for r in replays)
        out["replay"] = {"turns": sum(r["turns"] for r in replays), "sent": sent, "full": full, "ratio": sent / full}
    return out


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def print_report(results: list[dict]) -> None:
    head = " ".join(f"{m[:4] + '@' + str(k):>8}" for k in KS for m in METHODS)
    print("\nHistory search: fractional evidence recall (ours = with embeddings, lexi = without, bm25 = bm25s)")
    print(f"{'set':<22}{'qs':>5} {head} {'o/b@10':>7} {'l/b@10':>7}")
    for r in results:
        for label, n, rec in [(r["dataset"], r["questions"], r["recall"])] + [
            (f"  {c}", v["questions"], v["recall"]) for c, v in r["by_category"].items()
        ]:
            cells = " ".join(f"{rec[m][k] * 100:>8.1f}" for k in KS for m in METHODS)
            b = rec["bm25"][10]
            print(f"{label:<22}{n:>5} {cells} {_ratio(rec['ours'][10], b):>7} {_ratio(rec['lexical'][10], b):>7}")
    print(
        "search_history median ms, ours / lexical: "
        + ", ".join(
            f"{r['dataset']} {r['latency_ms'].get('ours', 0):.0f}/{r['latency_ms'].get('lexical', 0):.0f}"
            for r in results
            if r["latency_ms"]
        )
    )
    with_ctx = [r for r in results if "context" in r]
    if with_ctx:
        print("\nContext evidence recall: the question asked as the next user message at the end of the chat")
        print(
            f"{'set':<22}{'qs':>5} {'any %':>7} {'frac %':>7}  {'ctx tok':>8} {'full tok':>9} {'ratio':>6}  "
            f"{'ms':>5}  sources (questions)"
        )
        for r in with_ctx:
            c = r["context"]
            src = ", ".join(f"{k} {v}" for k, v in sorted(c["sources"].items())) or "-"
            print(
                f"{r['dataset']:<22}{r['questions']:>5} {c['any'] * 100:>7.1f} {c['fraction'] * 100:>7.1f}  "
                f"{c['tokens']:>8.0f} {c['full']:>9.0f} {c['tokens'] / max(1, c['full']):>6.3f}  {c['ms']:>5.0f}  {src}"
            )
    for r in results:
        if "replay" in r:
            p = r["replay"]
            print(
                f"replay {r['dataset']}: {p['turns']} user turns, tokens sent {p['sent']:,} vs full resend "
                f"{p['full']:,}: ratio {p['ratio']:.3f}"
            )


def _subsample(questions: list, every: int) -> list:
    return questions[::every] if every > 1 else questions


def evaluate(
    groups: dict[str, list],
    *,
    user,
    reuse: bool = False,
    every: int = 1,
    context_too: bool = True,
    replay_too: bool = False,
) -> list[dict]:
    """Every data set's figures (``summarize``); ``every``: one question in that many."""
    results = []
    for dataset, chats in groups.items():
        hist, ctx, replays = [], [], []
        for chat in chats:
            started = time.perf_counter()
            thread = load(user, chat, reuse=reuse)
            questions = _subsample(chat.questions, every)
            hist += history(thread, chat, questions)
            if context_too:
                ctx += context(user, thread, chat, questions)
            if replay_too and chat.name.startswith("conv-"):
                replays.append(replay(user, chat))
            print(
                f"  {chat.name}: {len(chat.turns)} turns, {len(questions)} questions, "
                f"{time.perf_counter() - started:.0f} s",
                flush=True,
            )
        results.append(summarize(dataset, hist, ctx, replays))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer questions, smaller generated chats")
    parser.add_argument("--locomo", default=os.environ.get("LOCOMO_PATH"), help="a LoCoMo-shaped JSON file")
    parser.add_argument("--samples", nargs="*", default=None, help="only these LoCoMo sample_ids")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--no-generated", action="store_true")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="generated chats (default: test seeds)")
    parser.add_argument("--split", choices=["test", "dev"], default="test", help="generated questions' split")
    parser.add_argument("--no-context", action="store_true", help="history search only")
    parser.add_argument("--replay", action="store_true", help="replay each LoCoMo chat turn by turn (slow)")
    parser.add_argument("--reload", action="store_true", help="load again threads an earlier run loaded")
    args = parser.parse_args(argv)
    tasks_inline()
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=USER)
    every = 4 if args.quick else 1
    groups: dict[str, list] = {}
    if not args.no_locomo:
        path = Path(args.locomo) if args.locomo else default_locomo()
        if path.exists():
            chats = locomo_chats(path, samples=args.samples)
            for chat in chats[: 1 if args.quick and not args.samples else None]:
                groups.setdefault(chat.dataset, []).append(chat)
        else:
            print(f"no LoCoMo file at {path.resolve()} (give --locomo PATH); generated sets only")
    if not args.no_generated:
        seeds = args.seeds or list(TEST_SEEDS if args.split == "test" else DEV_SEEDS)[: 1 if args.quick else None]
        for seed in seeds:
            for style in ("a", "b"):
                for chat in generated_chats(seed=seed, style=style, split=args.split, quick=args.quick):
                    label = f"gen-{chat.dataset} ({args.split}, seed{'s' if len(seeds) > 1 else ''} "
                    label += ",".join(map(str, seeds)) + ")"
                    groups.setdefault(label, []).append(chat)
    results = evaluate(
        groups, user=user, reuse=not args.reload, every=every, context_too=not args.no_context, replay_too=args.replay
    )
    print_report(results)
    write_result("longchat", {"quick": args.quick, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
