"""Full-text search columns on message text, for the fused history search.

Two generated tsvector columns (PostgreSQL 12+, so 15 and the embedded 18 alike):

- ``search_simple``: the words as written ('simple' config: lower-cased, no stemming,
  no stop words removed), so identifiers, numbers, names and any language match.
- ``search_stem``: the words stemmed in the message's own language. The language is a
  cheap guess in SQL (Italian function words present and no English ones); a wrong
  guess only weakens this one signal for that message.

The model does not declare them: they are read only by ``memories.retrieval`` in SQL.
"""

from django.db import migrations

STEM_CONFIG = r"""
CASE WHEN text ~* '\m(il|gli|della|delle|sono|che|perché|anche|questo|questa|non|una|ho|hai)\M'
      AND text !~* '\m(the|and|is|are|you|what|with|this|that|have)\M'
     THEN 'italian'::regconfig ELSE 'english'::regconfig END
"""

FORWARD = f"""
ALTER TABLE conversations_message
    ADD COLUMN search_simple tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED,
    ADD COLUMN search_stem tsvector GENERATED ALWAYS AS (to_tsvector({STEM_CONFIG}, text)) STORED;
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
