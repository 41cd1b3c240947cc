"""The product as it is used: chats replayed through the HTTP API, scored per split.

    .venv/bin/python -m bench.productchat                      # dev split, every chat
    .venv/bin/python -m bench.productchat --quick              # the two shortest dev chats (smoke)
    .venv/bin/python -m bench.productchat --split heldout      # the split scored once
    .venv/bin/python -m bench.productchat --chats w4-01 --json /tmp/pc.json
    .venv/bin/python -m bench.productchat --rescore /tmp/pc.json  # score saved records again, no stack

Starts the product as ``bench/stack.py`` does (gunicorn, a turn worker on its own queue,
a background worker for embeddings and summaries; the offline model, no API key)
against ``DATABASE_URL`` and ``CELERY_BROKER_URL`` (give it a database and a Redis
database of its own), replays each chat as one person (``replay.py``) and scores what
happened (``score.py``). Prints one table per split; ``--json`` writes the figures,
the per-question rows and the records.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import load_average, write_result
from bench.productchat.data import SPLITS, load_split, quick_subset
from bench.productchat.replay import Settler, replay_chat
from bench.productchat.score import score_chat, summarize
from bench.stack import Stack

REPO = Path(__file__).resolve().parents[2]


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
        return out.stdout.strip() + ("+dirty" if dirty.strip() else "")
    except OSError:
        return ""


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f} %)" if d else "—"


def table(split: str, s: dict[str, Any]) -> str:
    same, new, rows, mem, tok = s["same_thread"], s["new_thread"], s["excerpt_rows"], s["memories"], s["tokens"]

    def sources(part: dict[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(part["sources"].items()))

    lines = [
        f"split {split}: {s['chats']} chats, {s['turns']} turns, {s['failed_turns']} runs not completed",
        f"  {'figure':<44} {'value':<22} target",
        f"  {'fact reached the context, same thread':<44} {_pct(same['reached'], same['questions']):<22} 100 %"
        f"   [{sources(same)}]",
        f"  {'fact reached the context, new thread':<44} {_pct(new['reached'], new['questions']):<22} >= 90 %"
        f"  [{sources(new)}]",
        f"  {'reply holds the value, same thread':<44} {_pct(same['correct'], same['questions']):<22} >= 95 %",
        f"  {'reply holds the value, new thread':<44} {_pct(new['correct'], new['questions']):<22} >= 95 %",
        f"  {'by language: reached / reply holds, all':<44} "
        + ", ".join(f"{k} {v['reached']}/{v['correct']} of {v['questions']}" for k, v in s["by_lang"].items()),
        f"  {'reply holds an older value (same / new)':<44} {same['old_value_in_reply']} / {new['old_value_in_reply']}",
        f"  {'excerpt rows shown':<44} {rows['shown']}",
        f"  {'  of which tool traffic':<44} {_pct(rows['tool'], rows['shown']):<22} 0",
        f"  {'  of which carry nothing':<44} {_pct(rows['nothing'], rows['shown']):<22} <= 5 %",
        f"  {'  under fact questions: about the asked fact':<44} {_pct(rows['about_fact'], rows['under_questions'])}",
        f"  {'  under other turns / repeats in one reply':<44} {rows['elsewhere']} / {rows['repeats']}",
        f"  {'memories stored (labelled store / all)':<44} {_pct(mem['stored_labelled_store'], mem['stored']):<22}"
        " precision >= 0.95",
        f"  {'labelled store turns with a memory':<44} {_pct(mem['labelled_stored'], mem['labelled']):<22} recall",
        f"  {'  by kind (stored/labelled)':<44} "
        + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in mem["labelled_by_kind"].items()),
        f"  {'stale memories active at the end':<44} {mem['stale_active']:<22} 0",
        f"  {'tokens sent / full resend':<44} {tok['sent']:,} / {tok['full_resend']:,} ({tok['ratio']})",
    ]
    return "\n".join(lines)


def rescore(path: Path) -> int:
    """The tables of an earlier run's records, scored by today's scorer (the chats' labels read afresh)."""
    earlier = json.loads(path.read_text())
    print(f"records of commit {earlier.get('commit')}, rescored")
    for split, part in earlier["splits"].items():
        chats = {c.id: c for c in load_split(split)}
        scored = [score_chat(chats[r["chat"]], r) for r in part["records"]]
        print(table(split, summarize(scored)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, action="append", help="dev (default) and/or heldout")
    parser.add_argument("--quick", action="store_true", help="the two shortest chats of each split")
    parser.add_argument("--chats", nargs="*", help="only these chat ids")
    parser.add_argument("--json", type=Path, help="write the figures, rows and records here")
    parser.add_argument("--rescore", type=Path, help="score the records of an earlier --json file again (no stack)")
    args = parser.parse_args(argv)
    if args.rescore:
        return rescore(args.rescore)
    splits = args.split or ["dev"]
    chosen = {}
    for split in splits:
        chats = load_split(split)
        if args.chats:
            chats = [c for c in chats if c.id in set(args.chats)]
        if args.quick:
            chats = quick_subset(chats)
        if not chats:
            print(f"split {split}: no chats (bench/productchat/data/{split}/*.jsonl)")
            continue
        chosen[split] = chats
    if not chosen:
        return 1

    from django.conf import settings

    commit = _commit()
    settler = Settler(settings.CELERY_BROKER_URL)
    stack = Stack.production(concurrency=4, threads=4, env={"OFFLINE_WORD_DELAY_SECONDS": "0"}).start()
    result: dict[str, Any] = {"commit": commit, "quick": args.quick, "splits": {}}
    started = time.monotonic()
    loads = [load_average()]
    try:
        for split, chats in chosen.items():
            scored, records = [], []
            for chat in chats:
                t0 = time.monotonic()
                record = replay_chat(stack.url, chat, settler)
                records.append(record)
                scored.append(score_chat(chat, record))
                loads.append(load_average())
                print(f"  {split} {chat.id}: {len(chat.turns)} turns in {time.monotonic() - t0:.0f} s", flush=True)
            result["splits"][split] = {"figures": summarize(scored), "chats": scored, "records": records}
    finally:
        stack.stop()
    result["seconds"] = round(time.monotonic() - started)
    result["load_average"] = [min(loads), max(loads)]
    print(f"commit {commit}, {result['seconds']} s, load average {min(loads)}–{max(loads)}")
    for split, part in result["splits"].items():
        print(table(split, part["figures"]))
    write_result("productchat" + ("-quick" if args.quick else ""), result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
