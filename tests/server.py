"""The product's web server as a subprocess (runserver, as ``make run``, or gunicorn),
against the test database, its output kept: for tests of what its log holds."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from liamemory.management.commands.runstack import stack_commands
from tests.worker import REPO, database_url_for_tests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def runserver(port: int) -> list[str]:
    """``make run``'s web server: the command ``runstack`` starts, taken from it."""
    return stack_commands(f"127.0.0.1:{port}")["web"]


@contextmanager
def served(cmd: list[str], port: int, log_path: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``cmd`` (listening on ``port``), wait until it answers, yield its base URL;
    stop it on the way out. Its output (stdout and stderr) goes to ``log_path``."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        **(extra_env or {}),
    }
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    httpx.get(f"{base}/accounts/login/", timeout=2)
                    break
                except httpx.TransportError:
                    assert proc.poll() is None, log_path.read_text()
                    time.sleep(0.3)
            yield base
            time.sleep(1)  # the last access lines
        finally:
            proc.terminate()
            proc.wait(15)
