"""Erasure progress counts, one open request per person, and immutable receipts.

The trigger is the last line of defence for receipts: raw SQL, a bulk path the ORM
does not guard, or a future manager cannot change or delete one. It is depended on
0001 only; another branch adds 0002 and the merge migration joins them.
"""

from django.conf import settings
from django.db import migrations, models

RECEIPT_LOCK_SQL = """
CREATE FUNCTION governance_receipt_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'erasure receipts are immutable (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER governance_receipt_immutable
    BEFORE UPDATE OR DELETE ON governance_erasurereceipt
    FOR EACH ROW EXECUTE FUNCTION governance_receipt_immutable();
"""

RECEIPT_UNLOCK_SQL = """
DROP TRIGGER IF EXISTS governance_receipt_immutable ON governance_erasurereceipt;
DROP FUNCTION IF EXISTS governance_receipt_immutable();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('governance', '0002_default_policies_and_schedule'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunSQL(
            sql=RECEIPT_LOCK_SQL,
            reverse_sql=RECEIPT_UNLOCK_SQL,
        ),
        migrations.AlterModelOptions(
            name='erasurereceipt',
            options={'base_manager_name': 'objects'},
        ),
        migrations.AddField(
            model_name='erasurerequest',
            name='executed_counts',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddConstraint(
            model_name='erasurerequest',
            constraint=models.UniqueConstraint(condition=models.Q(('status__in', ['pending', 'held', 'running'])), fields=('subject',), name='erasure_one_open_per_subject'),
        ),
    ]
