"""The context report's keys move from ``Run.context_info`` to ``Run.context_report``.

Copied as they were (no ``version`` key: ``agents.context_report`` reads them as version 1);
``context_info`` keeps only what belongs to an approval. Backwards, the keys go back.
"""

from django.db import migrations

# What the report held in context_info; the rest (approval, decision, checkpoint_id) stays.
REPORT_KEYS = (
    "summary_version",
    "summary_covers_through",
    "memory_ids",
    "excerpts",
    "excerpt_tokens",
    "window_first_sequence",
    "window_last_sequence",
    "window_messages",
    "dropped_for_budget",
    "uncovered_messages",
    "estimated_tokens",
    "prefix_tokens",
    "full_resend_tokens",
    "budget",
    "memory_allowed",
)
BATCH = 2000


def forwards(apps, schema_editor):
    Run = apps.get_model("agents", "Run")
    runs = Run.objects.exclude(context_info={}).only("id", "context_info").order_by("pk")
    changed = []
    for run in runs.iterator(chunk_size=BATCH):
        info = dict(run.context_info or {})
        report = {k: info.pop(k) for k in REPORT_KEYS if k in info}
        if not report:
            continue
        run.context_report, run.context_info = report, info
        changed.append(run)
        if len(changed) >= BATCH:
            Run.objects.bulk_update(changed, ["context_report", "context_info"])
            changed = []
    Run.objects.bulk_update(changed, ["context_report", "context_info"])


def backwards(apps, schema_editor):
    Run = apps.get_model("agents", "Run")
    runs = Run.objects.filter(context_report__isnull=False).only("id", "context_info", "context_report")
    changed = []
    for run in runs.order_by("pk").iterator(chunk_size=BATCH):
        report = {k: v for k, v in (run.context_report or {}).items() if k != "version"}
        run.context_info, run.context_report = {**(run.context_info or {}), **report}, None
        changed.append(run)
        if len(changed) >= BATCH:
            Run.objects.bulk_update(changed, ["context_report", "context_info"])
            changed = []
    Run.objects.bulk_update(changed, ["context_report", "context_info"])


class Migration(migrations.Migration):
    dependencies = [("agents", "0008_run_context_report")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
