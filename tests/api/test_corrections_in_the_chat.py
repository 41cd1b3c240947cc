"""A correction said in the chat leaves no stale memory, through the HTTP API and a real worker.

"wait no, misread the email. it's 41782" names neither the thing nor the old value: as a pair it
says nothing, but said in the conversation the bib number was told in, it corrects that memory
(``memories.thread_evidence``). The replies are not asserted: the offline reply still quotes the
older message's line before the corrected memory (bench/README.md, session 15).
"""

import pytest

from memories.models import Memory, MemoryStatus
from memories.thread_evidence import SAID_HERE
from tests.api.chat import api_as, ask


def _conversation(user) -> str:
    return api_as(user).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]


@pytest.mark.worker
def test_a_correction_in_the_chat_retires_the_memory_it_corrects(worker, alice):
    thread = _conversation(alice)
    ask(alice, thread, "oh and my bib number came through, 41772. I'll need it for the tracking app")
    ask(alice, thread, "lovely sunny morning here, off for a walk")
    reply, _run = ask(alice, thread, "wait no, misread the email. it's 41782")
    assert "41782" in reply  # noted
    active = list(Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).values_list("content", flat=True))
    assert active == ["My bib number came through, 41782."]  # the memory put right, in its own words
    old = Memory.objects.get(user=alice, status=MemoryStatus.SUPERSEDED)
    assert SAID_HERE in old.history.first().history_change_reason and old.superseded_by.content == active[0]

    listed = api_as(alice).get("/api/me/memories").json()["results"]  # what the person sees remembered
    assert [m["content"] for m in listed if m["status"] == MemoryStatus.ACTIVE] == active
    assert [m["superseded_by"] for m in listed if "41772" in m["content"]] == [old.superseded_by_id]


@pytest.mark.worker
def test_a_correction_said_in_another_conversation_is_not_kept(worker, alice):
    first = _conversation(alice)
    ask(alice, first, "oh and my bib number came through, 41772. I'll need it for the tracking app")
    other = _conversation(alice)
    ask(alice, other, "wait no, misread the email. it's 41782")
    assert list(Memory.objects.filter(user=alice).values_list("content", "status")) == [
        ("My bib number came through, 41772.", MemoryStatus.ACTIVE)
    ]


def _active(user) -> list[str]:
    return list(Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE).values_list("content", flat=True))


@pytest.mark.worker
def test_a_correction_whose_number_comes_a_sentence_later_puts_the_memory_right(worker, alice):
    thread = _conversation(alice)
    ask(alice, thread, "Before I forget, I should keep numbers in here. My bus pass number is 6330 1147 2289.")
    ask(alice, thread, "It's a grey old day here, I might bake scones.")
    ask(
        alice,
        thread,
        "I've just got my bus pass out to check and I told you the number wrong before, I'm sorry. "
        "The last figure is a 0, not a 9. So it's 6330 1147 2280.",
    )
    assert _active(alice) == ["My bus pass number is 6330 1147 2280."]
    old = Memory.objects.get(user=alice, status=MemoryStatus.SUPERSEDED)
    assert "2289" in old.content and SAID_HERE in old.history.first().history_change_reason


MOVED = [
    (  # "another" after the new date is about another thing
        "Econometrics exam is on 12 May, and I'm already panicking",
        "exam got moved to 15 May, clash with another course apparently. 3 more days to study",
        "Exam got moved to 15 May, clash with another course apparently.",
        "12 May",
    ),
    (  # a thing moved to its new value
        "remember that the fire inspection is April 3 at 2pm, I have to clear out the back corridor",
        "fire marshal's office called, they're moving my inspection to April 10 at 2pm. thank god",
        "Fire marshal's office called, they're moving my inspection to April 10 at 2pm.",
        "April 3",
    ),
]


@pytest.mark.worker
@pytest.mark.parametrize(("told", "moved", "kept", "was"), MOVED)
def test_a_date_moved_in_the_chat_retires_the_old_one_and_is_kept_as_said(worker, alice, told, moved, kept, was):
    thread = _conversation(alice)
    ask(alice, thread, told)
    ask(alice, thread, "rainy again, the dog refuses to go out")
    ask(alice, thread, moved)
    assert kept in _active(alice)
    old = Memory.objects.get(user=alice, status=MemoryStatus.SUPERSEDED)
    assert was in old.content and SAID_HERE in old.history.first().history_change_reason
