"""A statement marked wrong: the summary carries the right value, never the wrong one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conversations.models import Message
from conversations.services import message_correct, thread_create
from conversations.summary_services import thread_summary_update
from memories.matching.change import statement_changes
from tests.conversations.test_summaries import dated, filler

pytestmark = pytest.mark.django_db
WHEN = datetime(2026, 5, 4, 9, tzinfo=UTC)


def test_the_summary_has_the_right_value_and_not_the_wrong_one_anywhere(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    dated(thread, WHEN, ("user", "My order number is A-7781, it ships to Turin."))
    filler(thread, 3, WHEN)
    note = message_correct(
        message=Message.objects.get(thread=thread, sequence=1), right_value="B-1200", about="the order number"
    )
    Message.objects.filter(pk=note.pk).update(created_at=WHEN)
    filler(thread, 4, WHEN)

    text = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text

    assert "B-1200" in text
    assert "A-7781" not in text  # neither the statement, nor the note's quote, nor the key facts


def test_a_correction_after_the_statement_was_summarized_takes_the_wrong_value_out(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    dated(thread, WHEN, ("user", "My order number is A-7781, it ships to Turin."))
    filler(thread, 5, WHEN)
    first = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text
    assert "A-7781" in first
    note = message_correct(
        message=Message.objects.get(thread=thread, sequence=1), right_value="B-1200", about="the order number"
    )
    Message.objects.filter(pk=note.pk).update(created_at=WHEN)
    filler(thread, 6, WHEN)

    text = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text

    assert "B-1200" in text and "A-7781" not in text
