"""Django set up for a benchmark, before any module of the project is imported.

``bench/__init__.py`` imports this first, so ``python -m bench.<name>`` has Django ready
when the benchmark's own module-level imports (models, services) run. A benchmark runs
against the database ``DATABASE_URL`` names, with the ``base`` settings, and never calls
a provider: the API key variables are removed before Django starts. Where Django is
already set up (the test suite imports the benchmarks), nothing is changed.
"""

from __future__ import annotations

import logging
import os
import signal

import django
from django.apps import apps

from config.process_gc import freeze_startup_objects

if not apps.ready:
    # A time budget (bench/quiet_run.sh) stops a benchmark with SIGINT, also one started in
    # the background, where the shell ignores SIGINT: the KeyboardInterrupt runs the
    # finally blocks that stop the servers the benchmark started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    django.setup()
    # The product logs one INFO line per summary, run and purge: noise in a benchmark.
    logging.disable(logging.INFO)
    # The benchmark calls the product's code in its own process as a worker would, so its
    # start-up objects are left out of the collector as a worker's are (``config.process_gc``).
    freeze_startup_objects()
