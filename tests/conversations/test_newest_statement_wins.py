"""In a summary the newest statement wins: the current value, said to have changed; its facts are facts."""

from __future__ import annotations

import pytest

from conversations.content import text_block
from conversations.facts import KEY_FACTS_PREFIX, find_facts
from conversations.models import Message
from conversations.services import messages_append, thread_create
from conversations.summarizer import summarize
from memories.matching.change import statement_changes

pytestmark = pytest.mark.django_db


def say(role: str, text: str) -> dict:
    return {"role": role, "content": [text_block(text)]}


def test_a_changed_statement_leaves_the_summary_with_the_current_value(alice):
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            say("user", "I live in Rome with my partner Giulia."),
            say("assistant", "Noted, you live in Rome."),
            say("user", "My order number is A-7781 for the new sofa."),
            say("assistant", "Thanks, order A-7781 is noted."),
            say("user", "Remember that I moved from Rome to Turin last month."),
            say("assistant", "Got it: Turin now."),
            say("user", "Actually my order number is B-9902, the old one was cancelled."),
            say("assistant", "You said it earlier: “My order number is A-7781” (message #3, 2026-03-01)."),
        ],
    )
    messages = list(Message.objects.filter(thread=thread).order_by("sequence"))
    text = summarize(previous_text="", messages=messages, change_judge=statement_changes, use_model=False).text
    body = "\n".join(line for line in text.splitlines() if not line.startswith(KEY_FACTS_PREFIX))
    assert "Turin" in body and "B-9902" in text
    # The older statements the newer ones changed are gone, and the newer ones say so.
    assert "I live in Rome" not in body and "changed" in body
    assert "A-7781" not in text.replace("A-7781” (message", "")  # not kept, not rescued as a key fact
    # What the key-facts line holds are facts, never the message numbers the replies cite.
    facts = [line for line in text.splitlines() if line.startswith(KEY_FACTS_PREFIX)]
    assert not any("#" in f for f in facts)


def test_message_references_are_not_facts_but_an_order_number_is():
    assert find_facts("As you said (message #31, 2026-03-01) and in [#30, 2026-01-02, user]: order #4521") == ["#4521"]
    assert find_facts("come nel messaggio #37") == []
