# The staff-access audit now belongs to the core (liamemory.StaffAccessLog): state
# only, the table stays.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0005_memory_search_fts_cascade"),
        ("liamemory", "0001_staff_access_log"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="StaffAccessLog")]),
    ]
