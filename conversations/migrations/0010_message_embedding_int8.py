"""Message vectors get an int8 copy, the exact scan's first pass (``conversations.vector_search``).

The column is added empty, then every stored vector's copy is made from its float16 bytes in
batches of 2,000 rows, each committed on its own (the migration is not atomic): a long table
is not rewritten in one transaction, and a fill interrupted resumes where it stopped when the
migration runs again. A row left without a copy is still searched (compared exactly).
Reversed, the column is dropped.
"""

from django.db import migrations, models

from conversations.embedding_services import message_int8_copies_fill


def fill(apps, schema_editor):
    message_int8_copies_fill()


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("conversations", "0009_no_vectors_for_tool_rows")]

    operations = [
        migrations.AddField(
            model_name="messageembedding",
            name="vector_int8",
            field=models.BinaryField(null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
