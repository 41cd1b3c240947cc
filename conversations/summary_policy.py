"""Does compressing pay now, or should the aged-out history wait? (docs/design.md, "Token accounting").

Over the turns the thread still has, compressing costs one read of what is being
compressed (the previous summary plus the newly aged-out messages), the new summary
written once, and the new summary repeated on every remaining turn. When the fast
model writes it (an API key is set), the read and the write are its upkeep, billed:
the input of the summary call (its instructions, the previous summary and the
aged-out messages, ``upkeep_input_tokens``) and its output. The extractive summarizer
calls no model, yet the same read and write are charged to it as the price of a new
version, so that it too waits until enough has aged out rather than rewriting the
summary for every two messages. Keeping costs the previous summary plus the aged-out
messages on every remaining turn. The number
of remaining turns is unknown; it is estimated from how long this installation's
finished threads ran, given that this one has already lasted ``turns_so_far``,
shrunk towards a prior so that few observations (or none) give a sane figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from conversations.models import MessageRole, Thread
from conversations.summarizer import SYSTEM_PROMPT
from conversations.tokens import estimate_text, history_budget
from liamemory.cache import TimedValue

# Expected further turns of a thread when the installation has no history to go by.
PRIOR_REMAINING_TURNS = 10.0
# How many observed threads the prior is worth: with k observations the estimate is
# (k * observed + PRIOR_WEIGHT * prior) / (k + PRIOR_WEIGHT).
PRIOR_WEIGHT = 5
# A thread idle this long counts as finished.
FINISHED_AFTER = timedelta(days=1)
# The most recent finished threads looked at, and how long their lengths are cached
# per process (the distribution changes slowly; a summary task must stay cheap).
SAMPLE_SIZE = 1000
CACHE_SECONDS = 600
# A summary is expected to be about this fraction of what it replaces, within its budget.
COMPRESSION_RATIO = 0.25
# The summary call's prompt around the previous summary and the transcript: its
# instructions, plus headings and per-message labels (estimated tokens).
MODEL_CALL_OVERHEAD = estimate_text(SYSTEM_PROMPT) + 40

_lengths_cache: TimedValue[list[int]] = TimedValue(CACHE_SECONDS)


@dataclass(frozen=True)
class SummaryDecision:
    compress: bool
    reason: str
    figures: dict[str, float | int]


def policy_cache_clear() -> None:
    _lengths_cache.clear()


def finished_thread_lengths(*, now: datetime | None = None) -> list[int]:
    """Turns (user messages) of the most recent finished threads; cached per process."""
    since = (now or timezone.now()) - FINISHED_AFTER
    return _lengths_cache.get(
        lambda: list(
            Thread.objects.filter(last_activity_at__lt=since)
            .annotate(turns=Count("messages", filter=Q(messages__role=MessageRole.USER)))
            .filter(turns__gt=0)
            .order_by("-last_activity_at")
            .values_list("turns", flat=True)[:SAMPLE_SIZE]
        )
    )


def expected_remaining_turns(*, turns_so_far: int, lengths: list[int]) -> tuple[float, int]:
    """E[L − n | L > n] over the observed lengths, shrunk towards the prior; and k."""
    longer = [length - turns_so_far for length in lengths if length > turns_so_far]
    k = len(longer)
    observed = sum(longer) / k if k else 0.0
    return (k * observed + PRIOR_WEIGHT * PRIOR_REMAINING_TURNS) / (k + PRIOR_WEIGHT), k


def summary_decide(
    *,
    previous_summary_tokens: int,
    aged_out_tokens: int,
    window_tokens: int,
    turns_so_far: int,
    model_call: bool,
    lengths: list[int] | None = None,
) -> SummaryDecision:
    """Compress now or wait, with the figures the decision was made on (all in tokens).

    ``model_call``: the fast model would write the summary (its upkeep is counted).
    """
    if lengths is None:
        lengths = finished_thread_lengths()
    remaining, observed = expected_remaining_turns(turns_so_far=turns_so_far, lengths=lengths)
    span = previous_summary_tokens + aged_out_tokens
    new_summary = min(
        max(settings.SUMMARY_MAX_TOKENS, previous_summary_tokens),
        previous_summary_tokens + math.ceil(aged_out_tokens * COMPRESSION_RATIO),
    )
    cost_keep = remaining * span
    upkeep_in = MODEL_CALL_OVERHEAD + span if model_call else 0
    upkeep_out = new_summary if model_call else 0
    cost_compress = max(upkeep_in, span) + new_summary + remaining * new_summary
    budget = history_budget(
        context_window=settings.MODEL_CONTEXT_WINDOW,
        reserved_for_answer=settings.TOKENS_RESERVED_FOR_ANSWER,
        margin=settings.TOKEN_BUDGET_MARGIN,
    )
    figures: dict[str, float | int] = {
        "aged_out_tokens": aged_out_tokens,
        "previous_summary_tokens": previous_summary_tokens,
        "estimated_summary_tokens": new_summary,
        "window_tokens": window_tokens,
        "history_budget": budget,
        "turns_so_far": turns_so_far,
        "expected_remaining_turns": round(remaining, 2),
        "finished_threads_observed": observed,
        "model_call": model_call,
        "upkeep_input_tokens": upkeep_in,
        "upkeep_output_tokens": upkeep_out,
        "cost_keep": round(cost_keep),
        "cost_compress": round(cost_compress),
    }
    if aged_out_tokens <= 0:
        return SummaryDecision(False, "nothing_aged_out", figures)
    if span + window_tokens > budget:
        # Keeping would not even fit the model's window: compress whatever it costs.
        return SummaryDecision(True, "over_budget", figures)
    if cost_compress < cost_keep:
        return SummaryDecision(True, "pays", figures)
    return SummaryDecision(False, "waits", figures)
