"""What I remember about you, and privacy, through Django's test client."""

from __future__ import annotations

import json

import pytest

from conversations.models import Thread
from conversations.services import thread_create
from governance.models import ErasureReceipt
from memories.models import Memory, MemoryPreference
from memories.services import memory_remember
from tests.factories import MemoryFactory
from tests.usecases.turn.helpers import run_turn

pytestmark = pytest.mark.django_db


def test_memory_page_groups_by_kind_with_a_link_to_the_source(as_alice, alice, bob):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my order is A-7781")
    fact = Memory.objects.get(user=alice)
    MemoryFactory(user=alice, kind="rule", content="Always answer in Italian")
    MemoryFactory(user=bob, content="Bob likes tea")
    page = as_alice.get("/memory/").content.decode()
    assert page.index("Fact") < page.index("Relationship rule")
    assert "A-7781" in page and "Always answer in Italian" in page and "Bob likes tea" not in page
    assert f"/c/{thread.pk}/#msg-{fact.source_message_id}" in page
    source = as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert f'id="msg-{fact.source_message_id}"' in source


def test_delete_a_memory_and_strangers_get_404(as_alice, as_bob, alice):
    memory = MemoryFactory(user=alice, content="my order is A-7781")
    assert as_bob.post(f"/memory/{memory.pk}/delete").status_code == 404
    assert Memory.objects.filter(pk=memory.pk).exists()
    response = as_alice.post(f"/memory/{memory.pk}/delete", follow=True)
    assert response.status_code == 200 and "Forgotten" in response.content.decode()
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert "A-7781" not in response.content.decode()


def test_delete_on_the_memory_page_asks_first(as_alice, as_bob, alice):
    memory = MemoryFactory(user=alice, content="my order is A-7781")
    page = as_alice.get("/memory/").content.decode()
    # The page's Delete is a link to a confirmation, not a form that deletes at once.
    assert f'href="/memory/{memory.pk}/delete"' in page
    assert f'action="/memory/{memory.pk}/delete"' not in page
    confirm = as_alice.get(f"/memory/{memory.pk}/delete")
    assert confirm.status_code == 200 and "my order is A-7781" in confirm.content.decode()
    assert "Forget it" in confirm.content.decode() and "Keep it" in confirm.content.decode()
    assert "<script>" not in confirm.content.decode()
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert as_bob.get(f"/memory/{memory.pk}/delete").status_code == 404


def test_correct_supersedes_the_old_text(as_alice, as_bob, alice):
    memory = MemoryFactory(user=alice, content="my order is A-7781")
    assert as_bob.post(f"/memory/{memory.pk}/correct", {"content": "hacked"}).status_code == 404
    response = as_alice.post(f"/memory/{memory.pk}/correct", {"content": "my order is A-7790"}, follow=True)
    page = response.content.decode()
    # The old text is no longer a memory, only the new one's history.
    assert "A-7790" in page and page.count("A-7781") == 1
    assert '<span class="memory-old">my order is A-7781</span>' in page
    memory.refresh_from_db()
    assert memory.status == "superseded" and memory.superseded_by.content == "my order is A-7790"


def test_the_memory_page_shows_what_a_memory_used_to_say(as_alice, alice):

    for text in ("I live in Rome", "I moved to Milan", "mi sono trasferito a Torino"):
        memory_remember(user=alice, content=text)
    page = as_alice.get("/memory/").content.decode()
    assert page.count('class="memory-text"') == 1 and "Earlier versions (2)" in page
    assert page.index("I moved to Milan") < page.index("I live in Rome")


@pytest.mark.parametrize("content", ["", "x" * 181])
def test_bad_correction_is_a_form_error(as_alice, alice, content):
    memory = MemoryFactory(user=alice, content="my order is A-7781")
    response = as_alice.post(f"/memory/{memory.pk}/correct", {"content": content})
    assert response.status_code == 400 and 'class="form-error"' in response.content.decode()
    memory.refresh_from_db()
    assert memory.status == "active" and memory.content == "my order is A-7781"


def test_memory_switch_off_and_on(as_alice, alice):
    off = as_alice.post("/memory/switch", {"enabled": ""}, follow=True)
    assert "memory off" in off.content.decode()
    assert MemoryPreference.objects.get(user=alice).long_term_enabled is False
    thread = thread_create(owner=alice)
    assert "memory off" in as_alice.get(f"/c/{thread.pk}/").content.decode()
    as_alice.post("/memory/switch", {"enabled": "on"})
    assert MemoryPreference.objects.get(user=alice).long_term_enabled is True


def test_privacy_page_lists_my_conversations_to_delete(as_alice, alice, bob):
    mine = thread_create(owner=alice, title="Mine to delete")
    thread_create(owner=bob, title="Not alice's")
    page = as_alice.get("/privacy/").content.decode()
    assert "Mine to delete" in page and "Not alice's" not in page
    assert f"/c/{mine.pk}/delete?next=privacy" in page and "Download my data" in page


def test_export_downloads_my_data_only(as_alice, as_bob, alice, bob):
    thread = thread_create(owner=alice, title="Alice trip")
    run_turn(alice, thread, "remember that my order is A-7781")
    thread_create(owner=bob, title="Bob trip")
    response = as_alice.get("/privacy/export")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="liamemory-export-')
    document = json.loads(response.content)
    text = response.content.decode()
    assert document["format"] and document["version"]
    assert "Alice trip" in text and "A-7781" in text and "Bob trip" not in text
    assert "Alice trip" not in as_bob.get("/privacy/export").content.decode()


def test_delete_all_my_data_needs_confirmation(as_alice, alice):
    thread_create(owner=alice)
    response = as_alice.post("/privacy/erase", {})
    assert response.status_code == 400 and "Tick the box to confirm" in response.content.decode()
    assert Thread.objects.filter(owner=alice).exists()


def test_delete_all_my_data_shows_the_receipt_and_signs_out(as_alice, alice, bob):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my order is A-7781")
    thread_create(owner=bob, title="bob stays")
    response = as_alice.post("/privacy/erase", {"confirm": "on"})
    page = response.content.decode()
    assert response.status_code == 200 and "Your data was erased" in page
    receipt = ErasureReceipt.objects.get()
    assert receipt.sha256 in page and "A-7781" not in page
    assert not Thread.objects.filter(owner=alice).exists() and not Memory.objects.filter(user=alice).exists()
    assert Thread.objects.filter(title="bob stays").exists()
    assert as_alice.get("/").status_code == 302  # signed out
