"""Thread and message lists: a fixed number of queries however long, cursor pages, strict limits."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from conversations.content import text_block
from conversations.services import messages_append, thread_create

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_thread_list_costs_the_same_at_3_and_60_threads(alice, bob, django_assert_num_queries):
    for i in range(3):
        thread_create(owner=alice, title=f"t{i}")
    thread_create(owner=bob, title="bob's")
    with django_assert_num_queries(1):
        assert len(api(alice).get("/api/threads").json()["results"]) == 3
    for i in range(57):
        thread_create(owner=alice, title=f"more {i}")
    with django_assert_num_queries(1):
        page = api(alice).get("/api/threads?limit=50").json()
    assert len(page["results"]) == 50 and page["next"]
    assert "bob's" not in {t["title"] for t in page["results"]}


def test_message_list_pages_through_a_long_thread_in_order(alice, django_assert_num_queries):
    thread = thread_create(owner=alice)
    messages_append(thread=thread, items=[{"role": "user", "content": [text_block(f"m{i}")]} for i in range(120)])
    client = api(alice)
    seen, url = [], f"/api/threads/{thread.pk}/messages?limit=50"
    while url:
        # The thread lookup and the page.
        with django_assert_num_queries(2):
            page = client.get(url).json()
        seen += [m["sequence"] for m in page["results"]]
        url = page["next"]
    assert seen == list(range(1, 121))
