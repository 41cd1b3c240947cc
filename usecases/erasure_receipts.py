"""Erasure receipts: what was erased, when, at whose request, and a hash over it all.

A receipt holds no personal data: counts, timestamps, pseudonymous references
(HMAC-SHA256 of user ids with SECRET_KEY) and a statement of what lies outside the
database. Its sha256 is taken over the canonical JSON of the body.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from django.conf import settings

from governance.models import ErasureReceipt, ErasureRequest
from usecases.erasure_steps import erasure_counts
from usecases.personal_data import describe

RECEIPT_FORMAT = "liamemory.erasure-receipt"
RECEIPT_VERSION = 3  # 3: verification.statistics_not_rebuilt

# What lies outside the database. Stated in every receipt so the person knows.
OUTSIDE_DATABASE = [
    {
        "store": "database backups",
        "holds": "copies taken before the erasure",
        "lingers": "until the operator's backup rotation removes them; restoring one requires re-running erasures",
    },
    {
        "store": "deleted row versions",
        "holds": "the deleted rows' bytes in the database files, unreadable through SQL",
        "lingers": "until autovacuum reuses the space (minutes to hours on a busy table)",
    },
    {"store": "application logs", "holds": "ids, counts and timings only, never content", "lingers": "log rotation"},
    {
        "store": "task broker",
        "holds": "task arguments are ids only (request, run, thread ids)",
        "lingers": "until the task is consumed",
    },
    {"store": "task results", "holds": "nothing: no result backend is configured", "lingers": "n/a"},
    {
        "store": "caches",
        "holds": "nothing shared: no cache is configured (per-process memory only, no user content)",
        "lingers": "n/a",
    },
]


_STATISTICS_HOLD = "samples of column values the query planner keeps (pg_stats), taken before the erasure"


def statistics_statement(not_rebuilt: list[str]) -> dict[str, str]:
    """What the receipt says of the planner's statistics: rebuilt, or, when the database
    role may not analyse some tables (it owns neither them nor the database and is no
    superuser; PostgreSQL then skips them), which ones keep their samples."""
    if not not_rebuilt:
        return {
            "store": "database statistics",
            "holds": _STATISTICS_HOLD,
            "lingers": "refreshed (ANALYZE) right after the erasure; a table it emptied has its statistics removed",
        }
    return {
        "store": "database statistics",
        "holds": f"{_STATISTICS_HOLD}; NOT refreshed for {len(not_rebuilt)} tables: {', '.join(not_rebuilt)}",
        "lingers": (
            "the database role the service runs as does not own those tables, so it may not refresh them: "
            "they may hold samples of your data until their owner runs ANALYZE (or autovacuum does, after "
            "enough changes)"
        ),
    }


def subject_ref_for(user_id: int) -> str:
    """A stable pseudonym of a user id: HMAC-SHA256 with SECRET_KEY (not reversible without it)."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"liamemory-user:{user_id}".encode(), hashlib.sha256).hexdigest()


def receipt_build(
    *,
    request: ErasureRequest,
    counts: dict[str, int],
    verification: dict[str, Any],
    finished_at,
    statistics_not_rebuilt: list[str] | None = None,
) -> dict[str, Any]:
    """The receipt body: counts, times, pseudonymous references; no personal data.
    ``statistics_not_rebuilt``: the tables whose planner statistics the erasure may not
    rebuild; the receipt names them and does not call the erasure clean."""
    not_rebuilt = sorted(statistics_not_rebuilt or [])
    requester: dict[str, str | None]
    if request.self_service:
        requester = {"role": "self_service", "ref": request.subject_ref}
    else:
        requester = {
            "role": "compliance_officer",
            "ref": subject_ref_for(request.requested_by_id) if request.requested_by_id else None,
        }
    return {
        "format": RECEIPT_FORMAT,
        "version": RECEIPT_VERSION,
        "request_id": str(request.pk),
        # The officer's case reference (checked to hold no name); the reason is wiped.
        "reference": request.ticket,
        "subject_ref": request.subject_ref,
        "subject_ref_method": "HMAC-SHA256(SECRET_KEY, user id)",
        "requested_by": requester,
        "account": "deleted" if request.delete_account else "kept_empty",
        "requested_at": request.created_at.isoformat(),
        "started_at": request.started_at.isoformat() if request.started_at else None,
        "finished_at": finished_at.isoformat(),
        "counts": {store: int(counts.get(store, 0)) for store in erasure_counts()},
        "verification": {**verification, "statistics_not_rebuilt": not_rebuilt},
        "outside_database": [OUTSIDE_DATABASE[0], statistics_statement(not_rebuilt), *OUTSIDE_DATABASE[1:]],
    }


def receipt_canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def receipt_hash(body: dict[str, Any]) -> str:
    """sha256 over the canonical JSON of the body (sorted keys, no spaces, ASCII)."""
    return hashlib.sha256(receipt_canonical(body)).hexdigest()


def receipt_is_intact(receipt: ErasureReceipt) -> bool:
    return hmac.compare_digest(receipt_hash(receipt.body), receipt.sha256)


# Receipt counts that are not a store of their own: what the erasure did to other rows.
_PLAIN_WORDS = {
    "memory_history_actor_cleared": "your name removed from the history of other people's memories you changed",
    "references_cleared": "your name removed from requests and holds you filed about other people",
    "account": "your account",
}


def receipt_readable(body: dict[str, Any]) -> dict[str, Any]:
    """The receipt in plain words for the person, with the store names for the officer."""
    rows = []
    for store, count in body.get("counts", {}).items():
        described = describe(store)
        rows.append(
            {
                "store": store,
                "where": described["where"],
                "plain": _PLAIN_WORDS.get(store) or described["description"] or store.replace("_", " "),
                "count": count,
            }
        )
    account = body.get("account")
    return {
        "account": "Your account was deleted." if account == "deleted" else "Your account was kept, empty.",
        "erased": [row for row in rows if row["count"]],
        "untouched": [row for row in rows if not row["count"]],
        # Clean only when no table or statistic was left holding anything of the person.
        "clean": bool(body.get("verification", {}).get("clean"))
        and not body.get("verification", {}).get("statistics_not_rebuilt"),
        "statistics_not_rebuilt": body.get("verification", {}).get("statistics_not_rebuilt", []),
        "outside_database": body.get("outside_database", []),
    }
