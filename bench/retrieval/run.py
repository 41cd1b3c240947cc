"""Retrieval quality: the product's searches against a BM25 baseline, same questions, same run.

    .venv/bin/python -m bench.retrieval.run [--quick] [--split test|dev] [--reuse]

Loads each generated conversation as one thread through the import of export documents
(``usecases.importer.export_import``) into the database the settings point at, under
a user ``bench-retrieval``. Celery runs eagerly here, so the embedding task the import
enqueues runs in this process, as a worker would run it. ``--reuse`` keeps threads
loaded by an earlier run (same chat, same length) instead of loading them again.

Reports, on the questions of one split (``test`` by default: facts and seeds never used
for tuning; ``dev`` is the tuning set), recall@5/10/25 of ``search_history`` with
embeddings (the default method), the same without them (lexical only), and BM25
(``bm25s``: lower-cased words, the conversation language's stop words, no stemming);
then recall@1/3/5 of ``search_memories`` likewise, how many memories each of them
injects for chit-chat messages that concern none of them, and latencies. No LLM anywhere.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench.common import tasks_inline
from bench.retrieval.dataset import DEV_SEEDS, TEST_SEEDS, generate, memory_sets
from conversations.embedding_services import message_embeddings_update
from conversations.models import Thread
from conversations.search import search_history
from liamemory import embeddings
from memories.embedding_services import memory_embeddings_update
from memories.models import Memory
from memories.recall import search_memories
from usecases.importer import export_import

KS = (5, 10, 25)
MEMORY_KS = (1, 3, 5)
METHODS = ("ours", "lexical", "bm25")


def _embeddings(on: bool) -> None:
    from django.conf import settings

    settings.HISTORY_SEARCH_EMBEDDINGS = "on" if on else "off"
    embeddings._query_cached.cache_clear()  # time every question's embedding, never a cached one


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


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[int(q * (len(values) - 1))] if values else 0.0


def _user(name: str, *, keep_threads: bool = False):
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=name)
    Memory.objects.filter(user=user).delete()
    if not keep_threads:
        Thread.objects.filter(owner=user).delete()
    return user


def _document(conv) -> dict:
    """The conversation as an export document (``docs/export.schema.json``), one thread."""
    import uuid

    messages = [
        {"sequence": i, "role": role, "content": [{"type": "text", "text": text}]}
        for i, (role, text) in enumerate(conv.turns, start=1)
    ]
    thread_id = uuid.uuid5(uuid.NAMESPACE_URL, f"liamemory-bench-retrieval/{conv.name}/{len(conv.turns)}")
    return {
        "format": "liamemory.export",
        "version": 1,
        "threads": [{"id": str(thread_id), "title": conv.name, "messages": messages}],
    }


def _thread_for(user, conv, *, reuse: bool):
    """The conversation as one thread, loaded through the import (``usecases.importer``).

    The import enqueues the embedding task on commit; Celery is eager here, so the
    vectors are made before this returns.
    """

    _embeddings(True)  # loading embeds, whichever method the last question used
    existing = Thread.objects.filter(owner=user, title=conv.name).first()
    if existing and reuse and existing.next_sequence - 1 == len(conv.turns):
        # Vectors a killed run did not make yet.
        message_embeddings_update(message_ids=list(existing.messages.values_list("id", flat=True)))
        return existing
    Thread.objects.filter(owner=user, title=conv.name).delete()
    document = _document(conv)
    export_import(document=document, owner=user)
    return Thread.objects.get(pk=document["threads"][0]["id"])


def history_bench(*, seeds: list[int], styles: list[str], split: str, quick: bool, reuse: bool) -> list[dict]:

    user = _user("bench-retrieval", keep_threads=True)  # each chat's thread is replaced on its own
    results = []
    for seed in seeds:
        for style in styles:
            convs = generate(
                seed=seed, style=style, conversations=3 if quick else 6, sessions=10 if quick else 12, turns=22
            )
            found: dict[str, list[int | None]] = {m: [] for m in METHODS}
            latency: dict[str, list[float]] = {"ours": [], "lexical": []}
            it: dict[str, list[int | None]] = {m: [] for m in METHODS}
            for conv in convs:
                thread = _thread_for(user, conv, reuse=reuse)
                bm25 = _bm25_rank([t for _, t in conv.turns], conv.lang)
                for q in conv.questions:
                    if q.split != split:
                        continue
                    answers = set(q.answer_turns)
                    for method in ("ours", "lexical"):
                        _embeddings(method == "ours")
                        started = time.perf_counter()
                        hits = search_history(thread=thread, query=q.text, limit=max(KS))
                        latency[method].append((time.perf_counter() - started) * 1000)
                        found[method].append(_first_hit([h.sequence - 1 for h in hits], answers))  # seq 1 = turn 0
                    found["bm25"].append(_first_hit(bm25(q.text, max(KS)), answers))
                    if conv.lang == "it":
                        for m in METHODS:
                            it[m].append(found[m][-1])
            results.append(
                {
                    "set": f"{style}{seed}",
                    "questions": len(found["bm25"]),
                    "recall": {m: {k: _recall(found[m], k) for k in KS} for m in METHODS},
                    "it": {m: _recall(it[m], 10) for m in METHODS},
                    "it_n": len(it["bm25"]),
                    "latency": latency,
                }
            )
    _embeddings(True)
    return results


def memory_bench(*, seeds: list[int], split: str) -> dict:

    found: dict[str, list[int | None]] = {m: [] for m in METHODS}
    injected: dict[str, list[int]] = {"ours": [], "lexical": []}
    latency: dict[str, list[float]] = {"ours": [], "lexical": []}
    for seed in seeds:
        for i, mset in enumerate(memory_sets(seed=seed)):
            user = _user(f"bench-memory-{i}")
            # Memory.objects.create skips the services' duplicate rules; the vectors come
            # from the same service the task calls.
            rows = [Memory.objects.create(user=user, content=text) for text in mset.memories]
            _embeddings(True)
            memory_embeddings_update(memory_ids=[r.pk for r in rows])
            bm25 = _bm25_rank(mset.memories, mset.lang)
            for question, index, qsplit in mset.questions:
                if qsplit != split:
                    continue
                for method in ("ours", "lexical"):
                    _embeddings(method == "ours")
                    started = time.perf_counter()
                    hits = search_memories(user=user, query=question, limit=max(MEMORY_KS))
                    latency[method].append((time.perf_counter() - started) * 1000)
                    found[method].append(_first_hit([h.memory.pk for h in hits], {rows[index].pk}))
                found["bm25"].append(_first_hit(bm25(question, max(MEMORY_KS)), {index}))
            for message in mset.unrelated:
                for method in ("ours", "lexical"):
                    _embeddings(method == "ours")
                    injected[method].append(len(search_memories(user=user, query=message, limit=8)))
            Memory.objects.filter(user=user).delete()
    _embeddings(True)
    return {
        "questions": len(found["bm25"]),
        "recall": {m: {k: _recall(found[m], k) for k in MEMORY_KS} for m in METHODS},
        "injected": {m: statistics.mean(v) if v else 0.0 for m, v in injected.items()},
        "unrelated": len(injected["ours"]),
        "latency": latency,
    }


def query_embedding_cost(samples: int = 50) -> dict:
    """The price of embedding a user message as a query (the part of recall that is not SQL)."""

    texts = ["What did we call our new pet?", "Quick one: how long should a flight take, roughly?"]
    times = []
    embeddings.query_vector("warm up")
    for i in range(samples):
        embeddings._query_cached.cache_clear()
        started = time.perf_counter()
        embeddings.query_vector(texts[i % 2] + f" {i}")
        times.append((time.perf_counter() - started) * 1000)
    return {"p50": statistics.median(times), "p95": _pct(times, 0.95)}


def _miss_ratio(ours: float, bm25: float) -> str:
    return "n/a" if bm25 >= 1 else f"{(1 - ours) / (1 - bm25):.2f}"


def _print_history(rows: list[dict]) -> None:
    head = "".join(f"{m[:3] + '@' + str(k):>9}" for k in KS for m in METHODS)
    print(f"{'set':<6}{'qs':>5}{head}{'miss@10':>9}  {'it@10 ours/lex/bm25':<20}")
    for r in rows:
        cells = "".join(f"{r['recall'][m][k]:>9.3f}" for k in KS for m in METHODS)
        it = "/".join(f"{r['it'][m]:.2f}" for m in METHODS) + f" ({r['it_n']})" if r["it_n"] else "-"
        ratio = _miss_ratio(r["recall"]["ours"][10], r["recall"]["bm25"][10])
        print(f"{r['set']:<6}{r['questions']:>5}{cells}{ratio:>9}  {it:<20}")
    total = sum(r["questions"] for r in rows)
    pooled = {m: {k: sum(r["recall"][m][k] * r["questions"] for r in rows) / total for k in KS} for m in METHODS}
    cells = "".join(f"{pooled[m][k]:>9.3f}" for k in KS for m in METHODS)
    print(f"{'all':<6}{total:>5}{cells}{_miss_ratio(pooled['ours'][10], pooled['bm25'][10]):>9}")
    print(
        f"misses at 10 / BM25's: ours {_miss_ratio(pooled['ours'][10], pooled['bm25'][10])}, "
        f"lexical only {_miss_ratio(pooled['lexical'][10], pooled['bm25'][10])} (target <= 0.65)"
    )
    for m in ("ours", "lexical"):
        lat = [x for r in rows for x in r["latency"][m]]
        print(f"search_history latency, {m}: p50 {statistics.median(lat):.1f} ms, p95 {_pct(lat, 0.95):.1f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer and shorter conversations, one seed")
    parser.add_argument("--split", choices=["test", "dev"], default="test", help="dev is for tuning")
    parser.add_argument("--seeds", type=int, nargs="+", default=None)
    parser.add_argument("--styles", nargs="+", default=["a", "b"])
    parser.add_argument("--reuse", action="store_true", help="keep threads an earlier run loaded")
    args = parser.parse_args(argv)
    tasks_inline()

    seeds = args.seeds or list(TEST_SEEDS if args.split == "test" else DEV_SEEDS)[: 1 if args.quick else None]

    print(
        f"Split {args.split}, seeds {seeds}. ours = search_history with embeddings (default), "
        "lexical = the same without them, bm25 = bm25s"
    )
    rows = history_bench(seeds=seeds, styles=args.styles, split=args.split, quick=args.quick, reuse=args.reuse)
    _print_history(rows)

    mem = memory_bench(seeds=seeds, split=args.split)
    print(f"\nMemory recall ({mem['questions']} questions, 20 memories per user)")
    for k in MEMORY_KS:
        print(f"  recall@{k}: " + "   ".join(f"{m} {mem['recall'][m][k]:.3f}" for m in METHODS))
    print(
        f"  memories injected per unrelated chit-chat message ({mem['unrelated']}): "
        f"ours {mem['injected']['ours']:.2f}, lexical {mem['injected']['lexical']:.2f}"
    )
    for m in ("ours", "lexical"):
        lat = mem["latency"][m]
        print(f"  search_memories latency, {m}: p50 {statistics.median(lat):.1f} ms, p95 {_pct(lat, 0.95):.1f} ms")
    cost = query_embedding_cost()
    print(f"\nQuery embedding alone: p50 {cost['p50']:.1f} ms, p95 {cost['p95']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
