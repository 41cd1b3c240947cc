"""Writes on a turn before and around its run: start a thread, submit, retry, cancel, approve.

What the worker does with a run once claimed (trace, complete, fail, interrupt, reap)
is ``agents/run_lifecycle.py``; the runner drives it (``usecases/turn/runner.py``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from agents import run_lifecycle
from agents.checkpointer import shared_saver
from agents.models import Approval, Run, RunStatus
from agents.state_machine import RETRYABLE, UNFINISHED, run_created
from conversations.content import stopped_reply_content, text_block
from conversations.models import Message, MessageRole, Thread
from conversations.selectors import thread_newest_empty
from conversations.services import (
    message_append,
    message_embeddings_schedule,
    messages_append,
    thread_autotitle,
    thread_create,
)
from liamemory.errors import ApplicationError, Conflict
from liamemory.retention import run_expires_at
from liamemory.task_sending import task_send_on_commit
from usecases.turn.registry import AGENTS, DEFAULT_AGENT
from usecases.turn.tasks import execute_run, resume_run

logger = logging.getLogger(__name__)


def _enqueue_run(run_id: str) -> None:
    """The run's task, sent once the run is committed: in a broker outage the request still
    answers with the queued run, and the task goes as soon as the broker is back
    (``liamemory.task_sending``), so the person's message is kept and answered."""
    task_send_on_commit(execute_run, run_id)


def thread_start(*, owner: User, agent: str = DEFAULT_AGENT, title: str = "", incognito: bool = False) -> Thread:
    """A new thread for ``owner`` with one of this installation's agents (``usecases.turn.registry``)."""
    if agent not in AGENTS:
        raise ApplicationError(f"Unknown agent '{agent}'.", {"agents": sorted(AGENTS)})
    return thread_create(owner=owner, agent=agent, title=title, incognito=incognito)


def thread_start_or_reuse_empty(*, owner: User, agent: str = DEFAULT_AGENT, incognito: bool = False) -> Thread:
    """The web page's "New conversation": the user's newest empty thread of this agent and
    incognito mode when there is one, else a new one, so that clicking it again and again
    does not pile up empty "New conversation" rows in the list."""
    if agent not in AGENTS:
        raise ApplicationError(f"Unknown agent '{agent}'.", {"agents": sorted(AGENTS)})
    empty = thread_newest_empty(user=owner, agent=agent, incognito=incognito)
    return empty or thread_create(owner=owner, agent=agent, incognito=incognito)


def _check_content(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise ApplicationError("The message is empty.", {"field": "content"})
    if len(content) > settings.MESSAGE_MAX_CHARS:
        raise ApplicationError(
            f"The message is too long ({len(content)} characters; the limit is {settings.MESSAGE_MAX_CHARS}).",
            {"field": "content", "limit": settings.MESSAGE_MAX_CHARS},
        )
    return content


def _ensure_no_run_waiting(thread: Thread) -> None:
    busy = Run.objects.filter(thread=thread, status__in=UNFINISHED).values_list("status", flat=True).first()
    if busy == RunStatus.INTERRUPTED:
        raise Conflict("This conversation is waiting for a staff approval; try again once it is decided.")
    if busy:
        raise Conflict("A reply is still being written for this conversation; wait for it or cancel it.")


def turn_submit(*, user: User, thread: Thread, content: str) -> tuple[Message, Run]:
    """Save the user's message and a queued run in one transaction; the worker does the rest.

    The message is committed before any model is called, so a model failure never loses
    it. The partial unique index on runs makes concurrent posts to one thread answer
    409 rather than start two runs. The run's task is published before the message's
    vector task: a worker waits for the first, only a later search for the second.
    """
    content = _check_content(content)
    _ensure_no_run_waiting(thread)
    try:
        with transaction.atomic():
            text = [text_block(content)]
            message = message_append(thread=thread, role=MessageRole.USER, content=text, schedule_vectors=False)
            if not thread.title:
                thread_autotitle(thread=thread, text=content)
            run = _queue_run(thread=thread, user=user, request_message=message)
            message_embeddings_schedule(messages=[message])
    except IntegrityError as exc:
        if "run_one_active_per_thread" in str(exc):
            raise Conflict("A reply is still being written for this conversation; wait for it or cancel it.") from exc
        raise
    return message, run


def chat_model_name() -> str:
    """The model a new run is recorded with: Claude when an API key is configured, else "offline"."""
    return settings.CHAT_MODEL if settings.ANTHROPIC_API_KEY else "offline"


def _queue_run(*, thread: Thread, user: User, request_message: Message, retry_of: Run | None = None) -> Run:
    """A queued run for ``request_message``, enqueued once the transaction commits.

    The run records its model (``chat_model_name``); the runner uses that one.
    """
    run = Run.objects.create(
        thread=thread,
        user=user,
        request_message=request_message,
        agent=thread.agent,
        model=chat_model_name(),
        retry_of=retry_of,
        expires_at=_run_expiry(thread),
    )
    run_created(run=run, reason="retry" if retry_of else "submitted")
    _enqueue_run(str(run.id))
    return run


def _run_expiry(thread: Thread) -> datetime | None:
    return run_expires_at(thread=thread, now=timezone.now())


def run_retry(*, run: Run) -> Run:
    """A new run for the same user message, after a failure or a cancel."""
    if run.status not in RETRYABLE:
        raise Conflict(f"Only a failed or cancelled run can be retried; this one is {run.status}.")
    if run.request_message is None:
        raise Conflict("The message this run answered was deleted: there is nothing to retry.")
    _ensure_no_run_waiting(run.thread)
    try:
        with transaction.atomic():
            new = _queue_run(thread=run.thread, user=run.user, request_message=run.request_message, retry_of=run)
    except IntegrityError as exc:
        raise Conflict("A reply is still being written for this conversation.") from exc
    return new


def run_cancel(*, run: Run) -> Run:
    """Stop a run, keeping what it had written, as other chat products do.

    The words already streamed become the run's reply, marked as stopped
    (``conversations.content.stopped_reply_content``): the page shows them and the
    context of later turns reads them, unfinished. A worker still busy with the run
    finds it cancelled and writes nothing more.
    """
    with transaction.atomic():
        written = run_lifecycle.run_cancel(run_id=run.pk)
        if written is None:
            run.refresh_from_db()
            raise Conflict(f"This run has already ended ({run.status}).")
        if written.strip():
            messages_append(
                thread=run.thread,
                items=[
                    {
                        "role": MessageRole.ASSISTANT,
                        "content": stopped_reply_content(written),
                        "agent": run.agent,
                        "run": run,
                    }
                ],
            )
    run.refresh_from_db()
    return run


def approval_decide(*, approval: Approval, approved: bool, actor: User, note: str = "") -> Approval:
    """Staff decide an action a run asked for; the run resumes from its checkpoint with the decision.

    The approval pending → decided and the run interrupted → running
    (``agents.run_lifecycle.approval_decide``) let exactly one decision through.
    """
    with transaction.atomic():
        if not run_lifecycle.approval_decide(approval=approval, approved=approved, actor=actor, note=note):
            raise Conflict("This run is not waiting for an approval.")
        decision = run_lifecycle.approval_resume_value(approval)
        task_send_on_commit(resume_run, str(approval.run_id), decision)
    return approval


STAFF_FORK_LABEL = "copy made by staff"


def thread_fork(*, thread: Thread, checkpoint_id: str, actor: User | None = None) -> Thread:
    """Time travel: a new thread holding the history as it stood at one checkpoint.

    The checkpoint names its run; the fork copies every message before that run's
    reply plus the turn's own messages that the checkpoint had produced so far. A fork
    made by someone other than the owner (staff, in the admin) says so in its title:
    it appears in the person's own list, and they did not make it.
    """
    saver = shared_saver()
    tup = saver.get_tuple(
        {"configurable": {"thread_id": str(thread.pk), "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
    )
    if tup is None:
        raise ApplicationError("No such checkpoint in this thread.", {"checkpoint_id": checkpoint_id})
    run_id = tup.metadata.get("run_id")
    run = Run.objects.filter(pk=run_id, thread=thread).select_related("request_message").first() if run_id else None
    if run is None or run.request_message is None:
        raise ApplicationError("This checkpoint belongs to no run of this thread.", {"checkpoint_id": checkpoint_id})
    pending = tup.checkpoint.get("channel_values", {}).get("new") or []
    by_staff = actor is not None and actor.pk != thread.owner_id
    with transaction.atomic():
        fork = Thread.objects.create(
            owner=thread.owner,
            agent=thread.agent,
            incognito=thread.incognito,
            title=_fork_title(thread.title or "Conversation", by_staff=by_staff),
            expires_at=thread.expires_at,
        )
        history = Message.objects.filter(thread=thread, sequence__lte=run.request_message.sequence).order_by("sequence")
        items = [{"role": m.role, "content": m.content, "agent": m.agent} for m in history]
        items += [{"role": m["role"], "content": m["content"], "agent": run.agent} for m in pending]
        messages_append(thread=fork, items=items)
    return fork


def _fork_title(title: str, *, by_staff: bool) -> str:
    label = f" ({STAFF_FORK_LABEL})" if by_staff else " (fork)"
    return title[: 200 - len(label)] + label
