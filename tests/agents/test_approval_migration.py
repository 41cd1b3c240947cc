"""Approvals move from the keys of Run.context_info to their own rows, and back."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from conversations.services import thread_create

BEFORE, AFTER = ("agents", "0010_approval"), ("agents", "0011_approval_data")


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_the_approval_keys_become_rows_and_come_back(alice, staff):
    threads = [thread_create(owner=alice) for _ in range(3)]
    apps = _migrate(BEFORE)
    Run = apps.get_model("agents", "Run")
    asked = {"tool": "request_approval", "reason": "12-month plan", "amount": 1200}
    decided = {
        "approval": asked,
        "checkpoint_id": "cp-1",
        "decision": {"approved": False, "by": staff.pk, "note": "too high", "at": "2026-12-01T10:00:00+00:00"},
    }
    runs = {
        "decided": Run.objects.create(
            thread_id=threads[0].pk, user_id=alice.pk, agent="a", status="completed", context_info=decided
        ),
        "waiting": Run.objects.create(
            thread_id=threads[1].pk,
            user_id=alice.pk,
            agent="a",
            status="interrupted",
            context_info={"approval": asked, "checkpoint_id": "cp-2"},
        ),
        "cancelled": Run.objects.create(
            thread_id=threads[2].pk,
            user_id=alice.pk,
            agent="a",
            status="cancelled",
            context_info={"approval": {**asked, "amount": 99.5}, "checkpoint_id": "cp-3"},
        ),
    }
    try:
        apps = _migrate(AFTER)
        Approval, Run = apps.get_model("agents", "Approval"), apps.get_model("agents", "Run")
        rows = {a.run_id: a for a in Approval.objects.all()}
        assert len(rows) == 3
        d = rows[runs["decided"].pk]
        assert (d.action, d.reason, d.amount, d.checkpoint_id) == ("request_approval", "12-month plan", 1200, "cp-1")
        assert (d.decision, d.decided_by_id, d.note) == ("rejected", staff.pk, "too high")
        assert d.decided_at.isoformat() == "2026-12-01T10:00:00+00:00"
        w = rows[runs["waiting"].pk]
        assert (w.decision, w.decided_at, w.checkpoint_id) == ("pending", None, "cp-2")
        c = rows[runs["cancelled"].pk]
        assert c.decision == "withdrawn" and c.decided_at is not None and c.amount == Decimal("99.50")
        assert all(r.context_info == {} for r in Run.objects.all())

        apps = _migrate(BEFORE)
        Run = apps.get_model("agents", "Run")
        assert Run.objects.get(pk=runs["decided"].pk).context_info == decided
        assert Run.objects.get(pk=runs["waiting"].pk).context_info == {"approval": asked, "checkpoint_id": "cp-2"}
        back = Run.objects.get(pk=runs["cancelled"].pk).context_info
        assert back["approval"]["amount"] == 99.5 and "decision" not in back
        assert not apps.get_model("agents", "Approval").objects.exists()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
