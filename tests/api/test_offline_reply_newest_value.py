"""A value the person changed in another conversation is answered with the change, not the value it replaced.

Through the HTTP API and a real worker, in a new conversation: the first conversation's excerpts
hold the statement and, later, its change; the context lists them by time but cannot say that one
changed the other, nor does their meaning (e5-small puts unrelated statements as close).
"""

import pytest

from tests.api.chat import api_as, ask

CHATTER = [
    "lovely sunny morning here, off for a walk",
    "how long do you boil an egg for a runny yolk?",
    "that film last night was far too long",
]


def _conversation(user, said: list[str]) -> None:
    thread = api_as(user).post("/api/threads", {"agent": "assistant", "title": "the shop"}, format="json").json()["id"]
    for text in said:
        ask(user, thread, text)


@pytest.mark.worker
@pytest.mark.parametrize(
    ("said", "question", "newest", "older"),
    [
        (
            [
                "ho ordinato un forno nuovo a legna, numero ordine FO-22817, doveva arrivare la settimana scorsa",
                *CHATTER,
                "il fornitore ha risposto: avevo sbagliato io, è FO-22871 non 22817, avevo invertito le cifre",
            ],
            "mi ridici il numero dell'ordine del forno?",
            "FO-22871",
            "FO-22817",
        ),
        (
            [
                "my shift at the bar is on saturdays, 7-14, so no going out on friday nights",
                *CHATTER,
                "news from the bar: from this month they've moved me to sundays, still 7-14",
            ],
            "what day is my shift at the bar?",
            "sundays",
            "saturdays",
        ),
    ],
)
def test_a_new_conversation_answers_with_the_value_as_it_was_changed(worker, alice, said, question, newest, older):
    _conversation(alice, said)
    new = api_as(alice).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    reply, _run = ask(alice, new, question)
    assert newest in reply and older not in reply
