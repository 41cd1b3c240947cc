"""Pytest plugin (``-p tests.embedded_database`` in pyproject): with no ``DATABASE_URL``,
the embedded PostgreSQL, started before pytest-django loads the settings.

Settings start nothing themselves; this is the test run's entry point, as ``manage.py``
is the commands'. Workers and servers the tests start inherit ``DATABASE_URL``.
"""

from liamemory.embedded_db import use_when_no_database_url

use_when_no_database_url()
