#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

from liamemory.embedded_db import use_when_no_database_url


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    from django.core.management import execute_from_command_line

    # No DATABASE_URL: the embedded server, started here if needed (settings start nothing).
    use_when_no_database_url()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
