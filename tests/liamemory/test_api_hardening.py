"""Bad input answers 4xx in the one error format, with a clear message, and changes nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from conversations.models import Thread
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
    assert "limit" in error(browser.get(path), 400)["message"]


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
    from liamemory.api import json_server_error

    response = json_server_error(rf.get("/api/threads"))
    assert response.status_code == 500
    assert json.loads(response.content) == {"message": "Internal error; it has been logged.", "extra": {}}
    assert json_server_error(rf.get("/admin/")).status_code == 500
