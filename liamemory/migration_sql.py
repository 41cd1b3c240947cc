"""SQL that migrations share.

``db_on_delete`` (a foreign key that cascades in the database itself) arrives after
Django 5.2, so migrations that need one replace Django's constraint with this SQL.
"""

from __future__ import annotations


def fk_on_delete_sql(*, table: str, column: str, target: str, action: str) -> str:
    """Re-create the foreign key ``table.column -> target(id)`` with ``ON DELETE action``.

    The constraint keeps Django's name and its ``DEFERRABLE INITIALLY DEFERRED``
    (PostgreSQL runs a referential action at once even on a deferrable constraint).
    """
    return f"""
DO $$
DECLARE name text;
BEGIN
    SELECT c.conname INTO STRICT name
    FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
    WHERE c.conrelid = '{table}'::regclass AND c.contype = 'f' AND a.attname = '{column}';
    EXECUTE format('ALTER TABLE {table} DROP CONSTRAINT %I', name);
    EXECUTE format(
        'ALTER TABLE {table} ADD CONSTRAINT %I FOREIGN KEY ({column}) REFERENCES {target} (id) '
        'ON DELETE {action} DEFERRABLE INITIALLY DEFERRED',
        name
    );
END $$;
"""
