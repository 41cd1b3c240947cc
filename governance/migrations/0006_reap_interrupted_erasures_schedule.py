"""The beat schedule: find interrupted erasures every minute. Data only; reversible."""

from django.db import migrations
from django.utils import timezone

NAME, TASK = "Reap interrupted erasures", "governance.reap_stale_erasures"


def forward(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    interval, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.get_or_create(name=NAME, defaults={"task": TASK, "interval": interval, "enabled": True})
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


def backward(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTask.objects.filter(name=NAME).delete()
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0005_erasure_verification_kept"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
