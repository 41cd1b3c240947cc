"""A value the person corrected in chat is answered with its newest statement, through the API and a real worker."""

import pytest
from rest_framework.test import APIClient

from tests.utils import wait_for

SAID = [
    "my spin class is on tuesdays at 6, the instructor shouts a lot",
    "lovely sunny morning here",
    "whats a good stretch for lower back pain",
    "ok thanks",
    "the gym changed the timetable, from next week spin is on thursdays at 7",
    "my sister is visiting at the weekend",
]


def _turn(client: APIClient, thread_id: str, text: str) -> str:
    """Post a message and wait for the worker's reply to it."""
    response = client.post(f"/api/threads/{thread_id}/messages", {"content": text}, format="json")
    assert response.status_code == 202
    url = response.json()["run"]["url"]
    done = wait_for(lambda: (b := client.get(url).json())["status"] not in ("queued", "running") and b, what="the run")
    assert done["status"] == "completed", done
    return done["reply"]["text"]


@pytest.mark.worker
def test_a_corrected_value_is_answered_with_the_newest_statement_only(worker, alice):
    client = APIClient()
    client.force_authenticate(alice)
    thread = client.post("/api/threads", {"agent": "assistant", "title": "gym"}, format="json").json()["id"]
    for text in SAID:
        _turn(client, thread, text)
    same = _turn(client, thread, "what day is my spin class now?")
    assert "thursdays" in same and "tuesdays" not in same
    # A new conversation reads the first one's excerpts, which the context cannot order by time:
    # the correction says it changed the older statement, so the older value is not quoted beside it.
    other = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    new = _turn(client, other, "what day is my spin class now?")
    assert "thursdays" in new and "tuesdays" not in new
