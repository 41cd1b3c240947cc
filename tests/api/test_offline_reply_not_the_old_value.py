"""After a correction the offline reply gives the new value and not the one it replaced, through the HTTP API
and a real worker.

A correction often names what it replaces ("its 18.70 not 18.40", "alle 10:30, non alle 9:30"): quoted
whole, the reply handed the person the old value beside the new one. People also type questions without a
question mark after a word that leads into them ("wait whats my locker code again"): read as a remark,
they were answered "Got it.". A correction with a number of the old one's form ("ah no aspetta …, il numero
è 3381") replaces it, which is not quoted beside it.
"""

import pytest

from tests.api.chat import ask, chat_with_small_talk


@pytest.mark.worker
@pytest.mark.parametrize(
    ("said", "question", "value", "old", "opening"),
    [
        pytest.param(
            ["my hourly rate is 18.40, thats the band 5 rate",
             "oh wait my rate went up in april lol, its 18.70 not 18.40. redo that weekly sum?"],
            "whats my hourly rate again? the new one",
            "18.70",
            "18.40",
            "From what",
            id="a correction naming the old value",
        ),
        pytest.param(
            ["appuntamento all'anagrafe per il cambio di residenza: martedì 15 settembre alle 9:30",
             "ho riletto la mail dell'anagrafe: il 15 settembre è alle 10:30, non alle 9:30. meno male"],
            "a che ora è l'appuntamento all'anagrafe?",
            "10:30",
            "9:30",
            "Da quanto",
            id="in Italian, the old time denied",
        ),
        pytest.param(
            ["Silvia è riuscita a prendere le fedi, ricevuta della gioielleria n. 3318",
             "ah no aspetta l'ha trovato, il numero è 3381, avevo invertito le ultime due cifre"],
            "devo ritirare le fedi dalla gioielleria: qual era il numero giusto della ricevuta?",
            "3381",
            "3318",
            "Da quanto",
            id="an update's number alone",
        ),
        pytest.param(
            ["the code for my locker at work is 2718, i forget it every single night"],
            "wait whats my locker code again, standing here like a lemon",
            "2718",
            None,
            "From what",
            id="a question typed without its mark",
        ),
    ],
)  # fmt: skip
def test_the_reply_gives_the_new_value_alone(worker, alice, said, question, value, old, opening):
    thread_id = chat_with_small_talk(alice, said)
    reply, _run = ask(alice, thread_id, question)
    assert opening in reply
    assert value in reply
    assert old is None or old not in reply
