"""What a person meets in the web chat when they are quick, impatient or interrupted.

Real Chromium against the live server and the real browser worker (tests/web/conftest.py);
the model is the fake Messages API. Each test is a case of session 16's reliability pass
(bench/README.md, "Session 16"): a double submit, Stop during a tool call, a reload while
the reply streams.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from agents.models import Run
from conversations.models import Message
from memories.models import Memory
from tests.fake_anthropic import slow_stream, text_reply, tool_use_reply
from tests.web.test_browser import last_reply, say, sign_in, start_conversation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_enter_pressed_twice_and_two_tabs_sending_at_once_make_one_message_and_one_run(
    new_page, worker_for_live_server, fake_anthropic, settings, alice
):
    settings.ANTHROPIC_API_KEY = "test-key"
    fake_anthropic.script(slow_stream(text_reply("One reply, written slowly enough to overlap."), chunk_delay=0.3))
    page = new_page()
    sign_in(page, "alice")
    start_conversation(page)
    url = page.url
    composer = page.get_by_label("Message", exact=True)
    composer.fill("first question")
    composer.press("Enter")
    composer.press("Enter")
    page.get_by_role("button", name="Send").click(force=True, no_wait_after=True)
    expect(last_reply(page)).to_have_text("One reply, written slowly enough to overlap.")
    expect(page.locator(".msg-user")).to_have_count(1)
    expect(page.locator(".msg-assistant")).to_have_count(1)
    assert Message.objects.filter(thread__owner=alice, role="user").count() == 1
    assert Run.objects.filter(thread__owner=alice).count() == 1

    # Two tabs of the conversation send at the same moment: one turn starts, the other tab says why
    # not and keeps its text.
    fake_anthropic.script(slow_stream(text_reply("The second turn's only reply."), chunk_delay=0.3))
    other = new_page()
    sign_in(other, "alice")
    other.goto(url)
    page.goto(url)
    for tab, text in ((page, "from tab one"), (other, "from tab two")):
        tab.get_by_label("Message", exact=True).fill(text)
    page.evaluate("document.querySelector('form#composer').requestSubmit()")
    other.evaluate("document.querySelector('form#composer').requestSubmit()")
    refused = other
    expect(page.locator(".msg-assistant")).to_have_count(2)
    expect(refused.locator("#composer-error")).to_contain_text("A reply is still being written for this conversation")
    expect(refused.get_by_label("Message", exact=True)).to_have_value("from tab two")
    expect(last_reply(page)).to_have_text("The second turn's only reply.")
    assert Message.objects.filter(thread__owner=alice, role="user").count() == 2
    assert Run.objects.filter(thread__owner=alice).count() == 2
    page.reload()
    expect(page.locator(".msg-user")).to_have_count(2)
    expect(page.locator(".msg-assistant")).to_have_count(2)


def test_stop_while_the_model_asks_for_a_tool_keeps_the_words_and_stores_no_half_memory(
    new_page, worker_for_live_server, fake_anthropic, settings, alice
):
    settings.ANTHROPIC_API_KEY = "test-key"
    words = " ".join(f"note{i}" for i in range(30))
    fake_anthropic.script(
        slow_stream(tool_use_reply("remember_fact", {"content": "has a cat called Miso"}, text=words), chunk_delay=0.2),
        text_reply("Noted."),
    )
    page = new_page()
    sign_in(page, "alice")
    start_conversation(page)
    say(page, "my cat is called Miso")
    expect(page.locator(".msg-streaming .bubble")).to_contain_text("note2")
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#run-status")).to_contain_text("Stopped.")
    stopped = page.locator(".msg-assistant.msg-stopped")
    expect(stopped.locator(".bubble")).to_contain_text("note0 note1 note2")
    expect(stopped.locator(".stopped-mark")).to_be_visible()
    page.wait_for_timeout(7000)  # the model's stream (and its tool call) would have ended by now
    assert not Memory.objects.filter(user=alice).exists()

    fake_anthropic.script(text_reply("Yes, I am here."))
    say(page, "are you still there?")
    expect(last_reply(page)).to_have_text("Yes, I am here.")
    page.reload()
    expect(page.locator(".msg-assistant.msg-stopped")).to_have_count(1)
    expect(last_reply(page)).to_have_text("Yes, I am here.")


def test_a_reload_while_the_reply_streams_shows_it_going_on_without_repeats(
    new_page, worker_for_live_server, fake_anthropic, settings, alice
):
    settings.ANTHROPIC_API_KEY = "test-key"
    words = " ".join(f"w{i}" for i in range(40))
    fake_anthropic.script(slow_stream(text_reply(f"{words} end."), chunk_delay=0.15))
    page = new_page()
    sign_in(page, "alice")
    start_conversation(page)
    say(page, "tell me a long one")
    expect(page.locator(".msg-streaming .bubble")).to_contain_text("w3")
    page.reload()
    streaming = page.locator(".msg-streaming .bubble")
    expect(streaming).to_contain_text("w0 w1 w2 w3")
    assert "end." not in streaming.inner_text()
    expect(last_reply(page)).to_have_text(f"{words} end.")
    expect(page.locator(".msg-assistant")).to_have_count(1)
    assert last_reply(page).inner_text().count("w1 ") == 1

    # Closing the tab mid-reply: the worker finishes it, and the page opened later shows it once.
    fake_anthropic.script(slow_stream(text_reply(f"second {words} done."), chunk_delay=0.1))
    url = page.url
    say(page, "and another")
    expect(page.locator(".msg-streaming .bubble")).to_contain_text("second w0 w1")
    page.close()
    later = new_page()
    sign_in(later, "alice")
    later.goto(url)
    expect(last_reply(later)).to_have_text(f"second {words} done.")
    expect(later.locator(".msg-assistant")).to_have_count(2)
