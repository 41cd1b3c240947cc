"""Writing a new rolling-summary version of a thread (the summary task's service)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now

from conversations.extractive import ChangeJudge
from conversations.models import Message, MessageRole, Thread, ThreadSummary
from conversations.selectors import summary_current
from conversations.summarizer import SummaryText, model_configured, summarize, summary_cut
from conversations.summary_policy import SummaryDecision, finished_thread_lengths, summary_decide
from conversations.tokens import estimate_text

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SummaryTrace:
    """What the job decided, for the run that triggered it to trace: figures, never text."""

    payload: dict[str, Any]
    tokens_in: int
    tokens_out: int
    duration_ms: int


@dataclass
class SummaryOutcome:
    # created | unchanged | waited | up_to_date | busy | gone | disabled
    status: str
    summary: ThreadSummary | None = None
    decision: SummaryDecision | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    # Set when something was decided (created, unchanged, waited).
    trace: SummaryTrace | None = None


# How long a summary job holds its claim on a thread: past the task's hard time limit
# (150 s), so a live job never loses it; a job killed without releasing it is replaced
# by its own redelivery at once (same claim) or by any other job once it expires.
CLAIM_SECONDS = 180


def _claim_thread(thread_id: str, claim: str) -> bool:
    """Claim the thread's summary job with one conditional UPDATE; False when another job holds it.

    A row claim rather than a lock held by a transaction, so the model call waits in no
    transaction (a pooled connection is never left idle in one) and the claim works
    behind a transaction-mode pooler. Two deliveries of one task carry the same claim
    (the task id): a redelivery after a killed worker takes over at once; an overlapping
    other job leaves ("busy"), so two deliveries make one version and one model call.
    """
    return bool(
        Thread.objects.filter(pk=thread_id)
        .filter(Q(summary_claimed_until__isnull=True) | Q(summary_claimed_until__lt=Now()) | Q(summary_claim=claim))
        .update(summary_claim=claim, summary_claimed_until=Now() + timedelta(seconds=CLAIM_SECONDS))
    )


def _release_thread(thread_id: str, claim: str) -> None:
    Thread.objects.filter(pk=thread_id, summary_claim=claim).update(summary_claim="", summary_claimed_until=None)


def _trace(payload: dict[str, Any], *, tokens_in: int, tokens_out: int, started: float) -> SummaryTrace:
    return SummaryTrace(
        payload=payload,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def _extend_unchanged(
    previous: ThreadSummary,
    *,
    cut: int,
    rebuild: bool,
    result: SummaryText,
    payload: dict[str, Any],
    started: float,
) -> SummaryOutcome:
    """The new messages changed nothing: no new version; the current one now covers them.

    A version identical to the one before would be rows to store, export and erase
    for nothing (half of all versions on long chats). Moving ``covers_through`` is
    true to what happened: this text stands for the messages through ``cut``, and
    they will not be read again by the next update.
    """
    ThreadSummary.objects.filter(pk=previous.pk).update(
        covers_through=cut, rebuilt_from_source=previous.rebuilt_from_source or rebuild
    )
    previous.covers_through = cut
    payload.update(
        outcome="unchanged",
        version_written=False,
        version=previous.version,
        covers_through=cut,
        model=result.model,
        rebuilt_from_source=rebuild,
        summary_tokens=previous.token_estimate,
    )
    trace = _trace(payload, tokens_in=result.usage.input_tokens, tokens_out=result.usage.output_tokens, started=started)
    logger.info("summary unchanged thread=%s version=%d covers_through=%d", previous.thread_id, previous.version, cut)
    return SummaryOutcome("unchanged", summary=previous, payload=payload, trace=trace)


@dataclass(frozen=True)
class _Plan:
    """What a summary job will fold, read before the model is called."""

    thread: Thread
    previous: ThreadSummary | None
    cut: int
    version: int
    rebuild: bool
    source: list[Message]
    previous_text: str
    decision: SummaryDecision
    payload: dict[str, Any]


def _plan(thread: Thread, *, use_model: bool, force: bool) -> _Plan | SummaryOutcome:
    """The cut, the pays-or-waits decision and the messages to fold; an outcome when there is nothing to do."""
    previous = summary_current(thread=thread)
    covered = previous.covers_through if previous else 0
    tail = list(Message.objects.filter(thread=thread, sequence__gt=covered).order_by("sequence"))
    cut = summary_cut(tail, window=settings.MEMORY_WINDOW)
    if cut is None or cut <= covered:
        return SummaryOutcome("up_to_date")
    aged = [m for m in tail if m.sequence <= cut]
    lengths = finished_thread_lengths()
    # Only whether a finished thread ran longer than this one matters (``expected_remaining_turns``):
    # counting the turns past the longest one changes no decision, and a count of the whole
    # thread read every message it holds, on every summary task (364 pages at 3,584 messages).
    longest = max(lengths, default=0)
    turns = Message.objects.filter(thread=thread, role=MessageRole.USER)[:longest].count() if longest else 0
    decision = summary_decide(
        model_call=use_model,
        previous_summary_tokens=previous.token_estimate if previous else 0,
        aged_out_tokens=sum(m.token_estimate for m in aged),
        window_tokens=sum(m.token_estimate for m in tail if m.sequence > cut),
        turns_so_far=turns,
        lengths=lengths,
    )
    payload: dict[str, Any] = {"decision": decision.reason, "forced": force and not decision.compress}
    payload["turns_counted_up_to"] = longest
    payload.update(decision.figures)
    if not (decision.compress or force):
        payload.update(outcome="waited", uncovered_messages=len(aged))
        return SummaryOutcome("waited", decision=decision, payload=payload)
    version = (previous.version if previous else 0) + 1
    # Drift control: every Nth version starts again from the verbatim messages (not
    # again when the current version already is such a rebuild, extended unchanged).
    every = max(1, settings.SUMMARY_REBUILD_EVERY)
    rebuild = previous is not None and not previous.rebuilt_from_source and version % every == 0
    if rebuild:
        source = list(Message.objects.filter(thread=thread, sequence__lte=cut).order_by("sequence"))
        previous_text = ""
    else:
        source, previous_text = aged, (previous.text if previous else "")
    return _Plan(thread, previous, cut, version, rebuild, source, previous_text, decision, payload)


def _write(plan: _Plan, result: SummaryText, *, started: float) -> SummaryOutcome:
    """The new version, written in one short transaction after the model answered."""
    previous, payload = plan.previous, plan.payload
    if previous is not None and result.text == previous.text:
        return _extend_unchanged(
            previous, cut=plan.cut, rebuild=plan.rebuild, result=result, payload=payload, started=started
        )
    summary = ThreadSummary(
        thread=plan.thread,
        version=plan.version,
        text=result.text,
        covers_through=plan.cut,
        model=result.model,
        token_estimate=estimate_text(result.text),
        rebuilt_from_source=plan.rebuild,
    )
    summary.full_clean()
    summary.save()
    payload.update(
        outcome="created",
        version_written=True,
        version=plan.version,
        covers_through=plan.cut,
        model=result.model,
        rebuilt_from_source=plan.rebuild,
        messages_compressed=len(plan.source),
        summary_tokens=summary.token_estimate,
        facts_added=result.facts_added,
    )
    trace = _trace(payload, tokens_in=result.usage.input_tokens, tokens_out=result.usage.output_tokens, started=started)
    logger.info(
        "summary created thread=%s version=%d covers_through=%d model=%s facts_added=%d rebuilt=%s",
        plan.thread.pk,
        plan.version,
        plan.cut,
        result.model,
        result.facts_added,
        plan.rebuild,
    )
    return SummaryOutcome("created", summary=summary, decision=plan.decision, payload=payload, trace=trace)


def thread_summary_update(
    *,
    thread_id: uuid.UUID | str,
    change_judge: ChangeJudge | None,
    force: bool = False,
    use_model: bool | None = None,
    claim: str | None = None,
) -> SummaryOutcome:
    """Fold the messages older than the window into a new summary version, if it pays.

    Idempotent: the cut is computed from the thread's state, so a repeated call
    finds nothing new to cover. ``force`` skips the pays-or-waits decision (it never
    skips the claim). ``change_judge``: whether a newer statement changes an older one
    (``conversations.extractive``). ``use_model`` None: the fast model when an API key is
    set. ``claim``: who holds the thread's summary job (the task id, the same for a
    redelivery; default a new one). Raises ``liamemory.llm.ModelError`` when the fast
    model fails; nothing is written. The outcome's ``trace`` says what was decided, for
    the run that asked (the use case ``usecases/thread_summary.py`` records it).
    """
    if not settings.MEMORY_SUMMARY_ENABLED:
        return SummaryOutcome("disabled")
    thread_id, claim = str(thread_id), claim or uuid.uuid4().hex
    started = time.monotonic()
    thread = Thread.objects.filter(pk=thread_id).first()
    if thread is None:
        return SummaryOutcome("gone")
    if not _claim_thread(thread_id, claim):
        return SummaryOutcome("busy")
    if use_model is None:
        use_model = model_configured()
    try:
        plan = _plan(thread, use_model=use_model, force=force)
        if isinstance(plan, SummaryOutcome):
            if plan.status == "waited":
                logger.info("summary waits thread=%s uncovered=%d", thread_id, plan.payload["uncovered_messages"])
                plan.trace = _trace(plan.payload, tokens_in=0, tokens_out=0, started=started)
            return plan
        # The model is called in no transaction; the claim keeps other jobs off the thread.
        result = summarize(
            previous_text=plan.previous_text, messages=plan.source, change_judge=change_judge, use_model=use_model
        )
        with transaction.atomic():
            if not Thread.objects.select_for_update().filter(pk=thread_id, summary_claim=claim).exists():
                # Deleted meanwhile (its summaries with it), or the claim expired and
                # another job took over: that job writes the version.
                return SummaryOutcome("gone")
            return _write(plan, result, started=started)
    finally:
        _release_thread(thread_id, claim)
