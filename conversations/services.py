"""Writes on threads and messages."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from conversations.content import blocks_to_text, correction_text, text_block
from conversations.models import Message, MessageRole, Thread
from conversations.tasks import embed_messages
from conversations.tokens import estimate_message
from liamemory import embeddings
from liamemory.errors import ApplicationError
from liamemory.retention import thread_expires_at
from liamemory.task_sending import task_send_on_commit


def thread_create(*, owner: User, agent: str = "assistant", title: str = "", incognito: bool = False) -> Thread:
    """Store a new thread. The agent name is the caller's to check (``usecases.turns.thread_start``)."""
    thread = Thread(owner=owner, agent=agent, title=title, incognito=incognito)
    thread.expires_at = thread_expires_at(thread=thread, now=timezone.now())
    thread.full_clean()
    thread.save()
    return thread


def messages_append(
    *,
    thread: Thread,
    items: list[dict[str, Any]],
    tokens_sent: int = 0,
    tokens_full_resend: int = 0,
    schedule_vectors: bool = True,
) -> list[Message]:
    """Append messages to a thread atomically, allocating their sequence numbers.

    Each item: ``{"role", "content" (blocks), "agent"?, "run"?, "corrects"?}``. A finished
    turn adds its token totals (``tokens_sent``, ``tokens_full_resend``: increments, so
    concurrent turns add up) in the same write of the thread row. The thread row is
    locked while numbers are handed out, so concurrent writers never collide on a sequence
    and never leave a gap. The lock is ``FOR NO KEY UPDATE`` (only ``next_sequence``
    changes): a row inserted elsewhere that refers to the thread (a memory's source, a
    run) takes a key-share lock on it, which this lock does not block, so a writer holding
    other rows (a memory being corrected) never waits on a thread whose lock holder waits
    on it. ``schedule_vectors=False``: the caller schedules the vectors itself
    (``message_embeddings_schedule``), after a task that must go first.
    """
    # No savepoint inside a caller's transaction (the turn's submit and end): two round
    # trips each, and no caller goes on after a failed append.
    with transaction.atomic(savepoint=False):
        locked = (
            Thread.objects.select_for_update(no_key=True).only("id", "next_sequence", "incognito").get(pk=thread.pk)
        )
        start = locked.next_sequence
        rows = []
        for offset, item in enumerate(items):
            content = item["content"]
            rows.append(
                Message(
                    thread_id=thread.pk,
                    sequence=start + offset,
                    role=item["role"],
                    content=content,
                    text=blocks_to_text(content),
                    agent=item.get("agent", ""),
                    run=item.get("run"),
                    corrects=item.get("corrects"),
                    token_estimate=estimate_message({"role": item["role"], "content": content}),
                )
            )
        Message.objects.bulk_create(rows)
        # Every stored message with text gets its vector for the history search.
        if schedule_vectors:
            message_embeddings_schedule(messages=rows)
        now = timezone.now()
        # Touching a thread renews its retention.
        expires_at = thread_expires_at(thread=locked, now=now)
        Thread.objects.filter(pk=thread.pk).update(
            next_sequence=start + len(rows),
            last_activity_at=now,
            expires_at=expires_at,
            history_tokens=F("history_tokens") + sum(r.token_estimate for r in rows),
            tokens_sent=F("tokens_sent") + tokens_sent,
            tokens_full_resend=F("tokens_full_resend") + tokens_full_resend,
        )
    thread.next_sequence = start + len(rows)
    thread.last_activity_at, thread.expires_at = now, expires_at
    return rows


def message_append(
    *,
    thread: Thread,
    role: str,
    content: list[dict[str, Any]],
    agent: str = "",
    run=None,
    schedule_vectors: bool = True,
) -> Message:
    item = {"role": role, "content": content, "agent": agent, "run": run}
    return messages_append(thread=thread, items=[item], schedule_vectors=schedule_vectors)[0]


def thread_rename(*, thread: Thread, title: str) -> Thread:
    thread.title = title.strip()
    thread.full_clean()
    thread.save(update_fields=["title"])
    return thread


AUTO_TITLE_CHARS = 60


def thread_autotitle(*, thread: Thread, text: str) -> str:
    """Give an untitled thread a title from its first message (a rename always wins).

    The conditional UPDATE leaves a title the user set meanwhile alone.
    """
    words = " ".join(text.split())
    if len(words) > AUTO_TITLE_CHARS:
        words = words[:AUTO_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",.;:") + "…"
    if words and Thread.objects.filter(pk=thread.pk, title="").update(title=words):
        thread.title = words
    return thread.title


CORRECTION_MAX_CHARS = 500
CORRECTION_ABOUT_MAX_CHARS = 100
CORRECTABLE_ROLES = (MessageRole.USER, MessageRole.ASSISTANT)
_QUOTE_CHARS = 160


def correction_note_blocks(
    *, wrong: Message, right_value: str, about: str = "", by: str = "the user"
) -> list[dict[str, Any]]:
    """The note's two text blocks: the correction, then a quote of the statement it corrects.

    The first says what is wrong, the right value, and to ignore the earlier statement;
    it never repeats the wrong value, so a summary can keep it whole. The second quotes
    the statement, so the note still makes sense in a context where the statement
    itself is not shown (an older part of the conversation, a search excerpt).
    """
    said = " ".join(wrong.text.split())
    if len(said) > _QUOTE_CHARS:
        said = said[:_QUOTE_CHARS].rsplit(" ", 1)[0] + "…"
    who = "the user" if wrong.role == MessageRole.USER else "the assistant"
    correction = correction_text(sequence=wrong.sequence, who=who, by=by, about=about, right_value=right_value)
    return [text_block(correction), text_block(f"(Message #{wrong.sequence} said: “{said}”)")]


def message_lock_for_correction(*, message_id: int) -> Message | None:
    """Lock a statement until the transaction ends; None when it no longer exists.

    Every correction takes this lock first, of the statement (``usecases.message_correction``)
    or of a memory drawn from it (``usecases.memory_correction``): the one order
    is the statement, then its memories by id. ``FOR NO KEY UPDATE``: rows that merely
    refer to the message (a note, a memory's source) are not held up by it.
    """
    return Message.objects.select_for_update(no_key=True).filter(pk=message_id).first()


def message_correct(*, message: Message, right_value: str, about: str = "", by: str = "the user") -> Message:
    """Append a correction note of ``message`` to its thread, right after what is there now.

    The note is a ``system`` message with the next sequence (allocated under the thread
    lock, like any message) that references ``message``; ``message`` itself is kept.
    Only what the user or the assistant said can be corrected. ``by`` names who
    corrected it in the note ("the user", "staff").
    """
    right_value = " ".join((right_value or "").split())
    about = " ".join((about or "").split())
    if message.role not in CORRECTABLE_ROLES:
        raise ApplicationError(
            f"Message #{message.sequence} is a {message.role} message; only what the user or the assistant said "
            "can be corrected.",
            {"sequence": message.sequence, "role": message.role},
        )
    if not right_value:
        raise ApplicationError("Give the right value: `right_value` is empty.", {"field": "right_value"})
    if len(right_value) > CORRECTION_MAX_CHARS:
        raise ApplicationError(
            f"The right value is {len(right_value)} characters long; the limit is {CORRECTION_MAX_CHARS}.",
            {"field": "right_value", "limit": CORRECTION_MAX_CHARS},
        )
    if len(about) > CORRECTION_ABOUT_MAX_CHARS:
        raise ApplicationError(
            f"`about` is {len(about)} characters long; the limit is {CORRECTION_ABOUT_MAX_CHARS}.",
            {"field": "about", "limit": CORRECTION_ABOUT_MAX_CHARS},
        )
    blocks = correction_note_blocks(wrong=message, right_value=right_value, about=about, by=by)
    return messages_append(
        thread=message.thread, items=[{"role": MessageRole.SYSTEM, "content": blocks, "corrects": message}]
    )[0]


def message_embeddings_schedule(*, messages: list[Message]) -> None:
    """Embed new messages for the history search, after commit, in a worker.

    The turn never waits for the model, and search treats a message without a
    vector lexically until it has one. In a broker outage the task is sent once the
    broker is back (``liamemory.task_sending``), in the order they were sent (a
    turn sends its run's task first: ``usecases.turns.turn_submit``).
    """
    ids = [m.pk for m in messages if m.text]
    if ids and embeddings.enabled():
        task_send_on_commit(embed_messages, ids)
