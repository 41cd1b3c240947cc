"""Search my conversations: across all of them and within one, ranks ordinal, never another user's."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from conversations.content import text_block
from conversations.models import Message, MessageEmbedding
from conversations.services import messages_append, thread_create
from conversations.vector_search import database_has_pgvector
from tests.conversations.test_search import CHITCHAT, _embed_all, _exchange_with_tools, _say
from tests.utils import wait_for

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def chat(owner, title, texts):
    thread = thread_create(owner=owner, title=title)
    messages_append(thread=thread, items=[{"role": "user", "content": [text_block(t)]} for t in texts])
    return thread


def test_search_across_my_threads(alice, bob):
    trip = chat(alice, "Trip", ["we fly to Lisbon on the 12th", "hotel booked near the river"])
    chat(alice, "Work", ["the quarterly report is due Friday"])
    chat(bob, "Bob", ["Lisbon is lovely, my PIN is 7781"])
    response = api(alice).get("/api/search", {"q": "Lisbon flight"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["rank"] for r in results] == list(range(1, len(results) + 1))
    assert results[0]["thread_id"] == str(trip.id) and results[0]["sequence"] == 1
    assert results[0]["thread_title"] == "Trip" and "Lisbon" in results[0]["excerpt"]
    assert all("7781" not in r["excerpt"] for r in results)


def test_search_within_one_thread_covers_the_whole_thread(alice, bob):
    texts = [f"small talk number {i}" for i in range(60)]
    texts[2] = "my passport number is X1234567"
    thread = chat(alice, "Long", texts)
    bobs = chat(bob, "Bob", ["passport number Z999"])
    body = api(alice).get(f"/api/threads/{thread.id}/search", {"q": "passport number", "limit": 5}).json()
    assert body["results"][0]["sequence"] == 3 and body["results"][0]["rank"] == 1
    assert len(body["results"]) <= 5
    assert api(alice).get(f"/api/threads/{bobs.id}/search", {"q": "passport"}).status_code == 404


@pytest.mark.parametrize(
    "params", [{}, {"q": ""}, {"q": "x", "limit": 0}, {"q": "x", "limit": 100000}, {"q": "x", "limit": "ten"}]
)
def test_bad_search_parameters_answer_400(alice, params):
    thread = chat(alice, "T", ["hello"])
    for url in ("/api/search", f"/api/threads/{thread.id}/search"):
        response = api(alice).get(url, params)
        assert response.status_code == 400 and set(response.json()) == {"message", "extra"}


@pytest.mark.parametrize(("embeddings", "queries"), [("off", 3), ("on", 4)])
def test_search_costs_a_fixed_number_of_queries(alice, django_assert_num_queries, settings, embeddings, queries):
    settings.HISTORY_SEARCH_EMBEDDINGS = embeddings
    for i in range(5):
        chat(alice, f"T{i}", [f"invoice {i} for the garden", "other words"])
    # The backend probe runs once per process, whichever test searches first: not counted here.
    database_has_pgvector()
    # Authentication is forced: the ranking (no JIT statement: the connection opens with it off,
    # ``settings.DB_JIT``), (the threads' vectors,) message texts, titles.
    with django_assert_num_queries(queries):
        results = api(alice).get("/api/search", {"q": "garden invoice", "limit": 50}).json()["results"]
    assert len(results) == 5


def test_searching_one_thread_for_a_word_said_nowhere_finds_nothing(alice, settings):

    settings.HISTORY_SEARCH_EMBEDDINGS = "auto"
    thread = thread_create(owner=alice, title="Everyday")
    _say(thread, CHITCHAT * 3)
    _exchange_with_tools(thread)
    _say(thread, [("user", "My new GP is Dr. Okafor, she is lovely.")])
    _embed_all()
    url = f"/api/threads/{thread.id}/search"

    for query in ["xylophone", "Did I ever mention a xylophone?", "trumpet lessons"]:
        assert api(alice).get(url, {"q": query}).json()["results"] == [], query
    # What was said is still found, by its words or by what it means; tool steps never are.
    assert "pasta" in api(alice).get(url, {"q": "pasta"}).json()["results"][0]["excerpt"]
    assert "Okafor" in api(alice).get(url, {"q": "Who is my physician?"}).json()["results"][0]["excerpt"]
    hits = api(alice).get(url, {"q": "recall_facts query"}).json()["results"]
    assert all(h["role"] in {"user", "assistant"} and "recall_facts" not in h["excerpt"] for h in hits)


def _ended(client, run_url):
    body = client.get(run_url).json()
    return body if body["status"] not in ("queued", "running") else None


def _all_embedded() -> bool:
    said = Message.objects.said().exclude(text="").count()
    return MessageEmbedding.objects.count() >= said


CHAT = [
    "Hi! How are you today?",
    "remember that my order number is A-7781",
    "Our dog is called Bruno, he is three.",
    "Can you give me three quick tips about cooking pasta?",
    "The weather was grey all day, I stayed inside with a podcast.",
    "I'm allergic to penicillin.",
    "What do you know about me?",
    "My dentist appointment is on Tuesday at 10.",
    "What is my order number?",
    "Thanks, that's all for now!",
]


@pytest.mark.worker
def test_a_word_said_nowhere_finds_nothing_in_a_chat_held_through_the_api(worker, alice):
    """The issue's case as a person meets it: a real chat (the offline model, its tool
    calls and replies, the worker's embeddings), then its search for a word said nowhere."""
    client = api(alice)
    thread = client.post("/api/threads", {"agent": "assistant"}, format="json").json()
    for text in CHAT:
        sent = client.post(f"/api/threads/{thread['id']}/messages", {"content": text}, format="json").json()
        done = wait_for(lambda url=sent["run"]["url"]: _ended(client, url), what="the reply")
        assert done["status"] == "completed", done
    wait_for(_all_embedded, what="every message's vector")
    thread_url = f"/api/threads/{thread['id']}/search"

    said_nowhere = [
        "xylophone",
        "Did I ever mention a xylophone?",
        "trumpet lessons",
        "Have I told you about the violin?",
        "What did I say about my trip to Japan?",
    ]
    for query in said_nowhere:
        assert client.get(thread_url, {"q": query}).json()["results"] == [], query
        assert client.get("/api/search", {"q": query}).json()["results"] == [], query
    # What was said is still found there, by its words and by what it means.
    assert "Bruno" in client.get(thread_url, {"q": "Bruno"}).json()["results"][0]["excerpt"]
    found = [r["excerpt"] for r in client.get(thread_url, {"q": "When do I see the dentist?"}).json()["results"]]
    assert any("dentist appointment is on Tuesday" in e for e in found), found
