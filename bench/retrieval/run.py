"""Retrieval quality: the product's searches against a BM25 baseline, same questions, same run.

    .venv/bin/python -m bench.retrieval.run [--quick] [--seeds 7 11] [--styles a b]

Loads each generated conversation as one thread (``thread_create`` + ``messages_append``)
into the database the settings point at (the embedded one by default), under a user
``bench-retrieval`` whose data is replaced on every run. Prints recall@5/10/25 of
``search_history`` and of BM25 (``bm25s``: lower-cased words, the conversation
language's stop words, no stemming) and the ratio of misses at 10; then recall@1/3/5
of ``search_memories`` against BM25 over the same memories. No LLM anywhere.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time

KS = (5, 10, 25)
MEMORY_KS = (1, 3, 5)


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "liamemory.settings.base")
    import logging

    import django

    django.setup()
    logging.disable(logging.INFO)  # bm25s logs every index build at DEBUG


def _bm25_rank(texts: list[str], lang: str):
    import bm25s

    stop = "it" if lang == "it" else "en"
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords=stop, show_progress=False), show_progress=False)

    def rank(query: str, k: int) -> list[int]:
        tokens = bm25s.tokenize([query], stopwords=stop, show_progress=False)
        if not tokens.vocab:
            return []
        k = min(k, len(texts))
        docs, scores = retriever.retrieve(tokens, k=k, show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return rank


def _first_hit(ranked: list[int], answers: set[int]) -> int | None:
    for position, item in enumerate(ranked, start=1):
        if item in answers:
            return position
    return None


def _recall(positions: list[int | None], k: int) -> float:
    return sum(1 for p in positions if p is not None and p <= k) / max(1, len(positions))


def _user(name: str):
    from django.contrib.auth import get_user_model

    from conversations.models import Thread
    from memories.models import Memory

    user, _ = get_user_model().objects.get_or_create(username=name)
    Memory.objects.filter(user=user).delete()
    Thread.objects.filter(owner=user).delete()
    return user


def history_bench(*, seeds: list[int], styles: list[str], quick: bool) -> list[dict]:
    from bench.retrieval.dataset import generate
    from conversations.services import messages_append, thread_create
    from memories.retrieval import search_history

    user = _user("bench-retrieval")
    results = []
    for seed in seeds:
        for style in styles:
            convs = generate(
                seed=seed, style=style, conversations=3 if quick else 6, sessions=10 if quick else 12, turns=22
            )
            ours, base, latencies, per_lang = [], [], [], {"en": [], "it": []}
            for conv in convs:
                thread = thread_create(owner=user, title=conv.name)
                starts = [*conv.session_starts, len(conv.turns)]
                for a, b in itertools.pairwise(starts):
                    items = [{"role": r, "content": [{"type": "text", "text": t}]} for r, t in conv.turns[a:b]]
                    messages_append(thread=thread, items=items)
                bm25 = _bm25_rank([t for _, t in conv.turns], conv.lang)
                for q in conv.questions:
                    answers = set(q.answer_turns)
                    started = time.perf_counter()
                    hits = search_history(thread=thread, query=q.text, limit=max(KS))
                    latencies.append((time.perf_counter() - started) * 1000)
                    mine = _first_hit([h.sequence - 1 for h in hits], answers)  # sequence 1 = turn 0
                    theirs = _first_hit(bm25(q.text, max(KS)), answers)
                    ours.append(mine)
                    base.append(theirs)
                    per_lang[conv.lang].append((mine, theirs))
            results.append(
                {
                    "seed": seed,
                    "style": style,
                    "questions": len(ours),
                    "turns": sum(len(c.turns) for c in convs) // len(convs),
                    "ours": {k: _recall(ours, k) for k in KS},
                    "bm25": {k: _recall(base, k) for k in KS},
                    "it": {
                        "n": len(per_lang["it"]),
                        "ours10": _recall([m for m, _ in per_lang["it"]], 10),
                        "bm2510": _recall([t for _, t in per_lang["it"]], 10),
                    },
                    "p50_ms": statistics.median(latencies),
                    "p95_ms": sorted(latencies)[int(0.95 * (len(latencies) - 1))],
                }
            )
    return results


def memory_bench(*, seeds: list[int]) -> dict:
    from bench.retrieval.dataset import memory_sets
    from memories.models import Memory
    from memories.retrieval import search_memories

    ours, base = [], []
    for seed in seeds:
        for i, mset in enumerate(memory_sets(seed=seed)):
            user = _user(f"bench-memory-{i}")
            rows = [Memory.objects.create(user=user, content=text) for text in mset.memories]
            bm25 = _bm25_rank(mset.memories, mset.lang)
            for question, index in mset.questions:
                hits = search_memories(user=user, query=question, limit=max(MEMORY_KS))
                ours.append(_first_hit([h.memory.pk for h in hits], {rows[index].pk}))
                base.append(_first_hit(bm25(question, max(MEMORY_KS)), {index}))
            Memory.objects.filter(user=user).delete()
    return {
        "questions": len(ours),
        "ours": {k: _recall(ours, k) for k in MEMORY_KS},
        "bm25": {k: _recall(base, k) for k in MEMORY_KS},
    }


def _miss_ratio(ours: float, bm25: float) -> str:
    return "n/a" if bm25 >= 1 else f"{(1 - ours) / (1 - bm25):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer and shorter conversations, one seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=None)
    parser.add_argument("--styles", nargs="+", default=["a", "b"])
    args = parser.parse_args(argv)
    seeds = args.seeds or ([7] if args.quick else [7, 11])
    _setup()

    print("History search: recall@k of the answer turn (ours = memories.retrieval.search_history)")
    header = f"{'set':<8}{'qs':>5}{'turns':>7}" + "".join(f"{'ours@' + str(k):>9}{'bm25@' + str(k):>9}" for k in KS)
    print(header + f"{'miss@10':>9}{'it ours/bm25@10':>17}{'p50 ms':>8}{'p95 ms':>8}")
    rows = history_bench(seeds=seeds, styles=args.styles, quick=args.quick)
    for r in rows:
        cells = "".join(f"{r['ours'][k]:>9.3f}{r['bm25'][k]:>9.3f}" for k in KS)
        it = f"{r['it']['ours10']:.2f}/{r['it']['bm2510']:.2f} ({r['it']['n']})" if r["it"]["n"] else "-"
        print(
            f"{r['style'] + str(r['seed']):<8}{r['questions']:>5}{r['turns']:>7}{cells}"
            f"{_miss_ratio(r['ours'][10], r['bm25'][10]):>9}{it:>17}{r['p50_ms']:>8.1f}{r['p95_ms']:>8.1f}"
        )
    total = sum(r["questions"] for r in rows)
    pooled = {
        name: {k: sum(r[name][k] * r["questions"] for r in rows) / total for k in KS} for name in ("ours", "bm25")
    }
    cells = "".join(f"{pooled['ours'][k]:>9.3f}{pooled['bm25'][k]:>9.3f}" for k in KS)
    ratio = _miss_ratio(pooled["ours"][10], pooled["bm25"][10])
    print(f"{'all':<8}{total:>5}{'':>7}{cells}{ratio:>9}")
    print("target: miss@10 = (1 - recall@10 ours) / (1 - recall@10 bm25) <= 0.65")

    mem = memory_bench(seeds=seeds)
    print(f"\nMemory recall ({mem['questions']} questions, 20 memories per user)")
    for k in MEMORY_KS:
        print(f"  recall@{k}: ours {mem['ours'][k]:.3f}   bm25 {mem['bm25'][k]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
