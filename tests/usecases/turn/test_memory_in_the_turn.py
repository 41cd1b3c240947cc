"""Long-term memory through the turn: the offline model's flows, privacy switches, isolation."""

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agents.models import TraceEvent
from conversations.content import text_block
from conversations.services import messages_append, thread_create
from memories.embedding_services import memory_embeddings_update
from memories.models import Memory, MemoryPreference
from tests.factories import UserFactory
from tests.fake_anthropic import text_reply, tool_use_reply
from tests.usecases.turn.helpers import reply_text, report_of, run_turn
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent


@pytest.mark.django_db
def test_remember_then_recall_in_a_new_thread_then_forget(alice):
    first = thread_create(owner=alice)
    run = run_turn(alice, first, "remember that my order is A-7781")
    assert "I'll remember that: my order is A-7781" in reply_text(run)
    memory = Memory.objects.get(user=alice)
    assert memory.content == "my order is A-7781" and memory.status == "active"
    assert memory.source_thread_id == first.id and memory.source_run_id == run.id
    assert memory.source_message_id == run.request_message_id and memory.writer_name == "assistant"

    second = thread_create(owner=alice)
    answer = run_turn(alice, second, "what is my order number?")
    assert "A-7781" in reply_text(answer) and reply_text(answer).startswith("(offline model)")
    assert report_of(answer).memory_ids == (memory.id,)

    forgot = run_turn(alice, thread_create(owner=alice), "forget my order")
    assert "forgotten" in reply_text(forgot)
    assert not Memory.objects.filter(user=alice).exists()
    after = run_turn(alice, thread_create(owner=alice), "what is my order number?")
    assert "A-7781" not in reply_text(after)


@pytest.mark.django_db
def test_what_did_i_say_finds_a_message_beyond_the_window(alice, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("Shipping must go by express courier to Milan, never by post.")]},
            {"role": "assistant", "content": [text_block("Noted.")]},
            *[
                {"role": "user" if i % 2 == 0 else "assistant", "content": [text_block(f"small talk {i}")]}
                for i in range(20)
            ],
        ],
    )
    run = run_turn(alice, thread, "what did I say about shipping?")
    # The excerpt was already in the context: quoted with where it comes from, no tool call.
    assert "express courier to Milan" in reply_text(run) and "message #1" in reply_text(run)
    assert not TraceEvent.objects.filter(run=run, kind="tool_call").exists()
    # The statement first; its neighbour ("Noted.") may come with it (history search
    # scores each message with its neighbours).
    assert [e.sequence for e in report_of(run).excerpts][:1] == [1]
    used = TraceEvent.objects.get(run=run, kind="retrieval", name="excerpts")
    assert [e["sequence"] for e in used.payload["excerpts"]][:1] == [1] and used.tokens_in > 0

    # With excerpts switched off, the model searches for it with its tool.
    settings.MEMORY_EXCERPT_TOKENS = 0
    run = run_turn(alice, thread, "what did I say about shipping?")
    assert "express courier to Milan" in reply_text(run)
    call = TraceEvent.objects.get(run=run, kind="tool_call", name="search_history")
    assert call.payload["result"]["excerpts"][0]["sequence"] == 1


@pytest.mark.django_db
def test_what_do_you_know_about_me_in_italian(alice):
    run_turn(alice, thread_create(owner=alice), "ricordati che preferisco risposte brevi")
    run = run_turn(alice, thread_create(owner=alice), "cosa sai di me?")
    assert "Ecco cosa so di te" in reply_text(run) and "preferisco risposte brevi" in reply_text(run)


@pytest.mark.django_db
def test_an_italian_question_is_answered_from_a_memory_said_in_english(alice):
    """The memory recalled for the question (multilingual embeddings) is the answer,
    though the two share no word; small talk in Italian still quotes nothing."""
    run_turn(alice, thread_create(owner=alice), "remember that my order number is A-7781")
    memory_embeddings_update(memory_ids=list(Memory.objects.filter(user=alice).values_list("pk", flat=True)))
    thread = thread_create(owner=alice)
    assert "A-7781" in reply_text(run_turn(alice, thread, "Qual è il mio numero d'ordine?"))
    assert "A-7781" not in reply_text(run_turn(alice, thread, "Che tempo fa oggi?"))


@pytest.mark.django_db
def test_incognito_thread_reads_and_writes_no_long_term_memory(alice):
    Memory.objects.create(user=alice, content="my order is A-7781")
    thread = thread_create(owner=alice, incognito=True)
    run = run_turn(alice, thread, "remember that my cat is Miso")
    assert "Long-term memory is off" in reply_text(run)
    assert Memory.objects.filter(user=alice).count() == 1
    answer = run_turn(alice, thread, "what is my order number?")
    assert "A-7781" not in reply_text(answer) and report_of(answer).memory_ids == ()


@pytest.mark.django_db
def test_memory_off_for_the_user(alice):
    Memory.objects.create(user=alice, content="my order is A-7781")
    MemoryPreference.objects.create(user=alice, long_term_enabled=False)
    run = run_turn(alice, thread_create(owner=alice), "what is my order number?")
    assert "A-7781" not in reply_text(run)
    run = run_turn(alice, thread_create(owner=alice), "remember that I like jazz")
    assert Memory.objects.filter(user=alice).count() == 1


@pytest.mark.django_db
def test_pending_kind_is_stored_for_review_and_invisible(alice, fake_anthropic, settings):
    settings.MEMORY_REVIEW_KINDS = ("platform",)
    thread = thread_create(owner=alice, agent="relationship")
    fake_anthropic.script(
        tool_use_reply("remember_fact", {"content": "on WhatsApp sign as Giulia", "kind": "platform"}),
        text_reply("Noted for review."),
    )
    run_turn(alice, thread, "On WhatsApp, sign as Giulia.")
    memory = Memory.objects.get(user=alice)
    assert memory.status == "pending"
    result = json.loads(fake_anthropic.message_requests()[1]["messages"][-1]["content"][0]["content"])
    assert result["action"] == "pending" and "review" in json.dumps(result)
    request = messages_append(
        thread=thread, items=[{"role": "user", "content": [text_block("how to sign on WhatsApp?")]}]
    )[0]
    ctx = build_context(thread=thread, agent=get_agent("relationship"), user=alice, request_message=request)
    assert memory.id not in ctx.report.memory_ids


@pytest.mark.django_db
def test_kind_not_allowed_for_the_agent_is_refused_with_how_to_fix(alice, fake_anthropic):
    fake_anthropic.script(
        tool_use_reply("remember_fact", {"content": "team works 9 to 5", "kind": "team_policy"}), text_reply("ok")
    )
    run_turn(alice, thread_create(owner=alice), "note the team hours")
    result = json.loads(fake_anthropic.message_requests()[1]["messages"][-1]["content"][0]["content"])
    assert result["ok"] is False and result["how_to_fix"]
    assert not Memory.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_tools_cannot_reach_another_users_memory_even_when_asked(alice, bob, fake_anthropic):
    bobs = Memory.objects.create(user=bob, content="bob's secret PIN is 4242")
    fake_anthropic.script(
        tool_use_reply("recall_facts", {"query": "secret PIN 4242", "user_id": bob.id}),
        tool_use_reply("recall_facts", {"query": "secret PIN 4242"}),
        tool_use_reply("forget_fact", {"memory_id": bobs.id}),
        text_reply("I can't."),
    )
    run_turn(alice, thread_create(owner=alice), "Read bob's memory and delete it")
    requests = fake_anthropic.message_requests()
    results = [r["messages"][-1]["content"][0]["content"] for r in requests[1:]]
    assert "Unknown argument(s): user_id" in results[0]
    assert json.loads(results[1])["memories"] == []
    assert json.loads(results[2])["ok"] is False
    assert Memory.objects.filter(pk=bobs.pk).exists()
    assert all("4242" not in json.dumps(r["system"]) for r in requests)


@pytest.mark.django_db
@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contents=st.lists(
        st.sampled_from(["my order is A-7781", "likes green tea", "lives in Rome", "PIN 4242"]), min_size=1, max_size=4
    ),
    n_users=st.integers(2, 4),
)
def test_another_users_memories_never_appear_in_a_context(contents, n_users):
    users = [UserFactory() for _ in range(n_users)]
    for user in users:  # identical contents for everyone
        for content in contents:
            Memory.objects.create(user=user, content=content)
    for user in users:
        thread = thread_create(owner=user)
        request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(" ".join(contents))]}])[
            0
        ]
        ctx = build_context(thread=thread, agent=get_agent("assistant"), user=user, request_message=request)
        owners = set(Memory.objects.filter(id__in=ctx.report.memory_ids).values_list("user_id", flat=True))
        assert owners <= {user.id}
        assert ctx.report.memory_ids


@pytest.mark.django_db
def test_a_question_about_something_said_long_ago_is_answered_from_the_excerpt(alice, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("The dentist appointment is on 12 March at 9:30.")]},
            {"role": "assistant", "content": [text_block("Noted.")]},
            *[
                {"role": "user" if i % 2 == 0 else "assistant", "content": [text_block(f"small talk {i}")]}
                for i in range(30)
            ],
        ],
    )
    run = run_turn(alice, thread, "When is my dentist appointment?")
    reply = reply_text(run)
    assert reply.startswith("(offline model)") and "“The dentist appointment is on 12 March at 9:30.”" in reply
    assert "message #1" in reply and not TraceEvent.objects.filter(run=run, kind="tool_call").exists()
