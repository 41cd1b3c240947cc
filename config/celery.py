"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

import logging.config
import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("liamemory")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The turn's tasks live with the turn (``usecases/turn/tasks.py``), below an installed app.
app.autodiscover_tasks(["usecases.turn"])


@setup_logging.connect
def _django_logging(**kwargs) -> None:
    """Workers log through Django's ``LOGGING`` (``liamemory/logs.py``: ids, never
    content) instead of the handlers Celery would install on the root logger."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
