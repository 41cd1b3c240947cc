"""Pytest plugin (``-p tests.embedded_database`` in pyproject): with no ``DATABASE_URL``,
the embedded PostgreSQL, started before pytest-django loads the settings.

Settings start nothing themselves; this is the test run's entry point, as ``manage.py``
is the commands'. Workers and servers the tests start inherit ``DATABASE_URL``.
"""

import os

_settings_chosen = "DJANGO_SETTINGS_MODULE" in os.environ

from liamemory.embedded_db import use_when_no_database_url  # noqa: E402

# Importing liamemory loads its Celery app, which defaults DJANGO_SETTINGS_MODULE to the
# base settings; pytest-django must still pick the test settings from pyproject.
if not _settings_chosen:
    os.environ.pop("DJANGO_SETTINGS_MODULE", None)

use_when_no_database_url()
