"""The messages' thread foreign key loses its own index: (thread, sequence) serves every look-up by thread.

Only the index is dropped (and made again going back): Django's AlterField would also drop and
re-add the foreign key constraint, checking every message again under a lock.
"""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "conversations_message_thread_id_2e6e7032"


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0010_message_embedding_int8"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=f'DROP INDEX IF EXISTS "{INDEX}"',
                    reverse_sql=f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "conversations_message" ("thread_id")',
                ),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="message",
                    name="thread",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="messages",
                        to="conversations.thread",
                    ),
                ),
            ],
        ),
    ]
