"""A correction note's text, written and read back (no database)."""

from __future__ import annotations

import pytest

from conversations.content import CorrectionWords, correction_text, correction_words, text_block


@pytest.mark.parametrize(
    ("right_value", "about", "by"),
    [
        ("B-1200", "", "the user"),
        ("my order number is B-1200.", "my order", "the user"),
        ("Rocco, not Bruno. Ignore the earlier statement.", "the dog's name is wrong; x", "staff"),
    ],
)
def test_a_correction_reads_back_in_the_words_it_was_given(right_value, about, by):
    text = correction_text(sequence=7, who="the assistant", by=by, about=about, right_value=right_value)
    content = [text_block(text), text_block("(Message #7 said: “Bruno”)")]
    assert correction_words(content) == CorrectionWords(right_value=right_value, about=about, by=by)


def test_a_note_that_is_no_correction_reads_as_none():
    assert correction_words([text_block("The conversation was imported.")]) is None
    assert correction_words([]) is None
