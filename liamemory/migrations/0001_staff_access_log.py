# The staff-access audit moves from the memories app to the core: state only, the
# table (memories_staffaccesslog) and its index and constraint stay as they are.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("memories", "0005_memory_search_fts_cascade"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="StaffAccessLog",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("viewer_username", models.CharField(max_length=150)),
                        (
                            "what",
                            models.CharField(
                                choices=[
                                    ("person", "Per-person page"),
                                    ("memory", "Memory"),
                                    ("thread", "Thread"),
                                    ("message", "Message"),
                                    ("summary", "Summary"),
                                    ("run", "Run"),
                                    ("trace", "Trace event"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("object_ref", models.CharField(blank=True, max_length=64)),
                        ("viewed_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "subject",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="staff_views",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "viewer",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="staff_views_made",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memories_staffaccesslog",
                        "indexes": [models.Index(fields=["subject", "-viewed_at"], name="staff_access_subject_idx")],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("what__in", ["person", "memory", "thread", "message", "summary", "run", "trace"])
                                ),
                                name="staff_access_what_valid",
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
