"""Stored full-text columns on memory content, and memory embeddings cascade in the database.

Recall used to compute ``to_tsvector`` for each of the user's memories on every query;
at a million rows that dominated its latency. As for messages
(conversations/0002_search_fts), two generated columns hold the vectors and GIN
indexes serve the match: ``search_simple`` (words as written) and ``search_stem``
(English and Italian stems in one vector). The model does not declare them: only
``conversations.search`` reads them, in SQL.

The erasure deletes memories with a raw DELETE (the ORM would write an audit row
holding the erased content): ``ON DELETE CASCADE`` takes their embeddings along.
"""

from django.db import migrations

from liamemory.migration_sql import fk_on_delete_sql

FTS_FORWARD = """
ALTER TABLE memories_memory
    ADD COLUMN search_simple tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, content)) STORED,
    ADD COLUMN search_stem tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, content) || to_tsvector('italian'::regconfig, content)) STORED;
CREATE INDEX memory_search_simple_idx ON memories_memory USING gin (search_simple);
CREATE INDEX memory_search_stem_idx ON memories_memory USING gin (search_stem);
"""

FTS_BACKWARD = """
DROP INDEX IF EXISTS memory_search_stem_idx;
DROP INDEX IF EXISTS memory_search_simple_idx;
ALTER TABLE memories_memory DROP COLUMN IF EXISTS search_stem, DROP COLUMN IF EXISTS search_simple;
"""

TABLE = "memories_memoryembedding"


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0004_memory_embedding"),
    ]

    operations = [
        migrations.RunSQL(FTS_FORWARD, FTS_BACKWARD),
        migrations.RunSQL(
            fk_on_delete_sql(table=TABLE, column="memory_id", target="memories_memory", action="CASCADE"),
            fk_on_delete_sql(table=TABLE, column="memory_id", target="memories_memory", action="NO ACTION"),
        ),
    ]
