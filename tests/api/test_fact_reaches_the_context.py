"""A fact said early in a long chat reaches the context of a question asked far later.

Through the HTTP API and a real worker: the question names no person, name or number
("what day's padel now?") and gives its reason beside it; the statement is far outside
the window. A new conversation of the same person finds it while long-term memory is
on; another person's never does.
"""

import pytest

from agents.context_report import context_report_read
from agents.models import Run
from tests.api.chat import api_as, ask, chat_with_small_talk, quoted

STATEMENT = "Padel moved to Wednesday evenings, same time, one of the guys has his kids on Thursdays."
QUESTION = "what day's padel now? trying to book a client call"


def _long_chat(user, *, exchanges: int = 40) -> str:
    """A conversation of ``user``: the statement, then ``exchanges`` of small talk and general questions."""
    return chat_with_small_talk(user, [STATEMENT], exchanges=exchanges, noted="Noted, Wednesdays it is.")


def _ask(user, thread_id: str, text: str = QUESTION) -> tuple[str, Run]:
    return ask(user, thread_id, text)


@pytest.mark.worker
def test_a_fact_said_early_reaches_a_question_far_later_in_the_same_thread(worker, alice):
    thread_id = _long_chat(alice)
    reply, run = _ask(alice, thread_id)
    report = context_report_read(run.context_report)
    assert report is not None and report.window_first_sequence > 2  # the statement is outside the window
    assert STATEMENT in quoted(run)
    assert "Wednesday" in reply


@pytest.mark.worker
def test_a_new_conversation_of_the_same_person_finds_it_and_another_persons_never(worker, alice, bob):
    _long_chat(alice)
    new = api_as(alice).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    reply, run = _ask(alice, new)
    assert STATEMENT in quoted(run) and "Wednesday" in reply

    theirs = api_as(bob).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    reply, run = _ask(bob, theirs)
    assert not quoted(run) and "Wednesday" not in reply
