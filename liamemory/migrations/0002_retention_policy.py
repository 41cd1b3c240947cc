# The retention policies move from the governance app to the core: state only, the
# table (governance_retentionpolicy) and its constraints stay. A memory kind is plain
# text here (the core knows no app); the admin form offers the kinds.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("liamemory", "0001_staff_access_log"),
        ("governance", "0003_erasure_progress_receipt_lock"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="RetentionPolicy",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        (
                            "scope",
                            models.CharField(
                                choices=[
                                    ("thread", "Threads (with messages, summaries, checkpoints)"),
                                    ("incognito_thread", "Incognito threads"),
                                    ("run", "Runs (with trace events)"),
                                    ("memory", "Long-term memories"),
                                ],
                                max_length=32,
                            ),
                        ),
                        ("memory_kind", models.CharField(blank=True, max_length=32)),
                        ("lifetime_days", models.PositiveIntegerField(blank=True, null=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                    ],
                    options={
                        "db_table": "governance_retentionpolicy",
                        "verbose_name_plural": "retention policies",
                        "constraints": [
                            models.UniqueConstraint(fields=("scope", "memory_kind"), name="retention_scope_kind_uniq"),
                            models.CheckConstraint(
                                condition=models.Q(("memory_kind", ""), ("scope", "memory"), _connector="OR"),
                                name="retention_kind_only_for_memory",
                            ),
                        ],
                    },
                ),
            ],
        ),
    ]
