"""A change told through what happened retires the older memory, though the turn stored nothing from it."""

import pytest
from rest_framework.test import APIClient

from memories.models import Memory
from tests.usecases.turn.test_newest_value import _turn
from tests.utils import wait_for
from usecases.memory_changes import change_pieces, new_value_for

SAID = [
    "remember that I start my new job at Monzo on 3 March",
    "lovely sunny morning here",
    "whats a good stretch for lower back pain",
    "Monzo asked if I could start on 17 March instead because Fiona's away the first two weeks of March, so I said yes",
    "first day nerves already lol",
]


@pytest.mark.worker
def test_a_change_told_through_what_happened_retires_the_older_memory(worker, alice):
    client = APIClient()
    client.force_authenticate(alice)
    thread = client.post("/api/threads", {"agent": "assistant", "title": "new job"}, format="json").json()["id"]
    for text in SAID:
        _turn(client, thread, text)

    def current() -> list[str] | None:
        active = list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True))
        return active if not any("3 March" in c for c in active) else None

    active = wait_for(current, what="the older start date retired")
    assert any("17 March" in c for c in active)
    old = Memory.objects.get(user=alice, content__contains="3 March")
    assert old.status == "superseded" and "17 March" in old.superseded_by.content
    # What a new conversation reads: the memories listed to the person hold the newest value only.
    listed = [m["content"] for m in client.get("/api/me/memories").json()["results"] if m["status"] == "active"]
    assert any("17 March" in c for c in listed) and not any("on 3 March" in c for c in listed)


def test_only_what_a_message_states_is_put_to_the_change_test():
    assert change_pieces("Rosa va in pensione a fine mese. Dal primo arriva Annalisa. Mi rifai le istruzioni?") == [
        "Rosa va in pensione a fine mese. Dal primo arriva Annalisa.",
        "Rosa va in pensione a fine mese.",
        "Dal primo arriva Annalisa.",
    ]
    assert change_pieces("what's my submission deadline now?") == []


def test_a_change_gives_the_memory_a_new_value_of_the_same_thing():
    memory = "Got the offer from Monzo last week, Head of Brand Marketing, starting 3 March"
    assert new_value_for("Monzo asked if I could start on 17 March instead", memory)
    assert not new_value_for("first day tomorrow, nervous now", memory)  # no value
    assert not new_value_for("Help me budget: the rectory turned out to be 7200 now", memory)  # another thing's
    assert not new_value_for("Monzo is great now", memory)  # no new value
    # News about the memory's subject that replaces none of its values.
    assert not new_value_for("but he's 5.2 kg now, Dr. Okafor said he's doing great", "our pediatrician is Dr. Okafor")
