"""Create LangGraph's checkpointer tables once, at migrate time, never per request.

Non-atomic: the checkpointer's own setup builds indexes CONCURRENTLY, which cannot run
inside a transaction. It uses its own autocommit connection to the same database.
"""

from django.db import migrations


def create(apps, schema_editor):
    from agents.checkpointer import setup_tables

    setup_tables(schema_editor.connection.alias)


def drop(apps, schema_editor):
    from agents.checkpointer import drop_tables

    drop_tables(schema_editor.connection.alias)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("agents", "0002_initial")]

    operations = [migrations.RunPython(create, drop)]
