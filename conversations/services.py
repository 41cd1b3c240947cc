"""Writes on threads and messages."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from conversations.content import blocks_to_text
from conversations.models import Message, Thread
from conversations.signals import messages_stored
from conversations.tokens import estimate_message
from liamemory.retention import thread_expires_at


def thread_create(*, owner: User, agent: str = "assistant", title: str = "", incognito: bool = False) -> Thread:
    """Store a new thread. The agent name is the caller's to check (``agents.services.thread_start``)."""
    thread = Thread(owner=owner, agent=agent, title=title, incognito=incognito)
    thread.expires_at = thread_expires_at(thread=thread, now=timezone.now())
    thread.full_clean()
    thread.save()
    return thread


def messages_append(*, thread: Thread, items: list[dict[str, Any]]) -> list[Message]:
    """Append messages to a thread atomically, allocating their sequence numbers.

    Each item: ``{"role", "content" (blocks), "agent"?, "run"?}``. The thread row is
    locked (SELECT ... FOR UPDATE) while numbers are handed out, so concurrent writers
    never collide on a sequence and never leave a gap.
    """
    with transaction.atomic():
        locked = Thread.objects.select_for_update().only("id", "next_sequence", "incognito").get(pk=thread.pk)
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
                    token_estimate=estimate_message({"role": item["role"], "content": content}),
                )
            )
        Message.objects.bulk_create(rows)
        messages_stored.send(sender=Message, messages=rows)
        now = timezone.now()
        # Touching a thread renews its retention.
        expires_at = thread_expires_at(thread=locked, now=now)
        Thread.objects.filter(pk=thread.pk).update(
            next_sequence=start + len(rows),
            last_activity_at=now,
            expires_at=expires_at,
            history_tokens=F("history_tokens") + sum(r.token_estimate for r in rows),
        )
    thread.next_sequence = start + len(rows)
    thread.last_activity_at, thread.expires_at = now, expires_at
    return rows


def message_append(*, thread: Thread, role: str, content: list[dict[str, Any]], agent: str = "", run=None) -> Message:
    return messages_append(thread=thread, items=[{"role": role, "content": content, "agent": agent, "run": run}])[0]


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
