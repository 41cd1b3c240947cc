"""The compliance-officer role as a group (data migration, reversible)."""

from django.db import migrations

COMPLIANCE_GROUP = "compliance_officer"


def create_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name=COMPLIANCE_GROUP)


def delete_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=COMPLIANCE_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_group, delete_group)]
