"""The newest statement wins: "Where do I live?" after "I moved from Rome to Turin" answers Turin."""

import pytest

from conversations.services import thread_create
from memories.embedding_services import memory_embeddings_update
from memories.models import Memory
from tests.usecases.turn.helpers import reply_text, run_turn


@pytest.mark.django_db
def test_where_do_i_live_after_a_move_answers_the_new_city_in_the_same_thread_and_a_new_one(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "Remember that I live in Rome.")
    run_turn(alice, thread, "Remember that I moved from Rome to Turin.")
    active = list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True))
    assert active == ["I moved from Rome to Turin"], active
    # What the worker does after the commit (embed_memories): the memory's vector.
    memory_embeddings_update(memory_ids=list(Memory.objects.filter(user=alice).values_list("pk", flat=True)))
    same = reply_text(run_turn(alice, thread, "Where do I live?"))
    new = reply_text(run_turn(alice, thread_create(owner=alice), "Where do I live?"))
    for answer in (same, new):
        assert "Turin" in answer and "live in Rome" not in answer, answer
