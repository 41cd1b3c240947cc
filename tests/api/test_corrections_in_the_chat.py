"""A correction said in the chat leaves no stale memory, through the HTTP API and a real worker.

"wait no, misread the email. it's 41782" names neither the thing nor the old value: as a pair it
says nothing, but said in the conversation the bib number was told in, it corrects that memory
(``memories.thread_evidence``), and a new conversation answers with the newest value.
"""

import pytest

from memories.models import Memory, MemoryStatus
from memories.thread_evidence import SAID_HERE
from tests.api.chat import api_as, ask


@pytest.mark.worker
def test_a_correction_in_the_chat_retires_the_memory_and_every_answer_gives_the_newest_value(worker, alice):
    client = api_as(alice)
    thread = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    ask(alice, thread, "oh and my bib number came through, 41772. I'll need it for the tracking app")
    ask(alice, thread, "lovely sunny morning here, off for a walk")
    reply, _run = ask(alice, thread, "wait no, misread the email. it's 41782")
    assert "41782" in reply  # noted
    active = list(Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).values_list("content", flat=True))
    assert active == ["My bib number came through, 41782."]  # the memory put right, in its own words
    old = Memory.objects.get(user=alice, status=MemoryStatus.SUPERSEDED)
    assert SAID_HERE in old.history.first().history_change_reason and old.superseded_by.content == active[0]

    other = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    new, _run = ask(alice, other, "what's my bib number?")
    assert "41782" in new and ("41772" not in new or new.index("41782") < new.index("41772"))


@pytest.mark.worker
def test_a_correction_said_in_another_conversation_is_not_kept(worker, alice):
    client = api_as(alice)
    first = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    ask(alice, first, "oh and my bib number came through, 41772. I'll need it for the tracking app")
    other = client.post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    ask(alice, other, "wait no, misread the email. it's 41782")
    assert list(Memory.objects.filter(user=alice).values_list("content", "status")) == [
        ("My bib number came through, 41772.", MemoryStatus.ACTIVE)
    ]
