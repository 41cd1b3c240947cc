"""History search when the answer lies deep in a long thread: what the lexical window costs.

Each LoCoMo development chat is loaded as the start of a longer thread, followed by
``--filler`` turns of other chats (the other LoCoMo chat, then the generated development
chats in English, seed 3), dated after it; its questions are asked at the end. Every
evidence turn then sits more than ``--filler`` messages back: a window shorter than
that leaves it to the older rows holding every query word (``search_sql.OLDER_ROWS``)
and to the vectors. Reported per window: recall@5/10/25 with embeddings, @10 lexical
only, the median call. No development chat is long enough to show this on its own
(370-700 messages, all inside any window tried).

    .venv/bin/python -m bench.longchat.deep                          # windows 3000 and 1000, 1,600 filler turns
    .venv/bin/python -m bench.longchat.deep --windows 3000 2000 --filler 2500
"""

from __future__ import annotations

import argparse
import statistics
import sys
from datetime import timedelta

from django.test.utils import override_settings

from bench.common import tasks_inline
from bench.longchat import run
from bench.longchat.data import Chat, default_locomo, generated_chats, locomo_chats


def deep_chats(filler: int) -> list[Chat]:
    """conv-26 followed by conv-30 and generated turns, and conv-30 followed by conv-26 and generated turns."""
    chats = {c.name: c for c in locomo_chats(default_locomo())}
    generated = [
        c
        for style in ("a", "b")
        for c in generated_chats(seed=3, style=style, split="dev", quick=False)
        if c.lang == "en"
    ]
    out = []
    for name, other in (("conv-26", "conv-30"), ("conv-30", "conv-26")):
        target = chats[name]
        pool = [(r, t) for r, t, _ in chats[other].turns] + [(r, t) for c in generated for r, t, _ in c.turns]
        start = target.turns[-1][2] + timedelta(days=1)
        after = [(r, t, start + timedelta(minutes=10 * i)) for i, (r, t) in enumerate(pool[:filler])]
        out.append(
            Chat(
                name=f"{name}+{len(after)}",
                dataset=f"{name} deep",
                lang=target.lang,
                turns=[*target.turns, *after],
                questions=target.questions,
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[3000, 1000])
    parser.add_argument("--filler", type=int, default=1600)
    args = parser.parse_args(argv)
    tasks_inline()
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=run.USER)
    for chat in deep_chats(args.filler):
        thread = run.load(user, chat, reuse=True)
        for window in args.windows:
            with override_settings(HISTORY_LEXICAL_WINDOW=window):
                rows = run.history(thread, chat, chat.questions)

            def recall(method: str, k: int, rows: list[dict] = rows) -> float:
                return 100 * statistics.fmean(run._fraction(r[method], r["evidence"], k) for r in rows)

            print(
                f"{chat.name} ({len(chat.turns)} turns, {len(rows)} questions), window {window}: "
                f"ours @5/@10/@25 {recall('ours', 5):.1f} / {recall('ours', 10):.1f} / {recall('ours', 25):.1f}, "
                f"lexical @10 {recall('lexical', 10):.1f}; "
                f"median {statistics.median(r['ours_ms'] for r in rows):.0f} ms",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
