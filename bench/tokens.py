"""Tokens sent over a long multi-session conversation: memory layer vs full-history resend.

Replays a deterministic conversation (sessions of small talk in which order codes,
amounts and dates are stated along the way) through the product's real context
builder, with the rolling summary updated between turns as the background task
would (``thread_summary_update``, extractive summarizer, no API key). For every turn
it records the estimated input tokens of the assembled context and what resending
the whole history would have cost, and at the end how many of the stated
identifiers the final context still holds (summary, window or memories).

    .venv/bin/python -m bench.tokens            # 400 turns
    .venv/bin/python -m bench.tokens --quick    # 120 turns
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "liamemory.settings.base")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()


FILLER = [
    "How was your weekend? Mine was quiet, mostly reading.",
    "The weather keeps changing; I never know what to wear.",
    "I watched a documentary about coral reefs yesterday.",
    "Work has been busy, lots of meetings this week.",
    "Do you have any tips for sleeping better?",
    "I tried a new pasta recipe with lemon and basil.",
    "My neighbour is renovating, the noise is terrible.",
    "I am thinking about learning to play the guitar.",
]


def conversation(turns: int, seed: int = 7) -> tuple[list[tuple[str, str]], list[str]]:
    rng = random.Random(seed)
    facts, pairs = [], []
    for i in range(turns):
        if i % 15 == 3:
            code = f"{rng.choice('ABCDEFGH')}-{rng.randint(1000, 9999)}"
            amount = f"€{rng.randint(100, 9999)}.{rng.randint(10, 99)}"
            day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            facts += [code, amount, day]
            user = f"For the record: order {code} costs {amount} and must arrive by {day}."
            reply = f"Noted: order {code}, {amount}, due {day}."
        else:
            user = rng.choice(FILLER) + f" (session {i // 40 + 1})"
            reply = "That sounds " + rng.choice(["nice", "tiring", "interesting", "fun"]) + ". Tell me more."
        pairs.append((user, reply))
    return pairs, facts


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns", type=int)
    args = parser.parse_args()
    _setup()

    from django.contrib.auth import get_user_model

    from agents.context import build_context
    from agents.registry import get_agent
    from conversations.content import text_block
    from conversations.services import messages_append, thread_create
    from conversations.summary_services import thread_summary_update

    turns = args.turns or (120 if args.quick else 400)
    pairs, facts = conversation(turns)
    user, _ = get_user_model().objects.get_or_create(username="bench-tokens")
    user.threads.all().delete()
    thread = thread_create(owner=user)
    agent = get_agent("assistant")
    sent, full = [], []
    ctx = None
    for user_text, reply in pairs:
        request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(user_text)]}])[0]
        thread.refresh_from_db()
        ctx = build_context(thread=thread, agent=agent, user=user, request_message=request)
        sent.append(ctx.info["estimated_tokens"])
        full.append(ctx.info["full_resend_tokens"])
        messages_append(thread=thread, items=[{"role": "assistant", "content": [text_block(reply)]}])
        thread_summary_update(thread_id=thread.pk, use_model=False)

    context_text = " ".join(b["text"] for b in ctx.system) + " " + str(ctx.messages)
    kept = sum(1 for f in facts if f in context_text)
    total_sent, total_full = sum(sent), sum(full)
    print(f"turns: {turns}")
    print(f"input tokens per turn: median {statistics.median(sent):.0f}, last {sent[-1]}, max {max(sent)}")
    print(f"full resend per turn:  median {statistics.median(full):.0f}, last {full[-1]}")
    print(
        f"total sent {total_sent:,} vs full resend {total_full:,}: ratio {total_sent / total_full:.3f} "
        f"(target <= 0.10: {'met' if total_sent / total_full <= 0.10 else 'NOT met'})"
    )
    print(f"identifiers stated: {len(facts)}; held by the final context: {kept} ({kept / len(facts):.0%})")
    user.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
