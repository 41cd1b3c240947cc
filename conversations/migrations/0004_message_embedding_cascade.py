"""Message embeddings go with their message or thread in the database itself.

The purge and the erasure delete messages and threads with plain DELETEs (Django's
collector would load every row); with ``ON DELETE CASCADE`` the vectors go too.
"""

from django.db import migrations

from liamemory.migration_sql import fk_on_delete_sql

TABLE = "conversations_messageembedding"
FKS = (("message_id", "conversations_message"), ("thread_id", "conversations_thread"))


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0003_message_embedding"),
    ]

    operations = [
        migrations.RunSQL(
            "".join(fk_on_delete_sql(table=TABLE, column=c, target=t, action="CASCADE") for c, t in FKS),
            "".join(fk_on_delete_sql(table=TABLE, column=c, target=t, action="NO ACTION") for c, t in FKS),
        )
    ]
