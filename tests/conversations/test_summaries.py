"""The rolling summary: written in the background, keeps what matters, one version per change."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agents.models import TraceEvent
from config.celery import app
from conversations.content import text_block
from conversations.facts import fact_in_text, with_key_facts
from conversations.models import Message, Thread, ThreadSummary
from conversations.selectors import summary_current
from conversations.services import message_correct, messages_append, thread_create
from conversations.summarizer import EXTRACTIVE_MODEL, KEY_FACTS_PREFIX, extractive_summary, summary_cut
from conversations.summary_policy import (
    PRIOR_REMAINING_TURNS,
    expected_remaining_turns,
    finished_thread_lengths,
    policy_cache_clear,
)
from conversations.summary_services import thread_summary_update
from memories.matching.change import statement_changes
from tests.factories import RunFactory
from tests.fake_anthropic import delay_reply, error_reply, text_reply
from tests.utils import wait_for
from tests.worker import WorkerProcess
from usecases.tasks import summarize_thread
from usecases.thread_summary import thread_summarize

FACTS = ("A-7781", "€1,250.00", "2026-03-14")
EARLY = "My order A-7781 of €1,250.00 must be delivered by 2026-03-14, that is the deadline."


@pytest.fixture(autouse=True)
def _fresh_policy_cache():
    policy_cache_clear()
    yield
    policy_cache_clear()


def say(role: str, text: str) -> dict:
    return {"role": role, "content": [text_block(text)]}


def chat(thread: Thread, turns: int, *, first: str | None = None, offset: int = 0) -> None:
    """``turns`` user/assistant exchanges with greetings, rephrasings and a few decisions."""
    items = []
    if first:
        items += [say("user", f"Hello! {first}"), say("assistant", "Thanks, noted. I will keep that in mind.")]
    for i in range(offset, offset + turns):
        items.append(say("user", f"Hi again. Can you check the courier options for parcel batch {i}?"))
        items.append(say("assistant", f"Sure! We decided to ship batch {i} with the express courier. Anything else?"))
    messages_append(thread=thread, items=items)


# --- In the background, on the real worker ------------------------------------------------


@pytest.mark.worker
def test_long_conversation_is_summarized_in_the_background(worker, alice, settings):
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)  # 42 messages
    run = RunFactory(thread=thread, status="completed")

    summarize_thread.delay(str(thread.id), str(run.id))

    summary = wait_for(lambda: summary_current(thread=thread), timeout=60, what="the background summary")
    assert summary.version == 1
    # Everything but the last MEMORY_WINDOW rows is covered.
    assert summary.covers_through == 42 - settings.MEMORY_WINDOW
    assert summary.model == EXTRACTIVE_MODEL
    for fact in FACTS:
        assert fact in summary.text
    assert "Hello" not in summary.text and "Anything else" not in summary.text
    # The trace is written on the run once the summary is committed: a moment later.
    event = wait_for(
        lambda: TraceEvent.objects.filter(run=run, kind="summary").first(), timeout=30, what="the summary's trace"
    )
    assert event.payload["outcome"] == "created"
    assert event.payload["decision"] in {"pays", "over_budget"}
    assert event.payload["covers_through"] == summary.covers_through
    assert event.payload["expected_remaining_turns"] > 0
    # Figures, never the summary text.
    assert summary.text not in json.dumps(event.payload)
    assert "A-7781" not in json.dumps(event.payload)


# --- What the summary keeps -------------------------------------------------------------------


@pytest.mark.django_db
def test_identifiers_survive_ten_compressions(alice, settings):
    settings.MEMORY_WINDOW = 4
    settings.SUMMARY_MAX_TOKENS = 120  # small: old lines must be dropped from the body
    settings.SUMMARY_REBUILD_EVERY = 5
    thread = thread_create(owner=alice)
    chat(thread, 3, first=EARLY)

    versions = []
    for round_ in range(10):
        chat(thread, 4, offset=100 * round_)
        outcome = thread_summary_update(thread_id=thread.id, change_judge=statement_changes)
        assert outcome.status == "created", outcome.payload
        versions.append(outcome.summary)
        for fact in FACTS:
            assert fact in outcome.summary.text, (round_, outcome.summary.text)

    assert [v.version for v in versions] == list(range(1, 11))
    assert [v.version for v in versions if v.rebuilt_from_source] == [5, 10]
    last = versions[-1]
    # The batch numbers the body had no room for are on the key-facts line.
    facts_line = next(line for line in last.text.splitlines() if line.startswith(KEY_FACTS_PREFIX))
    assert all(str(n) in facts_line.split("; ") or str(n) in last.text for n in (101, 502, 801))
    assert "Hi again" not in last.text and "Anything else" not in last.text
    # The summary's own line labels ("User (#3):") are not facts: a trimmed line leaves none behind.
    assert not any(fact.startswith("#") for fact in facts_line.removeprefix(KEY_FACTS_PREFIX).split("; "))


def dated(thread: Thread, when: datetime, *items: tuple[str, str]) -> None:
    """Messages said on ``when`` (their own ``created_at``)."""
    rows = messages_append(thread=thread, items=[say(role, text) for role, text in items])
    Message.objects.filter(pk__in=[r.pk for r in rows]).update(created_at=when)


def filler(thread: Thread, n: int, when: datetime) -> None:
    dated(thread, when, *[("user", "Totally agree.") if i % 2 == 0 else ("assistant", "Can't wait!") for i in range(n)])


@pytest.mark.django_db
def test_relative_dates_become_the_date_they_meant(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    monday = datetime(2026, 3, 16, 10, tzinfo=UTC)
    dated(
        thread,
        monday,
        ("user", "I went to the Milan trade fair yesterday and met Giulia Bianchi."),
        ("user", "Ieri ho firmato il contratto con Acme, e la settimana scorsa ho visitato Torino."),
        ("user", "Next month we move the warehouse to Verona."),
    )
    filler(thread, 4, monday + timedelta(days=30))

    text = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text

    # "yesterday" and "ieri" on 2026-03-16 were 2026-03-15; "last week" the week of Monday 2026-03-09.
    assert text.startswith("2026-03-16:\n- User: I went to the Milan trade fair [2026-03-15] and met Giulia Bianchi.")
    assert "[2026-03-15] ho firmato il contratto con Acme" in text
    assert "[settimana del 2026-03-09] ho visitato Torino" in text
    assert "[2026-04] we move the warehouse to Verona" in text
    assert "yesterday" not in text and "Ieri" not in text and "Next month" not in text
    # A resolved date is not a typed identifier: none lands on the key-facts line.
    assert KEY_FACTS_PREFIX not in text


@pytest.mark.django_db
def test_small_talk_is_dropped_and_a_purchase_keeps_its_name_and_amount(alice, settings):
    settings.MEMORY_WINDOW = 2
    thread = thread_create(owner=alice)
    when = datetime(2026, 5, 4, 9, tzinfo=UTC)
    dated(
        thread,
        when,
        ("user", "Hey! How are you?"),
        ("assistant", "Great, thanks! So good to hear from you."),
        ("user", "Totally agree. Can't wait! Thanks!"),
        ("assistant", "That's awesome, you deserve it!"),
        ("user", "Wow. We decided to buy the Fiat Panda for 7,500 euros, and I booked the pickup in Bologna."),
        ("assistant", "Haha, love that. You're amazing!"),
        ("user", "Thanks so much, see you!"),
        ("assistant", "Bye!"),
    )

    text = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text

    assert text == (
        "2026-05-04:\n- User: We decided to buy the Fiat Panda for 7,500 euros, and I booked the pickup in Bologna."
    )


@pytest.mark.django_db
def test_an_unchanged_summary_writes_no_version_and_the_trace_says_so(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    when = datetime(2026, 5, 4, 9, tzinfo=UTC)
    dated(thread, when, ("user", "My order A-7781 of €1,250.00 ships to Genoa on 2026-03-14."))
    filler(thread, 5, when)
    first = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True)
    assert first.status == "created"
    filler(thread, 6, when)  # nothing worth a line
    run = RunFactory(thread=thread, status="completed")

    outcome = thread_summarize(thread_id=thread.id, run_id=run.id, force=True)

    assert outcome.status == "unchanged"
    assert ThreadSummary.objects.filter(thread=thread).count() == 1
    current = summary_current(thread=thread)
    assert current.version == 1 and current.text == first.summary.text
    # The same text now stands for the newer small talk too: it is not read again.
    assert current.covers_through == 12 - settings.MEMORY_WINDOW
    event = TraceEvent.objects.get(run=run, kind="summary")
    assert event.payload["outcome"] == "unchanged"
    assert event.payload["version_written"] is False
    assert event.payload["version"] == 1
    assert thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).status == "up_to_date"


@pytest.mark.django_db
def test_a_correction_note_replaces_the_wrong_statement_in_the_summary(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    when = datetime(2026, 5, 4, 9, tzinfo=UTC)
    dated(thread, when, ("user", "My new manager is Paolo Rossi, he starts in Turin."))
    filler(thread, 3, when)
    wrong = Message.objects.get(thread=thread, sequence=1)
    note = message_correct(message=wrong, right_value="Paolo Bianchi", about="the manager's name")
    Message.objects.filter(pk=note.pk).update(created_at=when)
    filler(thread, 4, when)

    text = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True).summary.text

    assert "- User: My new manager is Paolo Rossi" not in text
    (line,) = [x for x in text.splitlines() if x.startswith("- Note: ")]
    assert "the right value is: Paolo Bianchi" in line


def test_the_extractive_fallback_keeps_the_fast_model_lines_it_cannot_parse():
    previous = "2026-05-04:\n- User: Ordered the Fiat Panda for 7,500 euros.\n- The user prefers e-mail to calls."

    summary = extractive_summary(previous_text=previous, messages=[], budget=400, change_judge=statement_changes)
    assert summary == previous


def test_identifiers_survive_as_whole_tokens_only():
    assert not fact_in_text("18", "order #184")
    assert not fact_in_text("A-77", "ticket A-7781")
    assert not fact_in_text("7781", "ticket A-7781")
    assert fact_in_text("18", "I turned 18.")
    assert fact_in_text("€1,250.00", "paid €1,250.00, then left")
    # "18" and "A-77" are lost even though "#184" and "A-7781" contain them: they are added back.
    body, added = with_key_facts(body="- Order #184 and ticket A-7781.", source="Room 18, code A-77, order #184.")
    assert added == 2
    assert body.splitlines()[-1] == f"{KEY_FACTS_PREFIX} 18; A-77"


@pytest.mark.django_db
def test_the_cut_never_separates_a_tool_call_from_its_result(alice, settings):
    settings.MEMORY_WINDOW = 3
    thread = thread_create(owner=alice)
    chat(thread, 3)  # 6 messages
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "recall_facts", "input": {"query": "order"}}
    messages_append(
        thread=thread,
        items=[
            say("user", "What do you remember about my order?"),  # 7
            {"role": "assistant", "content": [tool_use]},  # 8
            {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "A-7781"}]},
            say("assistant", "Your order is A-7781."),  # 10
            say("user", "Thanks, we decided to keep it."),  # 11
        ],
    )
    rows = list(Message.objects.filter(thread=thread).order_by("sequence"))
    # The last 3 rows would start at the tool result (#9): the cut moves before the tool_use.
    assert summary_cut(rows, window=3) == 7

    outcome = thread_summary_update(thread_id=thread.id, change_judge=statement_changes, force=True)
    assert outcome.summary.covers_through == 7


@pytest.mark.django_db
def test_two_deliveries_make_one_version(alice):
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)

    first = summarize_thread.apply(args=[str(thread.id)]).get()
    second = summarize_thread.apply(args=[str(thread.id)]).get()

    assert first["status"] == "created"
    assert second == {"status": "up_to_date"}
    assert ThreadSummary.objects.filter(thread=thread).count() == 1


@pytest.mark.django_db(transaction=True)
def test_overlapping_deliveries_make_one_version(alice, fake_anthropic):
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    # The first delivery is slow in the model call; the second arrives meanwhile.
    fake_anthropic.script(delay_reply(2, text_reply("- Order A-7781 ships express.")), text_reply("- Other."))
    results: list[str] = []

    def deliver() -> None:
        try:
            results.append(thread_summary_update(thread_id=thread.id, change_judge=statement_changes).status)
        finally:
            connection.close()

    first = threading.Thread(target=deliver)
    first.start()
    wait_for(lambda: fake_anthropic.requests, what="the first delivery's model call")
    second = threading.Thread(target=deliver)
    second.start()
    second.join(10)
    first.join(10)

    assert sorted(results) == ["busy", "created"]
    assert ThreadSummary.objects.filter(thread=thread).count() == 1
    assert len(fake_anthropic.message_requests()) == 1


@pytest.mark.django_db(transaction=True)
def test_the_model_is_called_in_no_transaction_and_a_second_job_waits_for_none(alice, fake_anthropic):
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    fake_anthropic.script(delay_reply(2, text_reply("- Order A-7781 ships express.")))
    results: list[str] = []
    pids: list[int] = []

    def deliver() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pids.append(cursor.fetchone()[0])
            results.append(thread_summary_update(thread_id=thread.id, change_judge=statement_changes).status)
        finally:
            connection.close()

    job = threading.Thread(target=deliver)
    job.start()
    wait_for(lambda: fake_anthropic.requests, what="the job's model call")
    with connection.cursor() as cursor:
        cursor.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", [pids[0]])
        job_state = cursor.fetchone()[0]
    # Meanwhile a turn appends to the thread without waiting for the job.
    messages_append(thread=thread, items=[{"role": "user", "content": [text_block("one more thing")]}])
    appended_while_the_model_thinks = job.is_alive()
    job.join(10)

    assert job_state == "idle"  # not "idle in transaction": no transaction waits on the model
    assert appended_while_the_model_thinks
    assert results == ["created"]
    assert not Thread.objects.filter(pk=thread.pk).exclude(summary_claim="").exists()  # the claim is released


@pytest.mark.django_db
def test_summary_switched_off_does_nothing(alice, settings):
    settings.MEMORY_SUMMARY_ENABLED = False
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    run = RunFactory(thread=thread, status="completed")

    result = summarize_thread.apply(args=[str(thread.id), str(run.id)]).get()

    assert result == {"status": "disabled"}
    assert not ThreadSummary.objects.filter(thread=thread).exists()
    assert not TraceEvent.objects.filter(run=run).exists()


# --- The fast model ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_fast_model_summary_gets_lost_identifiers_back(alice, fake_anthropic, settings):
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    run = RunFactory(thread=thread, status="completed")
    # The model paraphrases and loses the exact figures.
    fake_anthropic.script(text_reply("- The user wants an order delivered before a deadline.", input_tokens=900))

    outcome = thread_summarize(thread_id=thread.id, run_id=run.id)

    (request,) = fake_anthropic.message_requests()
    assert request["model"] == settings.FAST_MODEL
    system = request["system"][0]["text"]
    assert "identifiers" in system and "YYYY-MM-DD" in system and "small talk" in system
    # Each message comes with its own date, so the model can resolve "yesterday".
    assert f"[#1 {timezone.now().date().isoformat()} user] Hello!" in request["messages"][0]["content"]
    assert "A-7781" in request["messages"][0]["content"]
    summary = outcome.summary
    assert summary.model == settings.FAST_MODEL
    assert summary.text.startswith("- The user wants an order delivered")
    facts_line = summary.text.splitlines()[-1]
    assert facts_line.startswith(KEY_FACTS_PREFIX)
    assert all(fact in facts_line for fact in FACTS)
    event = TraceEvent.objects.get(run=run, kind="summary")
    assert event.payload["facts_added"] >= 3
    assert event.payload["model"] == settings.FAST_MODEL
    assert event.tokens_in == 900


@pytest.mark.django_db
def test_rate_limited_model_is_retried_then_the_extractive_summary_is_used(alice, fake_anthropic, settings):
    settings.MODEL_MAX_RETRIES = 0  # the SDK's own retries off: count the task's
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    fake_anthropic.script(*[error_reply(429, "rate_limit_error") for _ in range(10)])

    summarize_thread.apply(args=[str(thread.id)])

    # One call and five retries, each refused; then the context is kept bounded anyway.
    assert len(fake_anthropic.message_requests()) == 6
    summary = summary_current(thread=thread)
    assert summary.version == 1
    assert summary.model == EXTRACTIVE_MODEL
    assert "A-7781" in summary.text


# --- Pays or waits ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_expected_remaining_turns_come_from_finished_threads(alice):
    assert expected_remaining_turns(turns_so_far=10, lengths=finished_thread_lengths()) == (PRIOR_REMAINING_TURNS, 0)

    for _ in range(10):
        finished = thread_create(owner=alice)
        chat(finished, 12)
    Thread.objects.update(last_activity_at=timezone.now() - timedelta(days=3))
    policy_cache_clear()

    lengths = finished_thread_lengths()
    assert lengths == [12] * 10
    remaining, observed = expected_remaining_turns(turns_so_far=10, lengths=lengths)
    # Ten threads that went two turns further, shrunk towards the prior of ten.
    assert observed == 10
    assert remaining == pytest.approx((10 * 2 + 5 * PRIOR_REMAINING_TURNS) / 15)


@pytest.mark.django_db
def test_a_thread_longer_than_every_finished_one_is_decided_as_if_counted_to_its_end(alice, settings):
    """The turns are counted up to the longest finished thread's: past it no finished thread
    ran longer either way, so the decision is the whole count's, read in a bounded statement."""
    settings.MEMORY_WINDOW = 4
    for _ in range(3):
        chat(thread_create(owner=alice), 5)
    Thread.objects.update(last_activity_at=timezone.now() - timedelta(days=3))
    thread = thread_create(owner=alice)
    chat(thread, 12)
    run = RunFactory(thread=thread, status="completed")

    with CaptureQueriesContext(connection) as queries:
        thread_summarize(thread_id=thread.id, run_id=run.id)

    event = TraceEvent.objects.get(run=run, kind="summary")
    assert event.payload["turns_so_far"] == 5 and event.payload["turns_counted_up_to"] == 5
    # The same remaining turns as the thread's 12: no finished thread is longer than either.
    assert expected_remaining_turns(turns_so_far=12, lengths=[5, 5, 5]) == (PRIOR_REMAINING_TURNS, 0)
    assert event.payload["expected_remaining_turns"] == PRIOR_REMAINING_TURNS
    counts = [q["sql"] for q in queries if "COUNT(*)" in q["sql"] and "conversations_message" in q["sql"]]
    assert counts and all("LIMIT 5" in sql for sql in counts)


@pytest.mark.django_db
def test_a_small_aged_out_span_behind_a_large_summary_waits_when_the_model_would_be_paid(
    alice, settings, fake_anthropic
):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    chat(thread, 3)  # 6 messages: #1 summarized, #2 aged out, #3-#6 the window
    ThreadSummary.objects.create(
        thread=thread, version=1, text="- long summary", covers_through=1, model=EXTRACTIVE_MODEL, token_estimate=700
    )
    run = RunFactory(thread=thread, status="completed")

    outcome = thread_summarize(thread_id=thread.id, run_id=run.id)

    assert outcome.status == "waited"
    assert ThreadSummary.objects.filter(thread=thread).count() == 1
    assert not fake_anthropic.message_requests()
    event = TraceEvent.objects.get(run=run, kind="summary")
    assert event.payload["decision"] == "waits"
    # The fast model's upkeep: the call's input (instructions, summary, aged-out messages) and its output.
    assert event.payload["model_call"] is True
    assert event.payload["upkeep_input_tokens"] > 700
    assert event.payload["cost_compress"] >= event.payload["cost_keep"]
    assert event.payload["uncovered_messages"] == 1


@pytest.mark.django_db
def test_without_an_api_key_no_model_upkeep_is_counted(alice, settings):
    settings.MEMORY_WINDOW = 4
    thread = thread_create(owner=alice)
    chat(thread, 3)
    run = RunFactory(thread=thread, status="completed")

    thread_summarize(thread_id=thread.id, run_id=run.id)

    event = TraceEvent.objects.get(run=run, kind="summary")
    assert event.payload["model_call"] is False
    assert event.payload["upkeep_input_tokens"] == 0 and event.tokens_in == 0


# --- Redelivery after a worker dies (Redis) -----------------------------------------------------

REDELIVERY_QUEUE = "liamemory-test-redelivery"
REDELIVERY_BROKER = "redis://127.0.0.1:6379/12"
VISIBILITY = 3


@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_summary_gives_exactly_one_version(alice, fake_anthropic, settings, tmp_path):
    import redis

    redis.Redis.from_url(REDELIVERY_BROKER).flushdb()
    # A queue of its own, so the session's worker never takes this task.
    settings.CELERY_TASK_DEFAULT_QUEUE = REDELIVERY_QUEUE
    env = {
        "CELERY_BROKER_URL": REDELIVERY_BROKER,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY),
        "LIAMEMORY_FAKE_ANTHROPIC_URL": fake_anthropic.url,
    }
    thread = thread_create(owner=alice)
    chat(thread, 20, first=EARLY)
    fake_anthropic.script(
        delay_reply(30, text_reply("- never delivered")), text_reply("- Order A-7781 ships by 2026-03-14.")
    )

    first = WorkerProcess(tmp_path / "first.log", extra_env=env).start()
    second = WorkerProcess(tmp_path / "second.log", extra_env=env)
    try:
        with app.connection_for_write(REDELIVERY_BROKER) as conn:
            summarize_thread.apply_async(args=[str(thread.id)], queue=REDELIVERY_QUEUE, connection=conn)
        wait_for(lambda: fake_anthropic.requests, timeout=30, what="the first worker's model call")
        delivered_at = time.monotonic()
        first.kill()
        assert not ThreadSummary.objects.filter(thread=thread).exists()

        # The unacknowledged task becomes visible again after the visibility timeout;
        # a worker restores such tasks when it starts.
        time.sleep(max(0.0, delivered_at + VISIBILITY + 1 - time.monotonic()))
        second.start()
        wait_for(
            lambda: ThreadSummary.objects.filter(thread=thread).exists(), timeout=60, what="the redelivered summary"
        )
        time.sleep(VISIBILITY + 2)  # room for a duplicate, were there one
    finally:
        first.stop()
        second.stop()

    summaries = list(ThreadSummary.objects.filter(thread=thread))
    assert len(summaries) == 1
    assert summaries[0].text.startswith("- Order A-7781 ships")
    assert len(fake_anthropic.message_requests()) == 2
