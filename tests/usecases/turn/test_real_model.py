"""The runner through the real anthropic SDK against the fake Messages API."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.models import Run, TraceEvent
from conversations.content import text_block
from conversations.models import Message, ThreadSummary
from conversations.services import messages_append, thread_create
from memories.models import Memory
from tests.fake_anthropic import delay_reply, error_reply, text_reply, tool_use_reply
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn.graph import TurnState, initial_state
from usecases.turn.registry import get_agent
from usecases.turn.runner import run_execute
from usecases.turns import run_retry, turn_submit


@pytest.mark.django_db
def test_request_shape_cache_marker_summary_and_memories(alice, fake_anthropic, settings):
    thread = thread_create(owner=alice)
    ThreadSummary.objects.create(
        thread=thread, version=1, text="Earlier: discussed invoice INV-55.", covers_through=0, model="x"
    )
    Memory.objects.create(user=alice, content="my order is A-7781")
    fake_anthropic.script(text_reply("Your order is A-7781.", input_tokens=900, output_tokens=12, cache_read=700))

    run = run_turn(alice, thread, "what is my order?")

    assert run.status == "completed" and run.model == settings.CHAT_MODEL
    sent = fake_anthropic.message_requests()[0]
    assert sent["model"] == settings.CHAT_MODEL
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "INV-55" in sent["system"][1]["text"] and "A-7781" in sent["system"][1]["text"]
    assert {t["name"] for t in sent["tools"]} >= {"remember_fact", "recall_facts", "forget_fact", "search_history"}
    assert sent["messages"][-1]["content"][0]["text"] == "what is my order?"
    assert run.tokens_in == 900 and run.tokens_cached == 700 and run.tokens_out == 12
    assert reply_text(run) == "Your order is A-7781."


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("steps", "code"),
    [
        ([error_reply(529, "overloaded_error")] * 3, "model_unavailable"),
        ([error_reply(429, "rate_limit_error")] * 3, "rate_limited"),
        ([error_reply(400, "invalid_request_error", "prompt is too long: 300000 tokens")], "too_long"),
        ([error_reply(401, "authentication_error", "invalid x-api-key")], "model_unavailable"),
    ],
)
def test_model_failure_keeps_message_and_says_why_then_retry_completes(alice, fake_anthropic, settings, steps, code):
    settings.MODEL_MAX_RETRIES = 2
    thread = thread_create(owner=alice)
    fake_anthropic.script(*steps)
    run = run_turn(alice, thread, "hello?")
    assert run.status == "failed" and run.error_code == code and run.error_message
    assert Message.objects.filter(thread=thread, role="user").count() == 1
    assert not Message.objects.filter(thread=thread, role="assistant").exists()
    expected_calls = 1 if code in ("too_long",) or "401" in str(steps) else 3
    assert len(fake_anthropic.message_requests()) == expected_calls

    fake_anthropic.script(text_reply("Back again."))
    retry = run_retry(run=run)
    run_execute(run_id=str(retry.id))
    retry.refresh_from_db()
    assert retry.status == "completed" and retry.retry_of_id == run.id
    assert reply_text(retry) == "Back again."
    assert Message.objects.filter(thread=thread, role="user").count() == 1


@pytest.mark.django_db
def test_429_then_success_is_retried_by_the_sdk(alice, fake_anthropic, settings):
    settings.MODEL_MAX_RETRIES = 2
    fake_anthropic.script(error_reply(429, "rate_limit_error"), text_reply("ok now"))
    run = run_turn(alice, thread_create(owner=alice), "hi")
    assert run.status == "completed" and reply_text(run) == "ok now"
    assert len(fake_anthropic.message_requests()) == 2


@pytest.mark.django_db
def test_timeout_fails_with_timeout_code(alice, fake_anthropic, settings):
    settings.MODEL_TIMEOUT_SECONDS = 0.5
    settings.MODEL_MAX_RETRIES = 0
    fake_anthropic.script(delay_reply(2.0))
    run = run_turn(alice, thread_create(owner=alice), "hi")
    assert run.status == "failed" and run.error_code == "timeout"


@pytest.mark.django_db
def test_unknown_tool_and_bad_arguments_get_tool_errors_the_model_can_act_on(alice, fake_anthropic):
    fake_anthropic.script(
        tool_use_reply("delete_everything", {}),
        tool_use_reply("search_history", {"q": "wrong name"}),
        text_reply("Sorry, done."),
    )
    run = run_turn(alice, thread_create(owner=alice), "do it")
    assert run.status == "completed"
    second, third = fake_anthropic.message_requests()[1:3]
    first_result = second["messages"][-1]["content"][0]
    assert first_result["type"] == "tool_result" and first_result["is_error"] is True
    assert "no tool named 'delete_everything'" in first_result["content"]
    assert "how_to_fix" in first_result["content"]
    bad_args = third["messages"][-1]["content"][0]
    assert bad_args["is_error"] is True and "Missing argument(s): query" in bad_args["content"]
    assert TraceEvent.objects.filter(run=run, kind="tool_call").count() == 2


@pytest.mark.django_db
def test_step_cap_stops_a_tool_loop_without_orphans(alice, fake_anthropic):

    cap = get_agent("assistant").max_steps
    fake_anthropic.script(*[tool_use_reply("get_current_date", {}) for _ in range(cap + 2)])
    run = run_turn(alice, thread_create(owner=alice), "loop forever")
    assert (run.status, run.error_code) == ("failed", "step_limit")
    assert str(cap) in run.error_message
    assert len(fake_anthropic.message_requests()) == cap
    rows = list(Message.objects.filter(run=run).order_by("sequence"))
    assert rows[-1].role == "assistant" and "more tool steps" in rows[-1].text
    assert rows[-2].role == "tool"


@pytest.mark.django_db
def test_a_turn_stopped_at_the_step_limit_leaves_later_turns_and_its_retry_unharmed(alice, fake_anthropic):
    """The thread's checkpoint outlives the run: nothing of the stopped turn's ending may carry over."""

    cap = get_agent("assistant").max_steps
    thread = thread_create(owner=alice)
    fake_anthropic.script(*[tool_use_reply("get_current_date", {}) for _ in range(cap)])
    stopped = run_turn(alice, thread, "loop forever")
    assert (stopped.status, stopped.error_code) == ("failed", "step_limit")

    for i in range(3):
        fake_anthropic.script(text_reply(f"Answer {i}."))
        run = run_turn(alice, thread, f"question {i}")
        assert (run.status, run.error_code, run.error_message) == ("completed", "", "")
        assert reply_text(run) == f"Answer {i}."

    fake_anthropic.script(text_reply("Done in one step this time."))
    retry = run_retry(run=stopped)
    run_execute(run_id=str(retry.id))
    retry.refresh_from_db()
    assert (retry.status, retry.error_code) == ("completed", "")


def test_a_new_run_starts_from_a_state_that_sets_every_checkpointed_key():
    """A key the initial state leaves out keeps the previous run's value from the thread's checkpoint."""

    checkpointed = set(TurnState.__annotations__) - {"context"}
    assert set(initial_state()) == checkpointed


def _queries_for_turn(user, thread) -> int:
    _msg, run = turn_submit(user=user, thread=thread, content="what did we say?")
    with CaptureQueriesContext(connection) as ctx:
        run_execute(run_id=str(run.id))
    assert Run.objects.get(pk=run.pk).status == "completed"
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_sql_queries_per_turn_do_not_grow_with_the_thread(alice, settings):
    # Streaming writes in time-coalesced batches: a slow machine would add a batch to one turn.
    # One batch for the first words and one at the end make the count depend on the thread alone.
    settings.STREAM_FLUSH_SECONDS = 3600
    small, big = thread_create(owner=alice), thread_create(owner=alice)
    for thread, n in ((small, 10), (big, 2000)):
        messages_append(
            thread=thread,
            items=[
                {"role": "user" if i % 2 == 0 else "assistant", "content": [text_block(f"filler message {i}")]}
                for i in range(n)
            ],
        )
    small_q, big_q = _queries_for_turn(alice, small), _queries_for_turn(alice, big)
    assert small_q == big_q
    # Streaming adds a few statements per turn (the first words, the rest, the end's NOTIFY).
    assert big_q <= 34


@pytest.mark.django_db
def test_thread_keeps_tokens_sent_against_full_resend(alice, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    for i in range(12):
        run_turn(alice, thread, f"message number {i} " + "with some padding words " * 20)
    thread.refresh_from_db()
    assert 0 < thread.tokens_sent < thread.tokens_full_resend
    runs = Run.objects.filter(thread=thread)
    assert sum(r.tokens_full_resend for r in runs) == thread.tokens_full_resend
