# The retention policies now belong to the core (liamemory.RetentionPolicy): state
# only, the table stays.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0003_erasure_progress_receipt_lock"),
        ("liamemory", "0002_retention_policy"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="RetentionPolicy")]),
    ]
