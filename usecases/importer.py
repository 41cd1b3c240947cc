"""Import conversations in the export format (``docs/export.schema.json``).

Loads threads, their messages and their summary versions, to migrate conversations
from another system or another installation; runs, memories and the audit of a
document are for reading and are not imported. The rules:

- the whole document is checked first (schema, then what a schema cannot say:
  duplicate ids and sequences, dates, agents); a bad file changes nothing, and the
  refusal names the JSON path of each problem;
- the owner is given explicitly, never read from the document; a thread id that
  already belongs to someone else is refused, never merged;
- idempotent: threads by id, messages by (thread id, sequence), summaries by (thread
  id, version); what exists is skipped, so running an import twice adds nothing;
- one transaction: all of it or none of it.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import jsonschema_rs
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from jsonschema import Draft202012Validator

from conversations.content import blocks_to_text
from conversations.models import Message, Thread, ThreadSummary
from conversations.tasks import embed_messages
from conversations.tokens import estimate_message, estimate_text
from liamemory import embeddings
from liamemory.errors import ApplicationError, Conflict
from liamemory.jsoncheck import json_problems
from liamemory.retention import thread_expires_at
from liamemory.task_sending import task_send_on_commit
from usecases.export import export_schema
from usecases.turn.registry import AGENTS

logger = logging.getLogger(__name__)

MAX_REPORTED_ERRORS = 20
BATCH = 1000
EMBED_BATCH = 200
# Clocks of the exporting system may run a little ahead of ours.
FUTURE_TOLERANCE = timedelta(days=1)


@dataclass(frozen=True)
class ImportResult:
    threads_created: int = 0
    threads_skipped: int = 0
    messages_created: int = 0
    messages_skipped: int = 0
    summaries_created: int = 0
    summaries_skipped: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @property
    def created(self) -> int:
        return self.threads_created + self.messages_created + self.summaries_created


class ImportInvalid(ApplicationError):
    """The document is not one we can load; ``extra["errors"]`` lists each problem with its JSON path."""

    def __init__(self, errors: list[dict[str, str]], total: int) -> None:
        first = errors[0]
        more = f" (and {total - 1} more problem{'s' if total > 2 else ''})" if total > 1 else ""
        super().__init__(
            f"Invalid export document at {first['path']}: {first['message']}{more}. Nothing was imported.",
            extra={"errors": errors, "error_count": total},
        )


class ImportConflict(Conflict):
    """A thread id of the document belongs to another person."""


@lru_cache(maxsize=1)
def _validators() -> tuple[Any, Draft202012Validator]:
    schema = export_schema()
    return jsonschema_rs.validator_for(schema), Draft202012Validator(schema)


def _parse_ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _schema_errors(document: Any) -> list[dict[str, str]]:
    """Problems with their JSON paths. A valid document is checked by jsonschema-rs alone
    (some hundred times faster on a large import); the reference implementation words
    the errors of an invalid one."""
    fast, reference = _validators()
    if fast.is_valid(document):
        return []
    found = sorted(reference.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if found:
        return [{"path": e.json_path, "message": e.message} for e in found]
    return [{"path": _json_path(e.instance_path), "message": e.message} for e in fast.iter_errors(document)]


def _json_path(parts: list) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _meaning_errors(document: dict[str, Any]) -> list[dict[str, str]]:
    """What a JSON Schema cannot say: uniqueness across items, real dates, known agents."""
    errors: list[dict[str, str]] = []
    seen_threads: dict[str, int] = {}
    for ti, thread in enumerate(document["threads"]):
        at = f"$.threads[{ti}]"
        tid = str(uuid.UUID(thread["id"]))
        if tid in seen_threads:
            errors.append(
                {"path": f"{at}.id", "message": f"thread {tid} also appears at $.threads[{seen_threads[tid]}]"}
            )
        seen_threads.setdefault(tid, ti)
        if "agent" in thread and thread["agent"] not in AGENTS:
            errors.append(
                {"path": f"{at}.agent", "message": f"unknown agent {thread['agent']!r}; use one of {sorted(AGENTS)}"}
            )
        for key in ("created_at", "last_activity_at"):
            errors += _date_error(thread.get(key), f"{at}.{key}")
        errors += _date_error(thread.get("expires_at"), f"{at}.expires_at", past_only=False)
        sequences: dict[int, int] = {}
        for mi, message in enumerate(thread["messages"]):
            seq = message["sequence"]
            if seq in sequences:
                where = f"{at}.messages[{sequences[seq]}]"
                errors.append(
                    {"path": f"{at}.messages[{mi}].sequence", "message": f"sequence {seq} also used at {where}"}
                )
            sequences.setdefault(seq, mi)
            errors += _date_error(message.get("created_at"), f"{at}.messages[{mi}].created_at")
        for mi, message in enumerate(thread["messages"]):
            corrects = message.get("corrects_sequence")
            if corrects is not None and (corrects not in sequences or corrects >= message["sequence"]):
                errors.append(
                    {
                        "path": f"{at}.messages[{mi}].corrects_sequence",
                        "message": f"sequence {corrects} is not an earlier message of this conversation",
                    }
                )
        versions: set[int] = set()
        for si, summary in enumerate(thread.get("summaries", [])):
            if summary["version"] in versions:
                errors.append({"path": f"{at}.summaries[{si}].version", "message": "version used twice"})
            versions.add(summary["version"])
            errors += _date_error(summary.get("created_at"), f"{at}.summaries[{si}].created_at")
    return errors


def _date_error(value: str | None, path: str, *, past_only: bool = True) -> list[dict[str, str]]:
    """A date Python and PostgreSQL can hold in UTC (years 1 to 9999: "0001-01-01T00:00+14:00" is
    year 0 there, and every page showing it would fail); a creation or activity date cannot lie
    in the future (retention adds days to it)."""
    try:
        parsed = _parse_ts(value)
    except ValueError as exc:
        return [{"path": path, "message": f"{value!r} is not a date and time: {exc}"}]
    if parsed is None:
        return []
    try:
        utc = parsed.astimezone(UTC)
    except OverflowError:
        return [{"path": path, "message": f"{value!r} is outside years 1 to 9999 once converted to UTC"}]
    if past_only and utc > timezone.now() + FUTURE_TOLERANCE:
        return [{"path": path, "message": f"{value!r} is in the future"}]
    return []


def export_validate(*, document: Any) -> None:
    """Raise :class:`ImportInvalid` naming every problem (up to a limit) with its JSON path."""
    # First what no schema validator should walk: NUL characters, lone surrogates, infinite
    # numbers and nesting past the recursion limit.
    errors = json_problems(document, limit=MAX_REPORTED_ERRORS)
    if errors:
        raise ImportInvalid(errors, len(errors))
    errors = _schema_errors(document)
    if not errors:
        errors = _meaning_errors(document)
    if errors:
        raise ImportInvalid(errors[:MAX_REPORTED_ERRORS], len(errors))


def export_import(*, document: dict, owner: User, dry_run: bool = False) -> ImportResult:
    """Load the threads, messages and summaries of ``document`` as ``owner``'s.

    ``dry_run`` checks and counts everything, then rolls back.
    """
    export_validate(document=document)
    try:
        with transaction.atomic():
            result = _load(document["threads"], owner)
            if dry_run:
                transaction.set_rollback(True)
    except IntegrityError as exc:
        # Two imports creating the same thread at once: the loser changes nothing.
        raise Conflict("Another import wrote these conversations at the same time; run this one again.") from exc
    logger.info("import for user %s%s: %s", owner.pk, " (dry run)" if dry_run else "", result.as_dict())
    return result


def _load(threads: list[dict[str, Any]], owner: User) -> ImportResult:
    now = timezone.now()
    ids = [uuid.UUID(t["id"]) for t in threads]
    # Locked like messages_append locks them: a turn on an existing thread waits.
    existing = {t.pk: t for t in Thread.objects.select_for_update().filter(pk__in=ids)}
    foreign = [
        (i, t["id"])
        for i, t in enumerate(threads)
        if uuid.UUID(t["id"]) in existing and existing[uuid.UUID(t["id"])].owner_id != owner.pk
    ]
    if foreign:
        index, tid = foreign[0]
        raise ImportConflict(
            f"Conversation {tid} ($.threads[{index}].id) belongs to another person; it was not imported, "
            "and nothing else was either.",
            extra={"path": f"$.threads[{index}].id", "thread_ids": [t for _, t in foreign]},
        )

    new_threads = [_thread(t, owner, now) for t in threads if uuid.UUID(t["id"]) not in existing]
    _insert_keeping_timestamps(Thread, new_threads, ["created_at", "last_activity_at"])

    have_seq = set(Message.objects.filter(thread_id__in=ids).values_list("thread_id", "sequence"))
    have_ver = set(ThreadSummary.objects.filter(thread_id__in=ids).values_list("thread_id", "version"))
    messages, summaries, skipped_m, skipped_s = [], [], 0, 0
    for t in threads:
        tid = uuid.UUID(t["id"])
        for m in t["messages"]:
            if (tid, m["sequence"]) in have_seq:
                skipped_m += 1
            else:
                messages.append(_message(m, tid, now))
        for s in t.get("summaries", []):
            if (tid, s["version"]) in have_ver:
                skipped_s += 1
            else:
                summaries.append(_summary(s, tid, now))
    _insert_keeping_timestamps(Message, messages, ["created_at"])
    _link_corrections(threads)
    _insert_keeping_timestamps(ThreadSummary, summaries, ["created_at"])
    _renumber(messages)
    _embed_later(messages)
    return ImportResult(
        threads_created=len(new_threads),
        threads_skipped=len(existing),
        messages_created=len(messages),
        messages_skipped=skipped_m,
        summaries_created=len(summaries),
        summaries_skipped=skipped_s,
    )


def _link_corrections(threads: list[dict[str, Any]]) -> None:
    """Correction notes point at the statements they correct again (one UPDATE)."""
    links = [
        (t["id"], m["sequence"], m["corrects_sequence"])
        for t in threads
        for m in t["messages"]
        if m.get("corrects_sequence") is not None
    ]
    if not links:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE conversations_message note SET corrects_id = wrong.id"
            " FROM unnest(%s::uuid[], %s::int[], %s::int[]) AS v(thread_id, seq, corrects),"
            " conversations_message wrong"
            " WHERE note.thread_id = v.thread_id AND note.sequence = v.seq AND note.corrects_id IS NULL"
            " AND wrong.thread_id = v.thread_id AND wrong.sequence = v.corrects",
            [[t for t, _, _ in links], [s for _, s, _ in links], [c for _, _, c in links]],
        )


def _embed_later(messages: list[Message]) -> None:
    # Imported messages get their search vectors like appended ones: after commit, in a
    # worker, in batches (a dry run rolls back and enqueues nothing).
    ids = [m.pk for m in messages if m.text]
    if not ids or not embeddings.enabled():
        return
    for start in range(0, len(ids), EMBED_BATCH):
        task_send_on_commit(embed_messages, ids[start : start + EMBED_BATCH])


def _insert_keeping_timestamps(model, rows: list, fields: list[str]) -> None:
    """``bulk_create``, then the document's times written back in one UPDATE per batch
    (``auto_now_add`` replaced them on insert; ``bulk_update``'s CASE is quadratic)."""
    if not rows:
        return
    wanted = [[getattr(row, f) for f in fields] for row in rows]
    model.objects.bulk_create(rows, batch_size=BATCH)
    table = model._meta.db_table
    pk_type = "uuid" if model is Thread else "bigint"
    assignments = ", ".join(f"{f} = v.{f}" for f in fields)
    columns = ", ".join(fields)
    arrays = ", ".join("%s::timestamptz[]" for _ in fields)
    sql = (
        f"UPDATE {table} t SET {assignments}"
        f" FROM unnest(%s::{pk_type}[], {arrays}) AS v(id, {columns}) WHERE t.id = v.id"
    )
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            chunk = range(start, min(start + BATCH, len(rows)))
            params = [[rows[i].pk for i in chunk]] + [[wanted[i][k] for i in chunk] for k in range(len(fields))]
            cursor.execute(sql, params)
    for row, values in zip(rows, wanted, strict=True):
        for f, value in zip(fields, values, strict=True):
            setattr(row, f, value)


def _thread(data: dict[str, Any], owner: User, now: datetime) -> Thread:
    stamps = [datetime.fromisoformat(m["created_at"]) for m in data["messages"] if m.get("created_at")]
    created = _parse_ts(data.get("created_at")) or (min(stamps) if stamps else now)
    thread = Thread(
        id=uuid.UUID(data["id"]),
        owner=owner,
        title=data.get("title", ""),
        agent=data.get("agent", "assistant"),
        incognito=data.get("incognito", False),
        created_at=created,
        last_activity_at=_parse_ts(data.get("last_activity_at")) or (max(stamps) if stamps else created),
    )
    # This installation's retention runs from the import; an earlier expiry the
    # document carries is kept (the shorter of the two wins).
    policy = thread_expires_at(thread=thread, now=now)
    carried = _parse_ts(data.get("expires_at"))
    if carried is not None and carried > now:
        thread.expires_at = carried if policy is None else min(carried, policy)
    else:
        thread.expires_at = policy
    return thread


def _message(data: dict[str, Any], thread_id: uuid.UUID, now: datetime) -> Message:
    content = data["content"]
    return Message(
        thread_id=thread_id,
        sequence=data["sequence"],
        role=data["role"],
        content=content,
        text=blocks_to_text(content),
        agent=data.get("agent", ""),
        token_estimate=estimate_message({"role": data["role"], "content": content}),
        created_at=_parse_ts(data.get("created_at")) or now,
    )


def _summary(data: dict[str, Any], thread_id: uuid.UUID, now: datetime) -> ThreadSummary:
    return ThreadSummary(
        thread_id=thread_id,
        version=data["version"],
        text=data["text"],
        covers_through=data["covers_through"],
        model=data.get("model", "import"),
        token_estimate=estimate_text(data["text"]),
        rebuilt_from_source=data.get("rebuilt_from_source", False),
        created_at=_parse_ts(data.get("created_at")) or now,
    )


def _renumber(messages: list[Message]) -> None:
    """Next sequences past the highest imported one and history token totals grown, in one UPDATE."""
    top: dict[uuid.UUID, int] = {}
    tokens: dict[uuid.UUID, int] = {}
    for m in messages:
        top[m.thread_id] = max(top.get(m.thread_id, 0), m.sequence)
        tokens[m.thread_id] = tokens.get(m.thread_id, 0) + m.token_estimate
    if not top:
        return
    ids = list(top)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE conversations_thread t"
            " SET next_sequence = greatest(t.next_sequence, v.top + 1), history_tokens = t.history_tokens + v.tokens"
            " FROM unnest(%s::uuid[], %s::int[], %s::bigint[]) AS v(id, top, tokens) WHERE t.id = v.id",
            [ids, [top[i] for i in ids], [tokens[i] for i in ids]],
        )
