"""Browser fixtures: Debian's Chromium driven by Playwright, a worker for the live server.

Nothing is downloaded: the tests use /usr/bin/chromium and are skipped, saying so,
where it is missing. Every request to a host other than the live server's is
aborted and counted, so a test can assert that a page fetched nothing from outside.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.test import Client, override_settings

from config.celery import app
from tests.worker import WorkerProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
# The browser tests' runs go to a queue of their own, taken by a worker that can also
# reach the fake Messages API; the session's offline worker never sees them.
BROWSER_QUEUE = "liamemory-browser"
# A reply waits on the worker (the model, embeddings, a summary): generous, since CI
# machines are shared and a slow first turn is not what these tests are about.
REPLY_TIMEOUT_MS = 60_000
SCREENSHOTS = os.environ.get("LIAMEMORY_SCREENSHOTS", "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Playwright's sync API keeps an event loop on this thread; the ORM calls a browser
    test makes around it (and the database flush after it) are ordinary synchronous ones,
    which Django would otherwise refuse. Set for browser tests only, never left behind."""
    if item.get_closest_marker("browser") is None:
        yield
        return
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        yield
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """Module-scoped: Playwright's loop must be gone before any later test touches the ORM."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests skipped: Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    # The reply comes from another process; leave it time on a busy 2-core machine.
    expect.set_options(timeout=REPLY_TIMEOUT_MS)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class OutsideRequests:
    """Aborts and records every request that leaves the machine."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def route(self, route) -> None:
        host = urlparse(route.request.url).hostname or ""
        if host in LOCAL_HOSTS:
            route.continue_()
        else:
            self.urls.append(route.request.url)
            route.abort()


@pytest.fixture
def outside() -> OutsideRequests:
    return OutsideRequests()


@pytest.fixture
def new_page(chromium, live_server, outside):
    """Make a page in a fresh browser context (its own cookies): ``new_page(width=..., height=..., javascript=...)``."""
    contexts = []

    def make(width: int = 1100, height: int = 800, javascript: bool = True):
        context = chromium.new_context(
            viewport={"width": width, "height": height}, base_url=live_server.url, java_script_enabled=javascript
        )
        context.set_default_timeout(REPLY_TIMEOUT_MS)
        context.route("**/*", outside.route)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        return page

    console: list[str] = []
    yield make
    for context in contexts:
        context.close()
    # The pages' own script and styles must never trip the Content-Security-Policy.
    assert not [m for m in console if "Content Security Policy" in m], console


@pytest.fixture(scope="session")
def browser_worker(django_db_setup, django_db_blocker, fake_anthropic_server, tmp_path_factory):
    """A real worker on the browser queue whose model, when a run asks for Claude, is the fake server."""

    env = {"LIAMEMORY_FAKE_ANTHROPIC_URL": fake_anthropic_server.url, "MEMORY_SUMMARY_ENABLED": "false"}
    with django_db_blocker.unblock(), override_settings(CELERY_TASK_DEFAULT_QUEUE=BROWSER_QUEUE):
        app.control.purge()
        proc = WorkerProcess(tmp_path_factory.mktemp("browser-worker") / "worker.log", extra_env=env).start()
    yield proc
    proc.stop()


@pytest.fixture
def worker_for_live_server(transactional_db, browser_worker, settings):
    """Runs the live server enqueues go to the browser worker; offline model unless a test sets a key."""

    if browser_worker.proc.poll() is not None:
        pytest.fail(f"the browser worker died:\n{browser_worker.log()[-4000:]}")
    settings.ANTHROPIC_API_KEY = ""
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = BROWSER_QUEUE
    yield browser_worker
    app.conf.task_default_queue = previous
    browser_worker.wait_idle()


@pytest.fixture
def as_alice(client, alice) -> Client:
    client.force_login(alice)
    return client


@pytest.fixture
def as_bob(bob) -> Client:
    c = Client()
    c.force_login(bob)
    return c


def screenshot(page, name: str) -> None:
    """Written only when LIAMEMORY_SCREENSHOTS names a folder (docs/screenshots for the README)."""
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=False)
