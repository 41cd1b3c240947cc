"""Tool calls and tool results lose their vectors: no search compares them.

``conversations.embedding_services`` no longer writes them, so a thread's vectors are the
rows its history search compares, and the scan reads them without looking up each
message's role and content (10,000 look-ups on a 10,000-message thread). Unapplied, the
vectors stay gone: the code of before filtered them out at every search anyway.
"""

from django.db import migrations

DELETE_TOOL_ROW_VECTORS = """
DELETE FROM conversations_messageembedding e
USING conversations_message m
WHERE m.id = e.message_id
  AND (m.role = 'tool' OR m.content @> '[{"type": "tool_use"}]'::jsonb)
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0008_thread_summary_claim")]

    operations = [migrations.RunSQL(DELETE_TOOL_ROW_VECTORS, reverse_sql=migrations.RunSQL.noop)]
