"""Threads, their messages and their rolling summaries.

The ``Thread`` primary key is also the LangGraph ``thread_id``: one UUID glues the
checkpoints, the message history and the summaries together.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class ThreadQuerySet(models.QuerySet["Thread"]):
    def for_user(self, user: User) -> ThreadQuerySet:
        return self.filter(owner=user)

    def expired(self, now) -> ThreadQuerySet:
        return self.filter(expires_at__lte=now)


class Thread(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="threads")
    title = models.CharField(max_length=200, blank=True)
    agent = models.CharField(max_length=64, default="assistant")
    incognito = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    # Running totals, kept incrementally by each turn so that reading a thread's cost
    # never scans its history.
    tokens_sent = models.BigIntegerField(default=0)
    tokens_full_resend = models.BigIntegerField(default=0)
    # Next sequence number to hand out; bumped under SELECT ... FOR UPDATE on the thread.
    next_sequence = models.PositiveIntegerField(default=1)
    # Sum of message token estimates, so a full-resend cost needs no history scan.
    history_tokens = models.BigIntegerField(default=0)
    # The summary job working on this thread (its task id) and until when its claim
    # holds (``conversations/summary_services.py:_claim_thread``).
    summary_claim = models.CharField(max_length=64, blank=True)
    summary_claimed_until = models.DateTimeField(null=True, blank=True)

    objects = ThreadQuerySet.as_manager()

    class Meta:
        indexes = [
            # A user's conversation list, newest first.
            models.Index(fields=["owner", "-last_activity_at"], name="thread_owner_activity_idx"),
            # The purge: threads whose expiry has passed.
            models.Index(fields=["expires_at"], name="thread_expires_idx", condition=Q(expires_at__isnull=False)),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(tokens_sent__gte=0), name="thread_tokens_sent_nonneg"),
        ]

    def __str__(self) -> str:
        return self.title or f"Thread {self.id}"


class MessageRole(models.TextChoices):
    USER = "user", "User"
    ASSISTANT = "assistant", "Assistant"
    TOOL = "tool", "Tool result"
    SYSTEM = "system", "System note"


# A message whose content holds a tool call (``content @> TOOL_CALL``).
TOOL_CALL = [{"type": "tool_use"}]


class MessageQuerySet(models.QuerySet["Message"]):
    def for_thread(self, thread: Thread) -> MessageQuerySet:
        return self.filter(thread=thread)

    def said(self) -> MessageQuerySet:
        """What people said and the notes, without the agent's workings (tool calls and tool results)."""
        return self.exclude(role=MessageRole.TOOL).exclude(content__contains=TOOL_CALL)

    def last_n(self, thread: Thread, n: int) -> list[Message]:
        """The thread's last ``n`` messages in sequence order (served by the seq index)."""
        rows: list[Message] = list(self.filter(thread=thread).order_by("-sequence")[:n])
        rows.reverse()
        return rows


class Message(models.Model):
    # No index of its own: ``message_thread_sequence_uniq`` (thread, sequence) serves every look-up by
    # thread. With a second one the planner read a whole 10,000-message thread by it and sorted it for
    # the history search's newest 3,000 (it takes ``sequence < n`` for a fraction of the whole table),
    # a third of the lexical statement's database CPU (bench/README.md, "One index for a thread's messages").
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="messages", db_index=False)
    sequence = models.PositiveIntegerField()
    role = models.CharField(max_length=16, choices=MessageRole.choices)
    # Content blocks in the Anthropic shape: [{"type": "text", "text": ...}, {"type": "tool_use", ...}].
    content = models.JSONField(default=list)
    # Plain text of the blocks, for full-text and trigram search.
    text = models.TextField(blank=True)
    agent = models.CharField(max_length=64, blank=True)
    run = models.ForeignKey("agents.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="messages")
    token_estimate = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # A correction note (role ``system``) names the statement it corrects; the statement
    # itself stays (the rest of the conversation refers to it). The note goes with it.
    # The foreign key's index serves "the corrections of these messages" (context, summary).
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="corrections")

    objects = MessageQuerySet.as_manager()

    class Meta:
        ordering = ["thread", "sequence"]
        constraints = [
            # Also serves "a thread's last N messages by sequence" (index scan backwards).
            models.UniqueConstraint(fields=["thread", "sequence"], name="message_thread_sequence_uniq"),
            models.CheckConstraint(condition=Q(role__in=MessageRole.values), name="message_role_valid"),
            models.CheckConstraint(condition=Q(sequence__gte=1), name="message_sequence_positive"),
        ]
        indexes = [
            # search_history / API search: trigram similarity over message text.
            GinIndex(fields=["text"], name="message_text_trgm_idx", opclasses=["gin_trgm_ops"]),
        ]

    def __str__(self) -> str:
        return f"{self.thread_id}#{self.sequence} {self.role}"


class ThreadSummary(models.Model):
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="summaries")
    version = models.PositiveIntegerField()
    text = models.TextField()
    # The summary covers every message with sequence <= covers_through.
    covers_through = models.PositiveIntegerField()
    model = models.CharField(max_length=100)
    token_estimate = models.PositiveIntegerField(default=0)
    rebuilt_from_source = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "thread summary"
        verbose_name_plural = "thread summaries"
        ordering = ["thread", "-version"]
        constraints = [
            # Also serves "the thread's current summary" (highest version).
            models.UniqueConstraint(fields=["thread", "version"], name="summary_thread_version_uniq"),
            models.CheckConstraint(condition=Q(version__gte=1), name="summary_version_positive"),
        ]

    def __str__(self) -> str:
        return f"Summary v{self.version} of {self.thread_id}"


class MessageEmbedding(models.Model):
    """A message's text embedding (float16 bytes), for the semantic list of history search.

    Written by a background task after the message is committed; a message without one
    is still found by the lexical lists. ``thread`` and ``sequence`` are copied from
    the message so a thread's vectors are read by one index range scan. The foreign
    keys also cascade in the database (migration 0004), so raw DELETEs of the purge and
    the erasure remove the vectors with their messages.
    """

    message = models.OneToOneField(Message, on_delete=models.CASCADE, primary_key=True, related_name="embedding")
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="+", db_index=False)
    sequence = models.PositiveIntegerField()
    # Which model made the vector: a vector of another model is ignored and re-made.
    model = models.CharField(max_length=64)
    vector = models.BinaryField()
    # The same vector as int8 (``embeddings.to_int8_bytes``): the exact scan's first pass over
    # a long thread reads these, half the bytes (``conversations.vector_search``). Written
    # with the vector; empty only on a row written before migration 0010 filled them.
    vector_int8 = models.BinaryField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["thread", "sequence"], name="msg_embedding_thread_seq_idx")]

    def __str__(self) -> str:
        return f"Embedding of message {self.message_id}"
