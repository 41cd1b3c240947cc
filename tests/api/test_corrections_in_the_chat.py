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


@pytest.mark.worker
def test_a_correction_in_the_chat_retires_the_memory_it_corrects(worker, alice):
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

    listed = client.get("/api/me/memories").json()["results"]  # what the person sees remembered
    assert [m["content"] for m in listed if m["status"] == MemoryStatus.ACTIVE] == active
    assert [m["superseded_by"] for m in listed if "41772" in m["content"]] == [old.superseded_by_id]


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
