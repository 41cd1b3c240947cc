"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "liamemory.settings.base")

app = Celery("liamemory")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
