"""Project wiring: settings, the URL table, the Celery app, ASGI/WSGI and ``/healthz``.

It sits above every app and names them all; no app imports it.
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
