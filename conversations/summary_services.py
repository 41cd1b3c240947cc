"""Writing a new rolling-summary version of a thread (the summary task's service)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from conversations.models import Message, MessageRole, Thread, ThreadSummary
from conversations.selectors import summary_current
from conversations.summarizer import SummaryText, model_configured, summarize, summary_cut
from conversations.summary_policy import SummaryDecision, summary_decide
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


def _claim_thread(thread_id: str) -> bool:
    """A per-thread claim for the rest of the current transaction.

    Transaction-scoped advisory lock: a second delivery of the same task (or an
    overlapping one) gets False and leaves, so two deliveries make one version. It
    locks no row, so turns appending messages to the thread never wait on it. A
    worker killed mid-summary drops its connection; Postgres then rolls its
    transaction back and releases the lock, and the redelivered task can claim it.
    Works behind a transaction-mode pooler, unlike a session-level lock.
    """
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", [f"summary:{thread_id}"])
        return bool(cur.fetchone()[0])


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


def thread_summary_update(
    *,
    thread_id: uuid.UUID | str,
    force: bool = False,
    use_model: bool | None = None,
) -> SummaryOutcome:
    """Fold the messages older than the window into a new summary version, if it pays.

    Idempotent: the cut is computed from the thread's state, so a repeated call
    finds nothing new to cover. ``force`` skips the pays-or-waits decision (it never
    skips the claim). ``use_model`` None: the fast model when an API key is set.
    Raises ``liamemory.llm.ModelError`` when the fast model fails; nothing is written.
    The outcome's ``trace`` says what was decided, for the run that asked (the use case
    ``usecases/thread_summary.py`` records it).
    """
    if not settings.MEMORY_SUMMARY_ENABLED:
        return SummaryOutcome("disabled")
    thread_id = str(thread_id)
    started = time.monotonic()
    # One transaction around the whole job, the model call included: it holds the
    # claim (no row lock), and a failure or a soft time limit rolls everything back.
    with transaction.atomic():
        if not _claim_thread(thread_id):
            return SummaryOutcome("busy")
        thread = Thread.objects.filter(pk=thread_id).first()
        if thread is None:
            return SummaryOutcome("gone")
        previous = summary_current(thread=thread)
        covered = previous.covers_through if previous else 0
        tail = list(Message.objects.filter(thread=thread, sequence__gt=covered).order_by("sequence"))
        cut = summary_cut(tail, window=settings.MEMORY_WINDOW)
        if cut is None or cut <= covered:
            return SummaryOutcome("up_to_date")
        aged = [m for m in tail if m.sequence <= cut]
        if use_model is None:
            use_model = model_configured()
        decision = summary_decide(
            model_call=use_model,
            previous_summary_tokens=previous.token_estimate if previous else 0,
            aged_out_tokens=sum(m.token_estimate for m in aged),
            window_tokens=sum(m.token_estimate for m in tail if m.sequence > cut),
            turns_so_far=Message.objects.filter(thread=thread, role=MessageRole.USER).count(),
        )
        payload: dict[str, Any] = {"decision": decision.reason, "forced": force and not decision.compress}
        payload.update(decision.figures)
        if not (decision.compress or force):
            payload.update(outcome="waited", uncovered_messages=len(aged))
            logger.info("summary waits thread=%s uncovered=%d", thread_id, len(aged))
            trace = _trace(payload, tokens_in=0, tokens_out=0, started=started)
            return SummaryOutcome("waited", decision=decision, payload=payload, trace=trace)

        version = (previous.version if previous else 0) + 1
        # Drift control: every Nth version starts again from the verbatim messages (not
        # again when the current version already is such a rebuild, extended unchanged).
        rebuild = (
            previous is not None
            and not previous.rebuilt_from_source
            and version % max(1, settings.SUMMARY_REBUILD_EVERY) == 0
        )
        if rebuild:
            source = list(Message.objects.filter(thread=thread, sequence__lte=cut).order_by("sequence"))
            previous_text = ""
        else:
            source, previous_text = aged, (previous.text if previous else "")
        result = summarize(previous_text=previous_text, messages=source, use_model=use_model)
        if previous is not None and result.text == previous.text:
            return _extend_unchanged(
                previous, cut=cut, rebuild=rebuild, result=result, payload=payload, started=started
            )
        summary = ThreadSummary(
            thread=thread,
            version=version,
            text=result.text,
            covers_through=cut,
            model=result.model,
            token_estimate=estimate_text(result.text),
            rebuilt_from_source=rebuild,
        )
        summary.full_clean()
        summary.save()
        payload.update(
            outcome="created",
            version_written=True,
            version=version,
            covers_through=cut,
            model=result.model,
            rebuilt_from_source=rebuild,
            messages_compressed=len(source),
            summary_tokens=summary.token_estimate,
            facts_added=result.facts_added,
        )
        trace = _trace(
            payload, tokens_in=result.usage.input_tokens, tokens_out=result.usage.output_tokens, started=started
        )
    logger.info(
        "summary created thread=%s version=%d covers_through=%d model=%s facts_added=%d rebuilt=%s",
        thread_id,
        version,
        cut,
        result.model,
        result.facts_added,
        rebuild,
    )
    return SummaryOutcome("created", summary=summary, decision=decision, payload=payload, trace=trace)
