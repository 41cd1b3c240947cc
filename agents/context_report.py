"""The context report: what went into a run's prompt, as a typed, versioned record.

The turn builds it (``usecases/turn/context.py``), the run keeps it in its own column
(``Run.context_report``), and every reader — the admin's prompt panel, the trace, the
export, the chat page's quoted excerpts — reads it back through ``context_report_read``,
by attribute. Stored JSON carries its ``version``; a row written before the record had
one (the keys of the old ``Run.context_info``) is version 1 and reads with its missing
fields at their defaults, so old runs never need rewriting to be shown.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# 1: the keys of ``Run.context_info`` before the record (no ``version`` key, some keys
#    absent on older rows). 2: this record, every field written.
CONTEXT_REPORT_VERSION = 2


@dataclass(frozen=True)
class ExcerptRef:
    """An older message the context quoted; ``thread_id`` is set when it came from another conversation."""

    message_id: int
    sequence: int
    thread_id: str | None = None


@dataclass(frozen=True)
class ContextReport:
    summary_version: int | None = None
    # The summary stood for messages 1..summary_covers_through.
    summary_covers_through: int = 0
    memory_ids: tuple[int, ...] = ()
    # Which older messages were quoted, and what they cost (estimated, in the total).
    excerpts: tuple[ExcerptRef, ...] = ()
    excerpt_tokens: int = 0
    # The recent messages sent whole: their sequence bounds, how many went, how many
    # oldest turns were dropped to fit the budget.
    window_first_sequence: int | None = None
    window_last_sequence: int | None = None
    window_messages: int | None = None
    dropped_for_budget: int = 0
    # Older than the window yet in no summary: still reachable by search_history.
    uncovered_messages: int = 0
    # Token estimates: what was sent, its cacheable prefix, what resending the whole
    # history would have cost, and the budget. None on old rows that did not record them.
    estimated_tokens: int | None = None
    prefix_tokens: int | None = None
    full_resend_tokens: int | None = None
    budget: int | None = None
    # The turn's long-term memory switch (None: not recorded, or built outside a turn).
    memory_allowed: bool | None = None
    version: int = field(default=CONTEXT_REPORT_VERSION)

    def as_json(self) -> dict[str, Any]:
        """The stored form (``Run.context_report``, the trace, the export), always the current version."""
        data = asdict(self)
        data["version"] = CONTEXT_REPORT_VERSION
        data["memory_ids"] = list(self.memory_ids)
        data["excerpts"] = [_excerpt_json(e) for e in self.excerpts]
        return data


_FIELDS = frozenset(f.name for f in fields(ContextReport))


def _excerpt_json(excerpt: ExcerptRef) -> dict[str, Any]:
    data: dict[str, Any] = {"message_id": excerpt.message_id, "sequence": excerpt.sequence}
    if excerpt.thread_id is not None:
        data["thread_id"] = excerpt.thread_id
    return data


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _excerpt(value: Any) -> ExcerptRef | None:
    if not isinstance(value, dict):
        return None
    message_id, sequence = _int(value.get("message_id")), _int(value.get("sequence"))
    if message_id is None or sequence is None:
        return None
    thread_id = value.get("thread_id")
    return ExcerptRef(message_id=message_id, sequence=sequence, thread_id=str(thread_id) if thread_id else None)


def context_report_read(data: Any) -> ContextReport | None:
    """The report stored as ``data`` (any version), or None when nothing was recorded.

    Versions 1 and 2 share their keys, so one reading serves both: a key missing on an
    old row keeps its default, and a value of the wrong type (an imported or hand-edited
    row) is dropped rather than shown, so readers never guard types themselves.
    """
    if not isinstance(data, dict) or not data:
        return None
    values: dict[str, Any] = {}
    for name in _FIELDS - {"version", "memory_ids", "excerpts", "summary_version", "memory_allowed"}:
        number = _int(data.get(name))
        if number is not None:
            values[name] = number
    values["summary_version"] = _int(data.get("summary_version"))
    if isinstance(data.get("memory_allowed"), bool):
        values["memory_allowed"] = data["memory_allowed"]
    values["memory_ids"] = tuple(i for i in _list(data.get("memory_ids")) if _int(i) is not None)
    excerpts = (_excerpt(e) for e in _list(data.get("excerpts")))
    values["excerpts"] = tuple(e for e in excerpts if e is not None)
    values["version"] = _int(data.get("version")) or 1
    return ContextReport(**values)
