"""Full-text search columns on message text, for the fused history search.

Two generated tsvector columns (PostgreSQL 12+, so 15 and the embedded 18 alike):

- ``search_simple``: the words as written ('simple' config: lower-cased, no stemming,
  no stop words removed), so identifiers, numbers, names and any language match.
- ``search_stem``: the words stemmed by both the English and the Italian snowball
  stemmers (one vector holding both), so a question matches "shipped" to "shipping"
  and "spedizioni" to "spedizione" whatever language a message is in, with no guess
  of its language to get wrong. The search takes, per query word, the best of its
  variants, so a word found by both stemmers is not counted twice.

The model does not declare them: they are read only by ``conversations.search`` in SQL.
"""

from django.db import migrations

FORWARD = """
ALTER TABLE conversations_message
    ADD COLUMN search_simple tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED,
    ADD COLUMN search_stem tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text) || to_tsvector('italian'::regconfig, text)) STORED;
-- search_history / search_threads: candidate messages matching any query term.
CREATE INDEX message_search_simple_idx ON conversations_message USING gin (search_simple);
CREATE INDEX message_search_stem_idx ON conversations_message USING gin (search_stem);
"""

BACKWARD = """
DROP INDEX IF EXISTS message_search_stem_idx;
DROP INDEX IF EXISTS message_search_simple_idx;
ALTER TABLE conversations_message DROP COLUMN IF EXISTS search_stem, DROP COLUMN IF EXISTS search_simple;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0001_initial"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
