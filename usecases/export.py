"""A person's whole data as one JSON document (docs/design.md, "Export format").

The document is described by ``docs/export.schema.json`` (JSON Schema 2020-12) and
read back by :mod:`usecases.importer`. UUIDs (threads, runs) are kept; database
integer ids of messages are not, since they mean nothing in another installation:
a message is named by its thread id and sequence, everywhere in the document.

Reads only, in a fixed number of queries whatever the person has stored: one per
table, each served by an index on the owner/user column.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from agents.context_report import context_report_read
from agents.models import Approval, Run, TraceEvent
from conversations.models import Message, ThreadSummary
from memories.models import Memory
from memories.selectors import memory_preference_for
from usecases.personal_data import exported_rows

# The declared stores (``exported=True``) the document carries: the person and their
# preference, the threads with messages, summaries and runs with their steps, the
# memories with the history of their changes. A test holds the declarations to it.
EXPORTED_STORES = (
    "account",
    "memory_preferences",
    "threads",
    "messages",
    "summaries",
    "runs",
    "trace_events",
    "approvals",
    "memories",
    "memory_history_scrubbed",
)
EXPORT_FORMAT = "liamemory.export"
EXPORT_VERSION = 1
SCHEMA_PATH = Path(settings.BASE_DIR) / "docs" / "export.schema.json"


def export_schema() -> dict[str, Any]:
    """The committed JSON Schema of the export document."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _context_report(r: Run) -> dict[str, Any] | None:
    report = context_report_read(r.context_report)
    return report.as_json() if report else None


def _ts(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _uuid(value: Any) -> str | None:
    return str(value) if value is not None else None


def _message(m: Message, run_ids: set, sequences: dict[int, int]) -> dict[str, Any]:
    return {
        "sequence": m.sequence,
        "role": m.role,
        "content": m.content,
        "agent": m.agent,
        # A run that no longer exists (expired) is not referred to.
        "run_id": _uuid(m.run_id) if m.run_id in run_ids else None,
        # A correction note names the statement it corrects by its sequence.
        "corrects_sequence": sequences.get(m.corrects_id) if m.corrects_id else None,
        "created_at": _ts(m.created_at),
    }


def _summary(s: ThreadSummary) -> dict[str, Any]:
    return {
        "version": s.version,
        "text": s.text,
        "covers_through": s.covers_through,
        "model": s.model,
        "rebuilt_from_source": s.rebuilt_from_source,
        "created_at": _ts(s.created_at),
    }


def _trace(e: TraceEvent) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "name": e.name,
        "payload": e.payload,
        "tokens_in": e.tokens_in,
        "tokens_out": e.tokens_out,
        "duration_ms": e.duration_ms,
        "created_at": _ts(e.created_at),
    }


def _approval(a: Approval) -> dict[str, Any]:
    # Who decided is a staff member's identity, not the person's data: only whether staff did.
    return {
        "action": a.action,
        "reason": a.reason,
        "amount": str(a.amount) if a.amount is not None else None,
        "requested_at": _ts(a.requested_at),
        "decision": a.decision,
        "decided_at": _ts(a.decided_at),
        "note": a.note,
    }


def _run(
    r: Run, sequences: dict[int, int], trace: list[dict[str, Any]], approvals: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": str(r.id),
        "status": r.status,
        "agent": r.agent,
        "model": r.model,
        "request_message_sequence": sequences.get(r.request_message_id) if r.request_message_id else None,
        "retry_of": _uuid(r.retry_of_id),
        "error_code": r.error_code,
        "error_message": r.error_message,
        "tokens_in": r.tokens_in,
        "tokens_out": r.tokens_out,
        "tokens_cached": r.tokens_cached,
        "tokens_cache_write": r.tokens_cache_write,
        "latency_ms": r.latency_ms,
        "attempts": r.attempts,
        "context_report": _context_report(r),
        "approvals": approvals,
        "created_at": _ts(r.created_at),
        "started_at": _ts(r.started_at),
        "finished_at": _ts(r.finished_at),
        "expires_at": _ts(r.expires_at),
        "trace": trace,
    }


def _memory(m: Memory, positions: dict[int, tuple]) -> dict[str, Any]:
    thread_ref = m.source_thread_id or m.source_thread_ref
    position = positions.get(m.source_message_id) if m.source_message_id else None
    return {
        "id": m.pk,
        "kind": m.kind,
        "content": m.content,
        "importance": m.importance,
        "status": m.status,
        "superseded_by": m.superseded_by_id,
        "provenance": {
            "writer_type": m.writer_type,
            "writer_name": m.writer_name,
            "thread_id": _uuid(thread_ref),
            "message_sequence": position[1] if position else None,
            "run_id": _uuid(m.source_run_id),
            "source_expired": m.source_expired,
        },
        "created_at": _ts(m.created_at),
        "updated_at": _ts(m.updated_at),
        "last_used_at": _ts(m.last_used_at),
        "expires_at": _ts(m.expires_at),
    }


def _audit_entry(h) -> dict[str, Any]:
    return {
        "history_id": h.history_id,
        "memory_id": h.id,
        "change": {"+": "created", "~": "changed", "-": "deleted"}[h.history_type],
        "at": _ts(h.history_date),
        "actor": h.history_user.get_username() if h.history_user_id else None,
        "reason": h.history_change_reason,
        "kind": h.kind,
        "content": h.content,
        "importance": h.importance,
        "status": h.status,
    }


def person_export(*, user: User) -> dict[str, Any]:
    """Everything stored about ``user``, as one JSON-serialisable document.

    Threads carry their messages, summary versions and runs (with trace events);
    memories carry their provenance; ``audit`` holds every recorded change to the
    person's memories (who, when, the state after it), erased ones included.
    """
    if connection.in_atomic_block:
        return _collect(user)
    # One snapshot for all the reads: a turn finishing meanwhile must not leave a run
    # in the document whose messages are not.
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _collect(user)


def _collect(user: User) -> dict[str, Any]:
    # The person's rows in every exported store, found through the declared keys (the
    # rows an erasure takes whole); one query each.
    rows = exported_rows(user_id=user.pk)
    threads = list(rows["threads"].order_by("created_at", "id"))
    messages = list(rows["messages"].order_by("thread_id", "sequence"))
    summaries = list(rows["summaries"].order_by("thread_id", "version"))
    runs = list(rows["runs"].order_by("created_at", "id"))
    events = list(rows["trace_events"].order_by("run_id", "id"))
    approvals = list(rows["approvals"].order_by("run_id", "requested_at", "id"))
    memories = list(rows["memories"].order_by("created_at", "id"))
    history = list(rows["memory_history_scrubbed"].select_related("history_user").order_by("history_id"))
    preference = memory_preference_for(user=user)

    run_ids = {r.id for r in runs}
    positions = {m.pk: (m.thread_id, m.sequence) for m in messages}
    sequences = {pk: seq for pk, (_, seq) in positions.items()}
    by_thread: dict[Any, dict[str, list]] = defaultdict(lambda: {"messages": [], "summaries": [], "runs": []})
    for m in messages:
        by_thread[m.thread_id]["messages"].append(_message(m, run_ids, sequences))
    for s in summaries:
        by_thread[s.thread_id]["summaries"].append(_summary(s))
    trace_by_run: dict[Any, list] = defaultdict(list)
    for e in events:
        trace_by_run[e.run_id].append(_trace(e))
    approvals_by_run: dict[Any, list] = defaultdict(list)
    for a in approvals:
        approvals_by_run[a.run_id].append(_approval(a))
    for r in runs:
        by_thread[r.thread_id]["runs"].append(_run(r, sequences, trace_by_run[r.id], approvals_by_run[r.id]))

    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": _ts(timezone.now()),
        "person": {
            "id": user.pk,
            "username": user.get_username(),
            "email": getattr(user, "email", "") or "",
            "date_joined": _ts(getattr(user, "date_joined", None)),
            "long_term_memory_enabled": preference,
        },
        "threads": [
            {
                "id": str(t.id),
                "title": t.title,
                "agent": t.agent,
                "incognito": t.incognito,
                "created_at": _ts(t.created_at),
                "last_activity_at": _ts(t.last_activity_at),
                "expires_at": _ts(t.expires_at),
                **by_thread[t.id],
            }
            for t in threads
        ],
        "memories": [_memory(m, positions) for m in memories],
        "audit": [_audit_entry(h) for h in history],
    }
