"""Tokens sent over a long multi-session conversation: memory layer vs full-history resend.

Replays a deterministic conversation (sessions of small talk in which order codes,
amounts and dates are stated along the way) through the product's real context
builder, with the rolling summary updated between turns as the background task
would (``thread_summarize``, extractive summarizer, no API key). For every turn
it records the estimated input tokens of the assembled context, split into the
cacheable prefix (tools, identity, instructions), summary + memories, and the window;
and what resending the whole history would have cost (the same prefix plus every
message). Ratios are reported over the first 300 turns (the length the token target is set for) and over
all of them, each with how many of the identifiers stated so far the context still
holds (summary, window or memories). At the end every identifier is asked about by
the other facts of its statement ("Which order costs €120.50?", "How much does order
A-1234 cost?", "By when must order A-1234 arrive?"), and it counts as recalled when
the context built for that question holds it (the question's own text left out): what
the summary no longer holds must come back through the older excerpts. Both checks
compare whole tokens: "18" is not held by "#184".

    .venv/bin/python -m bench.tokens            # 400 turns (ratios at 300 and 400)
    .venv/bin/python -m bench.tokens --quick    # 120 turns
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from bench.common import write_result
from conversations.content import text_block
from conversations.facts import fact_in_text
from conversations.models import Message
from conversations.services import messages_append, thread_create
from conversations.summarizer import SYSTEM_PROMPT
from conversations.tokens import estimate_messages, estimate_text
from usecases.thread_summary import thread_summarize
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent

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
# Anthropic caches a prefix only from this many tokens on (Sonnet 4.5; 4,096 on Haiku 4.5).
MIN_CACHEABLE_TOKENS = 1024


def conversation(turns: int, seed: int = 7) -> tuple[list[tuple[str, str]], list[tuple[int, str]]]:
    """The turns (user, reply) and the identifiers stated, each with the turn that stated it.

    The first n turns are the same whatever ``turns`` is.
    """
    rng = random.Random(seed)
    facts, pairs = [], []
    for i in range(turns):
        if i % 15 == 3:
            code = f"{rng.choice('ABCDEFGH')}-{rng.randint(1000, 9999)}"
            amount = f"€{rng.randint(100, 9999)}.{rng.randint(10, 99)}"
            day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            facts += [(i, code), (i, amount), (i, day)]
            user = f"For the record: order {code} costs {amount} and must arrive by {day}."
            reply = f"Noted: order {code}, {amount}, due {day}."
        else:
            user = rng.choice(FILLER) + f" (session {i // 40 + 1})"
            reply = "That sounds " + rng.choice(["nice", "tiring", "interesting", "fun"]) + ". Tell me more."
        pairs.append((user, reply))
    return pairs, facts


def recall_questions(facts: list[tuple[int, str]]) -> list[tuple[str, str]]:
    """(identifier, a question asking for it by the other facts of its statement), for every identifier."""
    out = []
    for at in sorted({t for t, _ in facts}):
        code, amount, day = [f for t, f in facts if t == at]
        out += [
            (code, f"Which order costs {amount}?"),
            (amount, f"How much does order {code} cost?"),
            (day, f"By when must order {code} arrive?"),
        ]
    return out


def recalled(*, thread, agent, user, facts: list[tuple[int, str]]) -> tuple[int, int, list[str]]:
    """How many identifiers reach the context when asked about at the end (and which do not).

    Each question is appended as the next user message and rolled back afterwards.
    """
    from django.db import transaction

    missed = []
    questions = recall_questions(facts)
    for fact, question in questions:
        with transaction.atomic():
            request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(question)]}])[0]
            thread.refresh_from_db()
            ctx = build_context(thread=thread, agent=agent, user=user, request_message=request)
            transaction.set_rollback(True)
        if not fact_in_text(fact, _context_text(ctx).replace(question, " ")):
            missed.append(fact)
    thread.refresh_from_db()
    return len(questions) - len(missed), len(questions), missed


def _context_text(ctx) -> str:
    return " ".join(b["text"] for b in ctx.system) + " " + str(ctx.messages)


def _upkeep_tokens(thread, outcome, previous_covered: int, previous_tokens: int) -> int:
    """What this summary version would have cost with the fast model: its prompt, estimated."""

    rebuilt = outcome.payload.get("rebuilt_from_source")
    low = 0 if rebuilt else previous_covered
    rows = Message.objects.filter(thread=thread, sequence__gt=low, sequence__lte=outcome.summary.covers_through)
    spans = sum(rows.values_list("token_estimate", flat=True))
    return estimate_text(SYSTEM_PROMPT) + (0 if rebuilt else previous_tokens) + spans


def replay(turns: int, checkpoints: list[int]) -> dict:
    from django.conf import settings
    from django.contrib.auth import get_user_model

    pairs, facts = conversation(turns)
    user, _ = get_user_model().objects.get_or_create(username="bench-tokens")
    user.threads.all().delete()
    thread = thread_create(owner=user)
    agent = get_agent("assistant")
    rows, held, upkeep = [], {}, 0
    covered, summary_tokens = 0, 0
    for i, (user_text, reply) in enumerate(pairs):
        request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(user_text)]}])[0]
        thread.refresh_from_db()
        ctx = build_context(thread=thread, agent=agent, user=user, request_message=request)
        rows.append(
            {
                "sent": ctx.report.estimated_tokens,
                "full": ctx.report.full_resend_tokens,
                "prefix": ctx.report.prefix_tokens,
                "summary_and_memories": sum(estimate_text(b["text"]) for b in ctx.system[1:])
                - ctx.report.excerpt_tokens,
                "excerpts": ctx.report.excerpt_tokens,
                "window": estimate_messages(ctx.messages),
            }
        )
        if i + 1 in checkpoints:
            text = _context_text(ctx)
            stated = [f for t, f in facts if t <= i]
            # Whole tokens: "18" is not held by "#184".
            held[i + 1] = (sum(1 for f in stated if fact_in_text(f, text)), len(stated))
        messages_append(thread=thread, items=[{"role": "assistant", "content": [text_block(reply)]}])
        outcome = thread_summarize(thread_id=thread.pk, use_model=False)
        # An unchanged summary writes no version, yet the fast model would have been called.
        if outcome.status in {"created", "unchanged"} and outcome.summary is not None:
            upkeep += _upkeep_tokens(thread, outcome, covered, summary_tokens)
            covered, summary_tokens = outcome.summary.covers_through, outcome.summary.token_estimate
    thread.refresh_from_db()
    got = recalled(thread=thread, agent=agent, user=user, facts=facts)
    user.delete()
    return {
        "rows": rows,
        "held": held,
        "recalled": got,
        "upkeep": upkeep,
        "settings": {
            "MEMORY_WINDOW": settings.MEMORY_WINDOW,
            "SUMMARY_MAX_TOKENS": settings.SUMMARY_MAX_TOKENS,
            "MEMORY_EXCERPT_TOKENS": settings.MEMORY_EXCERPT_TOKENS,
        },
    }


def figures(rows: list[dict], held: tuple[int, int]) -> dict:
    sent, full = sum(r["sent"] for r in rows), sum(r["full"] for r in rows)
    prefix = sum(r["prefix"] for r in rows)
    last = rows[-1]
    excerpts = sum(r.get("excerpts", 0) for r in rows)
    return {
        "turns": len(rows),
        "total_sent": sent,
        "total_full_resend": full,
        "ratio": round(sent / full, 4),
        "target_met": sent / full <= 0.10,
        "per_turn_median": statistics.median(r["sent"] for r in rows),
        "per_turn_last": last,
        "cacheable_prefix_total": prefix,
        "uncached_total": sent - prefix,
        "uncached_ratio": round((sent - prefix) / (full - prefix), 4),
        "excerpt_tokens_per_turn": round(excerpts / len(rows), 1),
        "turns_with_excerpts": sum(1 for r in rows if r.get("excerpts")),
        "identifiers_held": held[0],
        "identifiers_stated": held[1],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns", type=int)
    args = parser.parse_args()

    turns = args.turns or (120 if args.quick else 400)
    checkpoints = sorted({min(300, turns), turns})
    result = replay(turns, checkpoints)
    rows, held = result["rows"], result["held"]
    print(f"settings: {result['settings']}")
    report = {}
    for n in checkpoints:
        f = figures(rows[:n], held[n])
        report[str(n)] = f
        last = f["per_turn_last"]
        print(
            f"{n} turns: sent {f['total_sent']:,} vs full resend {f['total_full_resend']:,}: "
            f"ratio {f['ratio']:.3f} (target <= 0.10: {'met' if f['target_met'] else 'NOT met'}); "
            f"identifiers held {f['identifiers_held']} of {f['identifiers_stated']}"
        )
        print(
            f"  per turn: median {f['per_turn_median']:.0f}; last {last['sent']} = prefix {last['prefix']} "
            f"+ summary/memories {last['summary_and_memories']} + excerpts {last['excerpts']} "
            f"+ window {last['window']}; excerpts {f['excerpt_tokens_per_turn']} tokens a turn on average "
            f"({f['turns_with_excerpts']} turns had any)"
        )
        print(
            f"  cacheable prefix {f['cacheable_prefix_total']:,} + uncached {f['uncached_total']:,}; "
            f"uncached part vs full resend's uncached part: {f['uncached_ratio']:.3f}"
        )
    got, asked, missed = result["recalled"]
    print(
        f"identifiers recalled {got} of {asked} (each asked about at the end of the {len(rows)} turns)"
        + (f"; not recalled: {', '.join(missed[:10])}" if missed else "")
    )
    prefix = rows[-1]["prefix"]
    print(
        f"prefix per turn {prefix} tokens (estimated): "
        + (
            f"below the {MIN_CACHEABLE_TOKENS}-token minimum Anthropic caches, so it is billed uncached"
            if prefix < MIN_CACHEABLE_TOKENS
            else "large enough to be cached"
        )
    )
    print(f"summary upkeep if the fast model wrote every version: {result['upkeep']:,} input tokens (not in the ratio)")
    write_result(
        "tokens",
        {
            "quick": args.quick,
            "settings": result["settings"],
            "by_turns": report,
            "prefix_tokens_per_turn": prefix,
            "min_cacheable_tokens": MIN_CACHEABLE_TOKENS,
            "summary_upkeep_tokens_fast_model": result["upkeep"],
            "identifiers_recalled": {"recalled": got, "asked": asked, "missed": missed},
            "per_turn": rows,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
