"""Approvals move from the keys of ``Run.context_info`` to ``Approval`` rows.

``approval`` (what the model asked: tool, reason, amount), ``checkpoint_id`` and the staff
``decision`` (approved, by, note, at) become one row per run that asked; a run that asked
and was neither decided nor still waiting (cancelled, erased) gets a withdrawn one. The
keys are removed from ``context_info``. Backwards, each run's latest approval writes
them back.
"""

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import migrations
from django.utils import timezone
from django.utils.dateparse import parse_datetime

APPROVAL_KEYS = ("approval", "decision", "checkpoint_id")


def _amount(value):
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return Decimal(str(value)).quantize(Decimal("0.01"))
    except InvalidOperation:
        return None


def _when(value, fallback):
    parsed = parse_datetime(value) if isinstance(value, str) else None
    return parsed or fallback


def forwards(apps, schema_editor):
    Run = apps.get_model("agents", "Run")
    Approval = apps.get_model("agents", "Approval")
    RunTransition = apps.get_model("agents", "RunTransition")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    runs = list(Run.objects.filter(context_info__has_key="approval").order_by("pk"))
    if not runs:
        return
    asked_at = dict(
        RunTransition.objects.filter(run__in=runs, reason="approval_requested")
        .order_by("run_id", "id")
        .values_list("run_id", "at")
    )
    deciders = {d.get("by") for r in runs if isinstance(d := r.context_info.get("decision"), dict)}
    existing = set(User.objects.filter(pk__in=[i for i in deciders if isinstance(i, int)]).values_list("pk", flat=True))
    rows = []
    for run in runs:
        info = dict(run.context_info)
        asked = info.get("approval") if isinstance(info.get("approval"), dict) else {}
        decision = info.get("decision") if isinstance(info.get("decision"), dict) else None
        requested_at = asked_at.get(run.pk) or run.started_at or run.created_at
        row = Approval(
            run=run,
            action=str(asked.get("tool") or "request_approval")[:64],
            reason=str(asked.get("reason") or ""),
            amount=_amount(asked.get("amount")),
            checkpoint_id=str(info.get("checkpoint_id") or "")[:64],
            requested_at=requested_at,
        )
        if decision is not None:
            row.decision = "approved" if decision.get("approved") else "rejected"
            row.decided_by_id = decision.get("by") if decision.get("by") in existing else None
            row.decided_at = _when(decision.get("at"), run.started_at or requested_at)
            row.note = str(decision.get("note") or "")
        elif run.status != "interrupted":
            row.decision, row.decided_at = "withdrawn", run.finished_at or timezone.now()
        rows.append(row)
        run.context_info = {k: v for k, v in info.items() if k not in APPROVAL_KEYS}
    Approval.objects.bulk_create(rows, batch_size=1000)
    Run.objects.bulk_update(runs, ["context_info"], batch_size=1000)


def _number(amount):
    if amount is None:
        return None
    return int(amount) if amount == amount.to_integral_value() else float(amount)


def backwards(apps, schema_editor):
    Run = apps.get_model("agents", "Run")
    Approval = apps.get_model("agents", "Approval")
    latest = {}
    for approval in Approval.objects.order_by("run_id", "requested_at", "id"):
        latest[approval.run_id] = approval
    runs = list(Run.objects.filter(pk__in=latest).order_by("pk"))
    for run in runs:
        approval = latest[run.pk]
        info = dict(run.context_info or {})
        info["approval"] = {"tool": approval.action, "reason": approval.reason, "amount": _number(approval.amount)}
        info["checkpoint_id"] = approval.checkpoint_id
        if approval.decision in ("approved", "rejected"):
            info["decision"] = {
                "approved": approval.decision == "approved",
                "by": approval.decided_by_id,
                "note": approval.note,
                "at": approval.decided_at.isoformat() if approval.decided_at else None,
            }
        run.context_info = info
    Run.objects.bulk_update(runs, ["context_info"], batch_size=1000)
    Approval.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("agents", "0010_approval")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
