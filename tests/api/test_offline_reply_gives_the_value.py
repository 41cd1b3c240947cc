"""A task that needs one of the person's values gets it, through the HTTP API and a real worker.

The person never asks ("make me next month's lifting plan, start from my current bench max",
"write a caption …, use the dog's name", "the pediatrician's name, I mean"): the offline reply
used to say "Got it." because nothing asked, and the excerpts were not searched at all.
"""

import pytest

from tests.api.chat import ask, chat_with_small_talk, quoted


@pytest.mark.worker
def test_a_task_at_a_value_as_it_stands_now_gets_the_newest_value(worker, alice):
    statement = "PR!! benched 115 today for 3 reps"
    thread_id = chat_with_small_talk(alice, ["right now I can bench 95 for like 5 reps, pretty weak lol", statement])
    reply, run = ask(alice, thread_id, "make me next month's lifting plan, start from my current bench max")
    assert statement in quoted(run)  # the thread was searched though nothing was asked
    assert "115" in reply and "Got it" not in reply


@pytest.mark.worker
def test_a_task_that_names_whose_name_it_needs_and_a_question_made_clear_get_the_name(worker, alice):
    thread_id = chat_with_small_talk(alice, ["also our dog Biscuit is very confused about the whole baby thing"])
    task = "write a short funny caption for a photo of the baby and our dog, use the dog's name"
    reply, _run = ask(alice, thread_id, task)
    assert "Biscuit" in reply
    thread_id = chat_with_small_talk(alice, ["our pediatrician is Dr. Okafor, she's great"])
    ask(alice, thread_id, "who do I call if he gets a fever at night?")
    reply, _run = ask(alice, thread_id, "the pediatrician's name, I mean")
    assert "Okafor" in reply
