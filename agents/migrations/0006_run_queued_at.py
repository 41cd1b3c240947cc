"""Runs: when each entered the queue and whether the reaper sent it again (runs left queued are found)."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents', '0005_run_partial_reply'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='queued_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='run',
            name='redelivered',
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name='run',
            name='error_code',
            field=models.CharField(blank=True, choices=[('model_unavailable', 'Model unavailable'), ('rate_limited', 'Rate limited'), ('timeout', 'Timed out'), ('too_long', 'Too long for the model'), ('bad_request', 'Rejected by the model API'), ('step_limit', 'Too many tool steps'), ('rejected', 'Action rejected by staff'), ('worker_lost', 'Worker lost too many times'), ('never_started', 'Never picked up by a worker'), ('internal', 'Internal error')], max_length=32),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('status', 'queued')), fields=['queued_at'], name='run_queued_at_idx'),
        ),
    ]
