"""The offline reply gives the value however the person asks, through the HTTP API and a real worker.

Each conversation states its facts among small talk (out of the window when asked), then asks
as the development chats' writers did (w52: older people new to assistants; w53: Italian–English
code-switching): in the other language, as a request to be reminded, or after a correction that
says no change word; the value is in the line quoted first.
"""

import pytest

from tests.api.chat import ask, chat_with_small_talk


@pytest.mark.worker
@pytest.mark.parametrize(
    ("said", "question", "value", "not_said"),
    [
        pytest.param(
            ["My sister Emily is coming from Leeds next month, first time in Bologna",
             "il mio gatto si chiama Pippo, dorme sempre sul mio letto"],
            "my sister wants to send a toy for my cat, what's his name?",
            "Pippo",
            None,
            id="asked in English, said in Italian",
        ),
        pytest.param(
            ["I'm allergic to penicillin, found out the hard way as a kid"],
            "the new dentist wants to prescribe me something, remind me what I'm allergic to so I tell him",
            "penicillin",
            "Noted",
            id="a request to be reminded",
        ),
        pytest.param(
            ["our beekeepers club meets the second Tuesday of the month in Hamilton",
             "I looked at the club newsletter and I told you wrong about the meetings. "
             "It's the third Tuesday of the month, not the second."],
            "when does the beekeepers club meet?",
            "third Tuesday",
            "Hamilton",
            id="which weekday of the month, corrected",
        ),
        pytest.param(
            ["our neighbour Brian at number 12 has a spare key to the house",
             "the worst pothole is outside number 84, Mrs Patel's car lost a hubcap in it"],
            "If we go to Scarborough in August, who did I say has the spare key?",
            "Brian",
            "pothole",
            id="a change of another thing is no correction",
        ),
    ],
)  # fmt: skip
def test_the_reply_gives_the_value_however_it_is_asked(worker, alice, said, question, value, not_said):
    thread_id = chat_with_small_talk(alice, said)
    reply, _run = ask(alice, thread_id, question)
    first_quote = reply.split("”")[0]
    assert value in first_quote
    assert not_said is None or not_said not in reply
