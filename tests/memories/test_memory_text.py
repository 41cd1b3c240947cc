"""A memory reads as a fact, in one voice: the talk around it is not stored."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memories.models import Memory
from memories.services import memory_correct, memory_remember, memory_update
from memories.text import memory_text
from usecases.export import person_export


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("Remember that I moved from Rome to Turin", "I moved from Rome to Turin"),
        ("actually my order number is B-9902", "my order number is B-9902"),
        ("I live in Turin now", "I live in Turin"),
        ("I am, actually, 43", "I am 43"),
        ("By the way, remember that my dog is called Rex", "My dog is called Rex"),
        ("please use jo@new.com from now on", "please use jo@new.com"),
        ("ricordati che adesso abito a Torino", "abito a Torino"),
        ("In realtà il mio numero è 347 7654321", "Il mio numero è 347 7654321"),
        # Nothing to take away, or nothing would be left: the text as given.
        ("Ho un'ora di pausa alle 13", "Ho un'ora di pausa alle 13"),
        ("my shoe size is 43, not 42", "my shoe size is 43, not 42"),
        ("Now", "Now"),
    ],
)
def test_memory_text_keeps_the_fact_and_drops_the_talk(said, stored):
    assert memory_text(said) == stored


@pytest.mark.django_db
def test_every_write_path_stores_the_fact_and_the_page_and_export_show_it(alice, client):
    memory = memory_remember(user=alice, content="Remember that I actually live in Turin now").memory
    assert memory.content == "I live in Turin"
    corrected = memory_correct(actor=alice, memory=memory, content="actually I live in Turin, near the park")
    assert corrected.content == "I live in Turin, near the park"
    edited = memory_update(actor=alice, memory=corrected, content="by the way, I live in Turin centre now")
    assert edited.content == "I live in Turin centre"
    client.force_login(alice)
    page = client.get(reverse("web:memory")).content.decode()
    assert "I live in Turin centre" in page and "by the way" not in page
    exported = [m["content"] for m in person_export(user=alice)["memories"]]
    assert "I live in Turin centre" in exported and not any("actually" in c for c in exported)


@pytest.mark.django_db
def test_the_change_is_judged_as_said_and_stored_as_a_fact(alice):
    memory_remember(user=alice, content="my favourite colour is blue")
    out = memory_remember(user=alice, content="actually my favourite colour is green now")
    assert out.action == "superseded" and out.memory.content == "my favourite colour is green"
    assert list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True)) == [
        "my favourite colour is green"
    ]
