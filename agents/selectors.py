"""Reads on runs, scoped to their owner."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import F, Func, IntegerField, QuerySet
from django.db.models.functions import Length

from agents.checkpointer import shared_saver
from agents.context_report import context_report_read
from agents.models import Approval, ApprovalDecision, Run
from liamemory.errors import NotFound


class RunNotFound(NotFound):
    """A run that does not exist or is not the caller's: the two are indistinguishable."""

    def __init__(self, run_id: object = None) -> None:
        super().__init__("Run not found.")


def run_get_for_user(*, user: User, run_id) -> Run:
    """Another user's run answers exactly like a missing one."""
    try:
        return Run.objects.select_related("thread", "request_message").get(pk=run_id, user=user)
    except (Run.DoesNotExist, ValueError, TypeError) as exc:
        raise RunNotFound(run_id) from exc


def run_etag(*, user: User, run_id) -> str:
    """A validator of everything a run's answer shows, from one small indexed read (no join, no reply).

    It changes when the status, the streamed text or steps, or the end time change:
    a poll that finds it unchanged answers 304 without building the run's answer.
    """
    row = (
        Run.objects.filter(pk=run_id, user=user)
        .annotate(
            text_len=Length("partial_text"),
            steps_len=Func(F("partial_steps"), function="jsonb_array_length", output_field=IntegerField()),
        )
        .values_list("status", "attempts", "finished_at", "text_len", "steps_len")
        .first()
    )
    if row is None:
        raise NotFound("Run not found.")
    status, attempts, finished_at, text_len, steps_len = row
    stamp = finished_at.timestamp() if finished_at else 0
    return f'"{status}-{attempts}-{stamp:.6f}-{text_len}-{steps_len}"'


def run_get_by_id(*, run_id) -> Run | None:
    """A run read afresh (the caller checked its owner earlier), or None once it is deleted.

    No join: its answer names the thread and the request message by id, and the end of
    every streamed turn reads it (the join cost a third of the read's CPU).
    """
    return Run.objects.filter(pk=run_id).first()


# The follower's reads, one fixed statement each: a streamed turn makes four or five of
# them, and compiling the equivalent queryset cost eight times the statement's own CPU
# (1.0 vs 0.13 ms a read, measured in a web process's place).
_OWNED_SQL = f"SELECT 1 FROM {Run._meta.db_table} WHERE id = %s AND user_id = %s"
_PARTIAL_SQL = (
    "SELECT status, attempts, substr(partial_text, %s),"
    " CASE WHEN jsonb_array_length(partial_steps) > %s THEN partial_steps END"
    f" FROM {Run._meta.db_table} WHERE id = %s"
)


def run_check_owner(*, user: User, run_id) -> None:
    """``RunNotFound`` unless the run exists and is ``user``'s: what following it needs, no more."""
    try:
        key = uuid.UUID(str(run_id))
    except ValueError as exc:
        raise RunNotFound(run_id) from exc
    with connection.cursor() as cursor:
        cursor.execute(_OWNED_SQL, [key, user.pk])
        if cursor.fetchone() is None:
            raise RunNotFound(run_id)


@dataclass
class PartialReply:
    status: str
    text: str
    steps: list[dict]
    attempt: int = 0  # the run's claims so far: a new one starts the text over


def run_partial_reply(*, run_id, text_from: int, steps_from: int) -> PartialReply | None:
    """What a running run has written since the follower's cursor: one indexed row, only the new tail read."""
    with connection.cursor() as cursor:
        cursor.execute(_PARTIAL_SQL, [text_from + 1, steps_from, uuid.UUID(str(run_id))])
        row = cursor.fetchone()
    if row is None:
        return None
    status, attempt, tail, steps = row
    # Django reads jsonb as text (its JSONField decodes it); a raw cursor does the same.
    new_steps: list[dict] = json.loads(steps)[steps_from:] if steps is not None else []
    return PartialReply(status=status, text=tail or "", steps=new_steps, attempt=attempt)


def thread_checkpoints(*, thread, limit: int = 100) -> list[dict]:
    """The thread's LangGraph checkpoints, newest first: id, step, run, what was next."""
    out = []
    for tup in shared_saver().list({"configurable": {"thread_id": str(thread.pk)}}, limit=limit):
        values = tup.checkpoint.get("channel_values", {})
        out.append(
            {
                "checkpoint_id": tup.config["configurable"]["checkpoint_id"],
                "step": tup.metadata.get("step"),
                "source": tup.metadata.get("source"),
                "run_id": tup.metadata.get("run_id"),
                "created_at": tup.checkpoint.get("ts"),
                "new_messages": len(values.get("new") or []),
                "next": list(getattr(tup, "next", None) or []),
                "pending_interrupt": bool(
                    tup.pending_writes and any(w[1] == "__interrupt__" for w in tup.pending_writes)
                ),
            }
        )
    # The message each checkpoint follows: its run's request, read in one query.
    runs = Run.objects.filter(thread=thread, pk__in={c["run_id"] for c in out if c["run_id"]}).select_related(
        "request_message"
    )
    follows = {str(r.pk): r.request_message for r in runs}
    for checkpoint in out:
        message = follows.get(checkpoint["run_id"] or "")
        checkpoint["follows_sequence"] = message.sequence if message else None
        checkpoint["follows_text"] = _preview(message.text) if message else ""
    return out


def _preview(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def run_latest_for_thread(*, thread) -> Run | None:
    """The thread's newest run (served by the thread/created index): what the chat page shows as pending or failed."""
    return Run.objects.filter(thread=thread).order_by("-created_at").first()


def run_excerpt_refs(*, thread, run_ids: list) -> dict[Any, list[int]]:
    """For each run of ``thread``, the ids of the older messages its context quoted, in order.

    Read from the context report; the messages themselves are ``conversations``'
    (``conversations.selectors.message_excerpts``).
    """
    stored = Run.objects.filter(thread=thread, pk__in=run_ids).values_list("id", "context_report")
    reports = {run_id: context_report_read(data) for run_id, data in stored}
    return {run_id: [e.message_id for e in report.excerpts] if report else [] for run_id, report in reports.items()}


def approval_decided_last(*, run_id: Any) -> Approval | None:
    """The decision a resumed run continues from: its latest decided approval (its checkpoint, its note)."""
    return (
        Approval.objects.filter(run_id=run_id, decision__in=(ApprovalDecision.APPROVED, ApprovalDecision.REJECTED))
        .order_by("-decided_at", "-id")
        .only("checkpoint_id", "decision", "note")
        .first()
    )


def approvals_waiting() -> QuerySet[Approval]:
    """The staff's queue, oldest first: undecided approvals of runs that still wait."""
    return Approval.objects.waiting().select_related("run__user").order_by("requested_at", "id")


def approval_get(*, approval_id: Any) -> Approval:
    """One approval staff may decide (any state: deciding it twice is the use case's conflict)."""
    try:
        return Approval.objects.select_related("run").get(pk=approval_id)
    except (Approval.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("Approval not found.") from exc
