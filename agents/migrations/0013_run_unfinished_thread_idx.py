"""A thread's unfinished runs by index: the turn's POST asks for them every time (``usecases.turns``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("agents", "0012_remove_run_context_info")]

    operations = [
        migrations.AddIndex(
            model_name="run",
            index=models.Index(
                condition=models.Q(("status__in", ["queued", "running", "interrupted"])),
                fields=["thread"],
                name="run_unfinished_thread_idx",
            ),
        ),
    ]
