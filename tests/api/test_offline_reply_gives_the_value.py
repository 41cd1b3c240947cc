"""A task that needs one of the person's values gets it, through the HTTP API and a real worker.

The person never asks ("make me next month's lifting plan, start from my current bench max",
"write a caption …, use the dog's name", "the pediatrician's name, I mean"): the offline reply
used to say "Got it." because nothing asked, and the excerpts were not searched at all.
"""

import pytest

from conversations.content import text_block
from conversations.models import Thread
from conversations.services import messages_append
from tests.api.chat import api_as, ask, quoted

CHATTER = [
    ("Lovely sunny morning here, off for a walk by the river.", "Enjoy the walk!"),
    ("How long do you boil an egg for a runny yolk?", "About six minutes in boiling water."),
    ("That film last night was far too long.", "Long films can drag, yes."),
]


def _chat(user, statements: list[str], *, exchanges: int = 30) -> str:
    """A conversation of ``user``: each statement followed by ``exchanges`` of small talk."""
    thread_id = api_as(user).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    items = []
    for statement in statements:
        items.append({"role": "user", "content": [text_block(statement)]})
        items.append({"role": "assistant", "content": [text_block("Noted.")]})
        for i in range(exchanges):
            said, answer = CHATTER[i % len(CHATTER)]
            items.append({"role": "user", "content": [text_block(f"{said} ({i})")]})
            items.append({"role": "assistant", "content": [text_block(f"{answer} ({i})")]})
    messages_append(thread=Thread.objects.get(pk=thread_id), items=items)
    return thread_id


@pytest.mark.worker
def test_a_task_at_a_value_as_it_stands_now_gets_the_newest_value(worker, alice):
    statement = "PR!! benched 115 today for 3 reps"
    thread_id = _chat(alice, ["right now I can bench 95 for like 5 reps, pretty weak lol", statement])
    reply, run = ask(alice, thread_id, "make me next month's lifting plan, start from my current bench max")
    assert statement in quoted(run)  # the thread was searched though nothing was asked
    assert "115" in reply and "Got it" not in reply


@pytest.mark.worker
def test_a_task_that_names_whose_name_it_needs_and_a_question_made_clear_get_the_name(worker, alice):
    thread_id = _chat(alice, ["also our dog Biscuit is very confused about the whole baby thing"])
    task = "write a short funny caption for a photo of the baby and our dog, use the dog's name"
    reply, _run = ask(alice, thread_id, task)
    assert "Biscuit" in reply
    thread_id = _chat(alice, ["our pediatrician is Dr. Okafor, she's great"])
    ask(alice, thread_id, "who do I call if he gets a fever at night?")
    reply, _run = ask(alice, thread_id, "the pediatrician's name, I mean")
    assert "Okafor" in reply
