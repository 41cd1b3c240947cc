"""Bad input answers 4xx in the one error format, with a clear message, and changes nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from conversations.models import Thread
from liamemory.api import json_server_error
from memories.models import Memory
from tests.factories import MemoryFactory, ThreadFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"message", "extra"} and body["message"]
    return body


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/threads"),
        ("post", "/api/threads/{thread}/messages"),
        ("patch", "/api/threads/{thread}"),
        ("patch", "/api/me/memories/{memory}"),
        ("put", "/api/me/memory-settings"),
    ],
)
def test_a_body_over_the_limit_answers_413_and_stores_nothing(browser, alice, settings, method, path):
    thread, memory = ThreadFactory(owner=alice, title="kept"), MemoryFactory(user=alice, content="kept")
    url = path.format(thread=thread.pk, memory=memory.pk)
    big = json.dumps({"title": "x" * (1024 * 1024), "content": "x" * (1024 * 1024)})
    body = error(getattr(browser, method)(url, big, content_type="application/json"), 413)
    assert body["extra"]["limit"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert Thread.objects.filter(owner=alice).count() == 1 and Thread.objects.get().title == "kept"
    assert Memory.objects.get().content == "kept"


def test_a_large_form_body_answers_413_too(browser):
    error(
        browser.post("/api/threads", "title=" + "x" * (1024 * 1024), content_type="application/x-www-form-urlencoded"),
        413,
    )
    assert not Thread.objects.exists()


def test_invalid_json_answers_400_saying_so(browser):
    body = error(browser.post("/api/threads", '{"title": "unclosed', content_type="application/json"), 400)
    assert body["message"].startswith("JSON parse error")
    assert not Thread.objects.exists()


@pytest.mark.parametrize(
    "path",
    [
        "/api/threads/not-a-uuid",
        "/api/threads/123/messages",
        "/api/runs/0",
        "/api/threads/1e3/search?q=x",
        "/api/me/memories/abc",
        "/api/memories/1.5",
        "/api/people/me/export",
    ],
)
def test_ids_of_the_wrong_shape_answer_404_json(browser, path):
    assert error(browser.get(path), 404)["message"] == "Not found."


@pytest.mark.parametrize(
    "path",
    [
        "/api/threads?limit=100000",
        "/api/threads?limit=0",
        "/api/threads?limit=-1",
        "/api/me/memories?limit=1e9",
        "/api/search?q=x&limit=51",
        "/api/memories?limit=201",
    ],
)
def test_a_huge_or_bad_page_size_answers_400(browser, alice, staff, path):
    if path.startswith("/api/memories"):
        browser.force_login(staff)
    message = error(browser.get(path), 400)["message"]
    assert message.startswith("cursor:" if "cursor" in path else "limit:")


def test_unknown_kind_agent_or_missing_field_answer_400_naming_the_field(browser, alice, staff):
    assert error(browser.post("/api/threads", {"agent": "hal"}, content_type="application/json"), 400)[
        "message"
    ].startswith("agent:")
    assert error(browser.get("/api/me/memories?kind=mood"), 400)["message"].startswith("kind:")
    thread = ThreadFactory(owner=alice)
    assert error(browser.post(f"/api/threads/{thread.pk}/messages", {}, content_type="application/json"), 400)[
        "message"
    ].startswith("content:")
    browser.force_login(staff)
    body = error(browser.post("/api/memories", {"content": "x", "kind": "mood"}, content_type="application/json"), 400)
    assert set(body["extra"]["fields"]) == {"user_id", "kind"}
    assert not Memory.objects.exists()


def test_anonymous_answers_401_and_unsupported_media_415(alice):
    anonymous = Client()
    response = anonymous.get("/api/threads")
    error(response, 401)
    assert response["WWW-Authenticate"] == "Token"
    browser = Client()
    browser.force_login(alice)
    error(browser.post("/api/threads", "<xml/>", content_type="application/xml"), 415)


def test_an_unexpected_error_under_api_answers_500_json_without_details(rf):

    response = json_server_error(rf.get("/api/threads"))
    assert response.status_code == 500
    assert json.loads(response.content) == {"message": "Internal error; it has been logged.", "extra": {}}
    assert json_server_error(rf.get("/admin/")).status_code == 500


NESTED = '{"title": ' + "[" * 1000 + "]" * 1000 + "}"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/threads"),
        ("patch", "/api/threads/{thread}"),
        ("post", "/api/threads/{thread}/messages"),
        ("patch", "/api/me/memories/{memory}"),
        ("put", "/api/me/memory-settings"),
        ("post", "/api/me/erase"),
    ],
)
def test_deeply_nested_json_answers_400_on_any_endpoint(browser, alice, method, path):
    thread, memory = ThreadFactory(owner=alice, title="kept"), MemoryFactory(user=alice, content="kept")
    url = path.format(thread=thread.pk, memory=memory.pk)
    body = error(getattr(browser, method)(url, NESTED, content_type="application/json"), 400)
    assert "nested deeper" in body["message"]
    assert Thread.objects.get().title == "kept" and Memory.objects.get().content == "kept"


@pytest.mark.parametrize(
    "text",
    ['{"title": "a\\u0000b"}', '{"title": "caf\\ud800"}', '{"title": "x", "n": 1e400}'],
    ids=["nul", "lone-surrogate", "infinite"],
)
def test_json_postgresql_cannot_hold_answers_400_naming_the_path(browser, text):
    body = error(browser.post("/api/threads", text, content_type="application/json"), 400)
    assert body["extra"]["errors"][0]["path"] in {"$.title", "$.n"}
    assert not Thread.objects.exists()


@pytest.mark.parametrize("position", ["p=abc", "p=99999999999999999999999", "p=1e5&o=1", "o=-5", "p=%00"])
@pytest.mark.parametrize("path", ["/api/threads/{thread}/messages", "/api/threads", "/api/me/memories"])
def test_a_crafted_cursor_answers_400(browser, alice, position, path):
    import base64

    thread = ThreadFactory(owner=alice)
    cursor = base64.b64encode(position.encode()).decode()
    body = error(browser.get(path.format(thread=thread.pk), {"cursor": cursor}), 400)
    assert body["message"].startswith("cursor:")


def test_too_many_fields_on_a_web_form_answers_a_400_page(browser, settings):
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 10))
    response = browser.post("/c/new", fields, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    api = browser.post("/api/threads", fields, content_type="application/x-www-form-urlencoded")
    error(api, 400)


@pytest.mark.parametrize("path", ["/api/threads/not-a-uuid", "/api/nothing-here", "/api/threads"])
def test_api_errors_are_json_even_under_debug(alice, settings, monkeypatch, path):
    settings.DEBUG = True
    client = Client(raise_request_exception=False)
    client.force_login(alice)

    def broken(*args, **kwargs):
        raise RuntimeError("SECRET_KEY=leaked")

    monkeypatch.setattr("conversations.selectors.thread_list_for_user", broken)
    response = client.get(path)
    error(response, 500 if path == "/api/threads" else 404)
    assert "SECRET_KEY" not in response.content.decode()


@pytest.mark.parametrize("debug", [False, True])
def test_a_database_outage_answers_503_json(alice, settings, monkeypatch, debug):
    from django.db import OperationalError
    from django.db.backends.utils import CursorWrapper
    from rest_framework.authtoken.models import Token

    settings.DEBUG = debug
    token = Token.objects.create(user=alice)

    def down(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    client = Client(raise_request_exception=False)
    client.force_login(alice)
    monkeypatch.setattr(CursorWrapper, "execute", down)
    monkeypatch.setattr(CursorWrapper, "executemany", down)
    for response in (
        client.get("/api/threads"),
        client.post("/api/threads", {"title": "x"}, content_type="application/json"),
        Client(raise_request_exception=False).get("/api/me/memories", HTTP_AUTHORIZATION=f"Token {token.key}"),
    ):
        body = error(response, 503)
        assert "database" in body["message"].lower() and "127.0.0.1" not in body["message"]
    # The pages too: a 503 the browser may retry, not a 500 (nor, under DEBUG, a traceback).
    for path in ("/", "/memory/", "/search?q=x"):
        page = client.get(path)
        assert page.status_code == 503 and page["Retry-After"], (path, page.status_code)
        assert b"database" in page.content.lower() and b"127.0.0.1" not in page.content


@pytest.mark.parametrize("confirm", ["yes", "true", 1, "1", "on"])
def test_erasing_myself_needs_json_true(browser, alice, confirm):
    ThreadFactory(owner=alice)
    body = error(browser.post("/api/me/erase", {"confirm": confirm}, content_type="application/json"), 400)
    assert body["message"].startswith("confirm:")
    assert Thread.objects.filter(owner=alice).exists()


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "path", ["/api/threads", "/api/me/memories", "/", "/search", "/memory/", "/admin/", "/healthz", "/accounts/login/"]
)
def test_too_many_query_fields_answer_400_even_under_debug(alice, settings, debug, path):
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    query = "&".join(f"f{i}=1" for i in range(1200))
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400, (path, response.status_code)
    if path.startswith("/api/"):
        error(response, 400)
    assert b"Traceback" not in response.content and b"SECRET_KEY" not in response.content


@pytest.mark.parametrize("path", ["/c/new", "/api/threads", "/accounts/login/"])
def test_too_many_form_fields_answer_400_under_debug(alice, settings, path):
    settings.DEBUG = True
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    fields = "&".join(f"f{i}=1" for i in range(1200))
    response = client.post(path, fields, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400, (path, response.status_code)
    assert b"Traceback" not in response.content
    assert not Thread.objects.exists()
