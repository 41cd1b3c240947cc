"""Logs carry ids, never content: database errors' values and search words stay out."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction

import config.celery  # noqa: F401 - connects the logging receiver the test looks for
from conversations.models import Message
from conversations.services import thread_create
from liamemory.logs import ContentFreeFormatter
from tests.server import free_port, runserver, served

SECRET = "my-secret-tool-argument-7781"


def _formatter() -> logging.Formatter:
    spec = settings.LOGGING["formatters"]["plain"]
    assert spec["()"] == "liamemory.logs.ContentFreeFormatter"
    return ContentFreeFormatter(spec["format"])


@pytest.mark.django_db
def test_a_database_error_in_a_traceback_shows_no_value(alice):
    thread = thread_create(owner=alice)
    try:
        with transaction.atomic():
            Message.objects.create(thread=thread, sequence=1, role="nope", text=SECRET, content=[{"x": SECRET}])
    except IntegrityError:
        record = logging.getLogger("usecases.turn.runner").makeRecord(
            "usecases.turn.runner",
            logging.ERROR,
            __file__,
            1,
            "run %s failed",
            ("r1",),
            exc_info=__import__("sys").exc_info(),
        )
    line = _formatter().format(record)
    assert "run r1 failed" in line and "IntegrityError" in line and "23514" in line
    assert "message_role_valid" in line  # the constraint's name says what went wrong
    assert SECRET not in line and "Failing row" not in line
    # The exception itself is left as it was for whoever handles it next.
    assert SECRET in str(record.exc_info[1])


def test_the_access_log_leaves_out_query_strings():
    record = logging.LogRecord(
        "django.server",
        logging.INFO,
        __file__,
        1,
        '"%s" %s %s',
        ("GET /search?q=divorce+lawyer HTTP/1.1", "200", "5"),
        None,
    )
    line = _formatter().format(record)
    assert "divorce" not in line and "GET /search?… HTTP/1.1" in line


def test_celery_workers_use_the_same_formatter():
    from celery.signals import setup_logging

    assert any("_django_logging" in repr(r) for r in setup_logging.receivers)


WORD = "divorcelawyer7781"


def _served_log(cmd: list[str], port: int, tmp_path) -> str:
    """Start a server, send it requests whose query strings (and referrer) hold a search word, return its output."""
    import httpx

    out = tmp_path / "server.log"
    with served(cmd, port, out) as base:
        headers = {"Referer": f"{base}/search?q={WORD}"}
        for path in (f"/search?q={WORD}", f"/api/threads?q={WORD}", f"/accounts/login/?next=/search%3Fq%3D{WORD}"):
            httpx.get(f"{base}{path}", headers=headers, timeout=10)
    return out.read_text()


@pytest.mark.smoke
@pytest.mark.django_db
def test_runserver_access_lines_hold_no_query_string(tmp_path):
    """``make run`` serves with runserver: Django's own ``django.server`` handler must not bypass the formatter."""

    port = free_port()
    output = _served_log(runserver(port), port, tmp_path)
    assert "GET /search?… HTTP/1.1" in output, output
    assert WORD not in output


@pytest.mark.smoke
@pytest.mark.django_db
def test_gunicorn_access_lines_hold_no_query_string(tmp_path):
    """The README's production server, with its access log switched on."""
    import sys
    from pathlib import Path

    port = free_port()
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    cmd = [gunicorn, "config.wsgi", "-k", "gthread", "-w", "1", "--threads", "2"]
    output = _served_log([*cmd, "-b", f"127.0.0.1:{port}", "--access-logfile", "-"], port, tmp_path)
    assert "GET /search" in output, output
    assert WORD not in output
