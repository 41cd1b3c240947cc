"""``Run.context_info`` is empty once its report (0009) and approvals (0011) have their own homes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("agents", "0011_approval_data")]

    operations = [
        migrations.RemoveField(model_name="run", name="context_info"),
    ]
