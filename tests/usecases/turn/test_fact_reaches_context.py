"""The asked fact's message reaches the context, through the API and a real worker.

Two ways it did not on the development chats: a question that names its thing by a pronoun, the
thing said in the sentence before it ("… wants my reference number. What was it?"), or passed on
from someone else ("Chiara asks what our tax advisor is called"), opened no excerpt at all; and in
a chat that switches between English and Italian, a fact said in the other language than the
question shares no word with it and sat under the floor its meaning had to pass.
"""

import pytest
from rest_framework.test import APIClient

from agents.models import Run
from conversations.models import Message
from tests.usecases.turn.helpers import report_of
from tests.utils import wait_for
from usecases.turn.context import asks_about_a_thing


def _turn(client: APIClient, thread_id: str, text: str) -> tuple[str, Run]:
    """Post a message, wait for the worker's reply; the reply and the run."""
    response = client.post(f"/api/threads/{thread_id}/messages", {"content": text}, format="json")
    assert response.status_code == 202
    body = response.json()["run"]
    done = wait_for(
        lambda: (b := client.get(body["url"]).json())["status"] not in ("queued", "running") and b, what="the run"
    )
    assert done["status"] == "completed", done
    return done["reply"]["text"], Run.objects.get(pk=body["id"])


def _chat(client: APIClient, said: list[str]) -> str:
    thread = client.post("/api/threads", {"agent": "assistant", "title": "earlier"}, format="json").json()["id"]
    for text in said:
        _turn(client, thread, text)
    return thread


def _quoted(run: Run) -> set[str]:
    """The texts of the messages the run's context quoted as excerpts."""
    ids = [e.message_id for e in report_of(run).excerpts]
    return set(Message.objects.filter(pk__in=ids).values_list("text", flat=True))


POTHOLES = "Now, the serious bit. I wrote to the council about the potholes and all I got back was reference CR-448201."
TAX = "Our tax advisor is Frau Lindner, she does the returns for both of us."


def test_a_question_by_a_pronoun_or_passed_on_asks_and_small_talk_still_does_not():
    assert asks_about_a_thing("The council rang back and the man wanted my reference number. What was it?")
    assert asks_about_a_thing("The chemist asked what I'm on for the gout and I couldn't get the word out.")
    assert asks_about_a_thing("Chiara asks what our tax advisor is called, she wants to send her the documents")
    assert asks_about_a_thing("sono davanti al locker e nn ho il codice... quale era??")
    for text in ["Lovely day for it. How are you?", "Long day at work. Anyway, what's new?", "ok thanks!"]:
        assert not asks_about_a_thing(text), text


@pytest.mark.worker
def test_in_a_new_conversation_a_question_by_a_pronoun_finds_what_the_sentence_before_it_named(worker, alice):
    client = APIClient()
    client.force_authenticate(alice)
    _chat(client, ["Morning, the sun is out at last.", POTHOLES, "Thanks, that letter is much better.", TAX])
    new = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    asked = "The council rang back about the pothole and wants my reference number. What was it?"
    reply, run = _turn(client, new, asked)
    assert POTHOLES in _quoted(run) and "CR-448201" in reply
    other = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    reply, run = _turn(client, other, "My wife asks what our tax advisor is called, she wants to send her the papers")
    assert TAX in _quoted(run) and "Lindner" in reply


BROTHER = "My brother Luca works at the Ferrari plant in Maranello as an engineer."


@pytest.mark.worker
def test_a_fact_said_in_english_is_found_by_a_question_in_italian(worker, alice):
    client = APIClient()
    client.force_authenticate(alice)
    _chat(client, ["ciao! oggi piove tantissimo, resto a casa", BROTHER, "che bello il weekend, finalmente"])
    new = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    reply, run = _turn(client, new, "dove lavora mio fratello?")
    assert BROTHER in _quoted(run) and "Maranello" in reply
