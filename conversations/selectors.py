"""Reads on threads and messages. Ownership scoping lives here."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.dateparse import parse_datetime

from conversations.models import TOOL_CALL, Message, MessageRole, Thread, ThreadSummary
from liamemory.errors import NotFound


class ThreadNotFound(NotFound):
    """A thread that does not exist or is not the caller's: the two are indistinguishable."""

    def __init__(self, thread_id: object = None) -> None:
        super().__init__("Conversation not found.")


def thread_get_for_user(*, user: User, thread_id: uuid.UUID | str) -> Thread:
    try:
        return Thread.objects.for_user(user).get(pk=thread_id)
    except (Thread.DoesNotExist, ValueError, TypeError) as exc:
        raise ThreadNotFound(str(thread_id)) from exc


def thread_list_for_user(*, user: User) -> QuerySet[Thread]:
    return Thread.objects.for_user(user).order_by("-last_activity_at")


def thread_newest_empty(*, user: User, agent: str, incognito: bool) -> Thread | None:
    """The user's newest untitled thread with no message yet, of this agent and incognito mode."""
    return (
        Thread.objects.for_user(user)
        .filter(agent=agent, incognito=incognito, next_sequence=1, title="")
        .order_by("-created_at")
        .first()
    )


def threads_by_id_for_user(*, user: User, ids: list[uuid.UUID]) -> dict[uuid.UUID, Thread]:
    """The user's threads among ``ids`` (for labelling search hits); others' ids are dropped."""
    return {t.pk: t for t in Thread.objects.for_user(user).filter(pk__in=ids)}


def message_list_for_display(
    *, thread: Thread, limit: int = 500, after: int = 0, through: int | None = None
) -> list[Message]:
    """The thread's last ``limit`` user, assistant and system messages, in order (tool rows left out).

    ``after`` and ``through`` bound their sequence numbers (what a page shows already, what it asks for).
    """
    rows = Message.objects.for_thread(thread).exclude(role=MessageRole.TOOL).filter(sequence__gt=after)
    if through is not None:
        rows = rows.filter(sequence__lte=through)
    last = list(rows.order_by("-sequence")[:limit])
    last.reverse()
    return last


def tool_calls_refused(*, run_ids: list) -> set[str]:
    """The ids of the tool calls of these runs whose result was a refusal.

    A refused call's result block carries ``is_error`` (``usecases.turn.graph``): the pages
    must not show "saved to memory" under a write that memory off or incognito refused.
    """
    if not run_ids:
        return set()
    contents = Message.objects.filter(
        run_id__in=run_ids, role=MessageRole.TOOL, content__contains=[{"is_error": True}]
    ).values_list("content", flat=True)
    return {
        block.get("tool_use_id", "")
        for content in contents
        for block in content
        if isinstance(block, dict) and block.get("is_error")
    }


def summary_current(*, thread: Thread) -> ThreadSummary | None:
    return ThreadSummary.objects.filter(thread=thread).order_by("-version").first()


_SUMMARY_FIELDS = [f.attname for f in ThreadSummary._meta.concrete_fields]
_MESSAGE_COLUMNS = ", ".join(f"m.{f.column}" for f in Message._meta.concrete_fields)
_SUMMARY_OBJECT = ", ".join(f"'{f.attname}', s.{f.column}" for f in ThreadSummary._meta.concrete_fields)
# Written out rather than built by the ORM: composing the annotated queryset (the subquery
# and its JSON object) was two thirds of the read's CPU (3.7 -> 1.3 ms for a window of 20).
_WINDOW_SQL = f"""
SELECT {_MESSAGE_COLUMNS}, false AS late_note{{summary}}
FROM conversations_message m
WHERE m.thread_id = %(thread)s
ORDER BY m.sequence DESC
LIMIT %(size)s
"""
# The window's statement with the correction notes of its rows written after
# ``%(notes_after)s`` (the late notes ``summary_and_window`` reads for a retry's context).
_WITH_LATE_NOTES = f"""
WITH w AS MATERIALIZED ({{window}})
SELECT * FROM w
UNION ALL
SELECT {_MESSAGE_COLUMNS}, true{{nulls}}
FROM conversations_message m
WHERE m.corrects_id IN (SELECT w.id FROM w) AND m.sequence > %(notes_after)s
"""
_WITH_SUMMARY = f""",
       (SELECT jsonb_build_object({_SUMMARY_OBJECT}) FROM conversations_threadsummary s
        WHERE s.thread_id = %(thread)s ORDER BY s.version DESC LIMIT 1) AS current_summary"""


@dataclass(frozen=True)
class ContextOpening:
    """What a context reads first, in one statement (``summary_and_window``)."""

    summary: ThreadSummary | None
    window: list[Message]
    # Correction notes of the window's messages written after ``notes_after``, oldest first,
    # by corrected message id (empty when not asked for).
    late_notes: dict[int, list[Message]]
    # The values of the caller's ``along`` columns (None where the thread has no message).
    along: dict[str, object]


def summary_and_window(
    *,
    thread: Thread,
    size: int,
    with_summary: bool,
    notes_after: int | None = None,
    along: dict[str, str] | None = None,
    params: dict[str, object] | None = None,
) -> ContextOpening:
    """The thread's current summary (when ``with_summary``) and its last ``size`` messages, in order.

    One statement for what every context reads first: the summary rides on the window's
    rows as an uncorrelated subquery (computed once), as a JSON object. ``notes_after``: the
    correction notes of the window's messages written after that sequence come as rows of the
    same statement (a retry's context needs them; ``corrections_of`` was a round trip of its
    own). ``along``: scalar SQL expressions of the caller's (named columns, their values in
    ``params``) read on the same row instead of in queries of their own (the memory switch).
    A thread with no message yet reads the summary on its own and none of ``along``.
    """
    columns = _WITH_SUMMARY if with_summary else ""
    columns += "".join(f",\n       {expression} AS {name}" for name, expression in (along or {}).items())
    sql = _WINDOW_SQL.format(summary=columns)
    if notes_after is not None:
        extra = int(with_summary) + len(along or {})
        sql = _WITH_LATE_NOTES.format(window=sql, nulls=", NULL" * extra)
    query = {**(params or {}), "thread": thread.pk, "size": size, "notes_after": notes_after}
    rows = list(Message.objects.raw(sql, query))
    late_notes: dict[int, list[Message]] = {}
    for note in sorted((r for r in rows if r.late_note), key=lambda r: r.sequence):  # type: ignore[attr-defined]
        late_notes.setdefault(note.corrects_id, []).append(note)  # type: ignore[arg-type]
    rows = sorted((r for r in rows if not r.late_note), key=lambda r: r.sequence)  # type: ignore[attr-defined]
    first = rows[0] if rows else None
    values = {name: getattr(first, name) if first else None for name in along or {}}
    if not with_summary:
        return ContextOpening(summary=None, window=rows, late_notes=late_notes, along=values)
    if first is None:
        return ContextOpening(summary=summary_current(thread=thread), window=rows, late_notes={}, along=values)
    data = first.current_summary  # type: ignore[attr-defined]
    if data is None:
        return ContextOpening(summary=None, window=rows, late_notes=late_notes, along=values)
    data = json.loads(data) if isinstance(data, str) else data
    data["created_at"], data["thread_id"] = parse_datetime(data["created_at"]), thread.pk
    summary = ThreadSummary.from_db(connection.alias, _SUMMARY_FIELDS, [data[f] for f in _SUMMARY_FIELDS])
    return ContextOpening(summary=summary, window=rows, late_notes=late_notes, along=values)


def message_list(*, thread: Thread) -> QuerySet[Message]:
    """A thread's messages (the caller got ``thread`` through ``thread_get_for_user``), each
    with ``corrected``: whether a correction note names it (in the same query)."""
    notes = Message.objects.filter(thread=thread, corrects=OuterRef("pk"))
    return Message.objects.filter(thread=thread).annotate(corrected=Exists(notes))


def thread_titles(*, user: User, thread_ids: list) -> dict:
    return dict(Thread.objects.for_user(user).filter(pk__in=thread_ids).values_list("id", "title"))


def message_get_by_sequence(*, thread: Thread, sequence: int) -> Message | None:
    """One message of ``thread`` (the caller got ``thread`` through an ownership check)."""
    return Message.objects.filter(thread=thread, sequence=sequence).first()


def corrections_of(*, message_ids: list[int]) -> dict[int, list[Message]]:
    """The correction notes of these messages, oldest first, by corrected message id (one query)."""
    if not message_ids:
        return {}
    notes: dict[int, list[Message]] = {}
    for note in Message.objects.filter(corrects_id__in=message_ids).order_by("sequence"):
        if note.corrects_id is not None:
            notes.setdefault(note.corrects_id, []).append(note)
    return notes


def thread_get_for_staff(*, thread_id: uuid.UUID | str) -> Thread:
    """Anyone's thread (staff endpoints; the role is checked by the caller)."""
    try:
        return Thread.objects.get(pk=thread_id)
    except (Thread.DoesNotExist, ValueError, TypeError) as exc:
        raise ThreadNotFound(str(thread_id)) from exc


def thread_exists(*, thread_id: uuid.UUID | str) -> bool:
    """Whether the thread is still there (a running turn's writes check it under the run's lock)."""
    return Thread.objects.filter(pk=thread_id).exists()


def run_reply_message(*, run_id: uuid.UUID | str) -> Message | None:
    """The last assistant message a run wrote (the caller knows the run completed or was stopped),
    with ``corrected`` (as ``message_list``): the end of every streamed turn reads it, in one query."""
    notes = Message.objects.filter(corrects=OuterRef("pk"))
    return (
        Message.objects.filter(run_id=run_id, role=MessageRole.ASSISTANT)
        .annotate(corrected=Exists(notes))
        .order_by("-sequence")
        .first()
    )


def run_messages(*, run_id: uuid.UUID | str) -> list[Message]:
    """The assistant and system messages a run wrote, in order (tool results left out)."""
    return list(Message.objects.filter(run_id=run_id).exclude(role=MessageRole.TOOL).order_by("sequence"))


EXCERPT_SHOWN_CHARS = 160


def message_excerpts(*, thread: Thread, message_ids: list[int]) -> dict[int, dict]:
    """Short excerpts of messages of ``thread``'s owner: ``{id: {"message_id", "sequence", "date", "text"}}``.

    A message of another of the owner's conversations (the context quoted it from there)
    also carries ``thread_id`` and ``thread_title``. One query; a message deleted since is
    absent, and so is any message that is not the owner's.
    """
    out = {}
    rows = (
        Message.objects.filter(thread__owner_id=thread.owner_id, pk__in=message_ids)
        .select_related("thread")
        .only("id", "sequence", "text", "created_at", "thread__id", "thread__title")
    )
    for row in rows:
        text = " ".join(row.text.split())
        if len(text) > EXCERPT_SHOWN_CHARS:
            text = text[: EXCERPT_SHOWN_CHARS - 1] + "…"
        out[row.pk] = {
            "message_id": row.pk,
            "sequence": row.sequence,
            "date": row.created_at.date().isoformat(),
            "text": text,
        }
        if row.thread_id != thread.pk:
            title = row.thread.title or "untitled conversation"
            out[row.pk] |= {"thread_id": str(row.thread_id), "thread_title": title}
    return out


# ``models.TOOL_CALL`` as a query parameter (``content @> %(tool_use)s::jsonb``).
TOOL_USE_CONTENT = json.dumps(TOOL_CALL)
# The text of the person's message a reply answers: the nearest earlier ``user`` message
# of its thread (a tool call and its result may sit between). Looked for first among the
# ``ASKED_NEAR`` messages just before the reply, named by their (thread, sequence) range, so
# that whatever plan the planner picks it reads at most that many rows: asked of every earlier
# row, a planner with statistics from when the thread was short read them all and sorted them
# (1,009 pages for 8 hits on a 3,600-message thread, against 53 walking the index back;
# bench/README.md, session 16). Only when none of those is the person's are the rest looked at
# (``coalesce`` evaluates its second subquery only then). A run takes at most ``max_steps`` (6)
# tool rounds of two rows each, so its reply is within 13 rows of the request.
ASKED_NEAR = 16
_ASKED_SINCE = """(
    SELECT u.text FROM conversations_message u
    WHERE u.thread_id = m.thread_id AND u.role = %(user)s AND u.sequence < m.sequence{since}
    ORDER BY u.sequence DESC LIMIT 1
)"""
_ASKED = "coalesce({near}, {rest})".format(
    near=_ASKED_SINCE.format(since=f" AND u.sequence >= m.sequence - {ASKED_NEAR}"),
    rest=_ASKED_SINCE.format(since=f" AND u.sequence < m.sequence - {ASKED_NEAR}"),
)


def asked_before(*, message_ids: list[int]) -> dict[int, str]:
    """For each of these messages, the text of the person's message it answers. One query."""
    if not message_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, {_ASKED} FROM conversations_message m WHERE m.id = ANY(%(ids)s)",
            {"user": MessageRole.USER, "ids": list(message_ids)},
        )
        return {pk: asked or "" for pk, asked in cursor.fetchall()}


@dataclass(frozen=True)
class HitRow:
    role: str
    created_at: datetime
    text: str
    # For a reply, what the person asked (``asked_before``); "" for any other row.
    asked: str


@dataclass(frozen=True)
class SaidRow:
    message_id: int
    sequence: int
    row: HitRow


def said_rows_at(*, thread: Thread, sequences: list[int]) -> dict[int, SaidRow]:
    """What the person and the assistant said at these sequences of ``thread``, by sequence: one query.

    Tool calls, tool results and system notes are not speech (``conversations.search``
    leaves them out of its scope too); a reply carries what it answers, as ``hit_rows``.
    """
    if not sequences:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT m.id, m.sequence, m.role, m.created_at, m.text,
                   CASE WHEN m.role = %(assistant)s THEN coalesce({_ASKED}, '') ELSE '' END
            FROM conversations_message m
            WHERE m.thread_id = %(thread)s AND m.sequence = ANY(%(sequences)s)
              AND m.role IN (%(user)s, %(assistant)s) AND NOT m.content @> %(tool_use)s::jsonb
            """,
            {
                "user": MessageRole.USER,
                "assistant": MessageRole.ASSISTANT,
                "thread": thread.pk,
                "sequences": list(sequences),
                "tool_use": TOOL_USE_CONTENT,
            },
        )
        return {
            sequence: SaidRow(pk, sequence, HitRow(role, created_at, text, asked))
            for pk, sequence, role, created_at, text, asked in cursor.fetchall()
        }


def hit_rows(*, message_ids: list[int]) -> dict[int, HitRow]:
    """What a search hit shows of these messages, and what each reply answers: one query."""
    if not message_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT m.id, m.role, m.created_at, m.text,
                   CASE WHEN m.role = %(assistant)s THEN coalesce({_ASKED}, '') ELSE '' END
            FROM conversations_message m WHERE m.id = ANY(%(ids)s)
            """,
            {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT, "ids": list(message_ids)},
        )
        return {pk: HitRow(role, created_at, text, asked) for pk, role, created_at, text, asked in cursor.fetchall()}
