"""``/healthz``: is the database reachable, is the broker reachable."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app


def _check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception as exc:  # any failure means "down"; the type is the message
        return type(exc).__name__


def _check_broker() -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return None
    except Exception as exc:
        return type(exc).__name__


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check_database(), "broker": _check_broker()}
    ok = all(v is None for v in checks.values())
    body = {"status": "ok" if ok else "error", "checks": {k: v or "ok" for k, v in checks.items()}}
    return JsonResponse(body, status=200 if ok else 503)
