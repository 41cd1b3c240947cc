"""Default retention policies and the beat schedule (purge hourly, reaper every minute).

Data only; reversible. The schedule lives in django-celery-beat's tables, so it is
visible and editable in admin and every beat instance reads the same one.
"""

from django.db import migrations
from django.utils import timezone

DEFAULT_POLICIES = [
    ("thread", 30),
    ("incognito_thread", 1),
    ("run", 30),
    ("memory", None),  # long-term memories: kept until forgotten unless a kind has its own row
]
SCHEDULE = [
    ("Purge expired data", "governance.purge_expired", 1, "hours"),
    ("Reap stale runs", "agents.reap_stale_runs", 1, "minutes"),
]


def forward(apps, schema_editor):
    RetentionPolicy = apps.get_model("governance", "RetentionPolicy")
    for scope, days in DEFAULT_POLICIES:
        RetentionPolicy.objects.get_or_create(scope=scope, memory_kind="", defaults={"lifetime_days": days})

    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    for name, task, every, period in SCHEDULE:
        interval, _ = IntervalSchedule.objects.get_or_create(every=every, period=period)
        PeriodicTask.objects.get_or_create(name=name, defaults={"task": task, "interval": interval, "enabled": True})
    # Tell a running beat that the schedule changed (what the real model's signals do).
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


def backward(apps, schema_editor):
    RetentionPolicy = apps.get_model("governance", "RetentionPolicy")
    RetentionPolicy.objects.filter(memory_kind="", scope__in=[s for s, _ in DEFAULT_POLICIES]).delete()
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTask.objects.filter(name__in=[name for name, *_ in SCHEDULE]).delete()
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
