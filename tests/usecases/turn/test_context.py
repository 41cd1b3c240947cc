"""Context assembly: order of the parts, whole-turn windows, the token budget."""

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from conversations import vector_search
from conversations.content import text_block
from conversations.models import Message, ThreadSummary
from conversations.services import messages_append, thread_create
from conversations.summary_services import thread_summary_update
from memories.matching.change import statement_changes
from memories.models import Memory, MemoryPreference
from usecases.turn.context import (
    EXCERPT_HEADING,
    MEMORY_HEADING,
    OVERRIDE_LINE,
    SUMMARY_HEADING,
    asks_about_something,
    build_context,
)
from usecases.turn.registry import get_agent
from usecases.turn.window import cut_to_whole_turns, drop_oldest_turn


def _turns(thread, n: int, with_tools_every: int = 0) -> None:
    items = []
    for i in range(n):
        items.append({"role": "user", "content": [text_block(f"question {i}")]})
        if with_tools_every and i % with_tools_every == 0:
            tid = f"toolu_{i}"
            items.append(
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": "recall_facts", "input": {"query": "x"}}],
                }
            )
            items.append({"role": "tool", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "{}"}]})
        items.append({"role": "assistant", "content": [text_block(f"answer {i}")]})
    messages_append(thread=thread, items=items)


@pytest.mark.django_db
def test_stable_block_first_then_summary_and_memories(alice):
    thread = thread_create(owner=alice)
    _turns(thread, 15)
    ThreadSummary.objects.create(
        thread=thread, version=1, text="User is planning a trip to Rome.", covers_through=10, model="offline"
    )
    Memory.objects.create(user=alice, content="prefers window seats on trains")
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("book seats on trains")]}])[
        0
    ]

    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)

    stable, dynamic = ctx.system
    assert stable["cache_control"] == {"type": "ephemeral"}
    assert "Summary" not in stable["text"] and "window seats" not in stable["text"]
    assert dynamic["text"].index(SUMMARY_HEADING) < dynamic["text"].index(MEMORY_HEADING)
    assert "trip to Rome" in dynamic["text"] and "prefers window seats on trains" in dynamic["text"]
    assert OVERRIDE_LINE in dynamic["text"]
    assert "cache_control" not in dynamic
    # Messages covered by the summary are not repeated in the window.
    texts = [b["text"] for m in ctx.messages for b in m["content"] if b["type"] == "text"]
    assert "question 0" not in texts and texts[-1] == "book seats on trains"
    assert ctx.report.summary_version == 1 and ctx.report.memory_ids
    assert ctx.messages[0]["role"] == "user"


@pytest.mark.django_db
def test_window_is_cut_at_whole_turns_and_uncovered_messages_are_counted(alice, settings):
    settings.MEMORY_WINDOW = 7
    thread = thread_create(owner=alice)
    _turns(thread, 10, with_tools_every=1)  # every turn: user, tool_use, tool_result, answer
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("now?")]}])[0]
    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)
    assert ctx.messages[0]["role"] == "user"
    assert not any(b["type"] == "tool_result" for b in ctx.messages[0]["content"])
    assert_no_orphans(ctx.messages)
    assert ctx.report.uncovered_messages == ctx.report.window_first_sequence - 1 > 0


@pytest.mark.django_db
def test_budget_drops_whole_old_turns_never_the_current_message(alice, settings):
    settings.MODEL_CONTEXT_WINDOW = 4000
    settings.TOKENS_RESERVED_FOR_ANSWER = 500
    settings.MEMORY_WINDOW_TOKENS = 0  # the model's budget alone
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            item
            for i in range(8)
            for item in (
                {"role": "user", "content": [text_block(f"long question {i} " + "x" * 1500)]},
                {"role": "assistant", "content": [text_block(f"answer {i}")]},
            )
        ],
    )
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("the current one")]}])[0]
    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)
    assert ctx.report.estimated_tokens <= ctx.report.budget
    assert ctx.report.dropped_for_budget > 0
    assert ctx.messages[-1]["content"][0]["text"] == "the current one"
    assert ctx.messages[0]["role"] == "user"


@pytest.mark.django_db
def test_constraints_are_reasserted_last(alice):
    thread = thread_create(owner=alice, agent="relationship")
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("discount please")]}])[0]
    ctx = build_context(thread=thread, agent=get_agent("relationship"), user=alice, request_message=request)
    last_block = ctx.messages[-1]["content"][-1]["text"]
    assert last_block.startswith("Reminder of your constraints:") and "request_approval" in last_block


@pytest.mark.django_db
def test_volatile_data_never_in_system_prompt(alice):
    from django.utils import timezone

    thread = thread_create(owner=alice)
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("what day is it")]}])[0]
    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)
    system_text = " ".join(b["text"] for b in ctx.system)
    assert timezone.now().date().isoformat() not in system_text
    assert "get_current_date" in [t["name"] for t in ctx.tools]


# --- property: no orphaned tool result, in either shape ---------------------------------


def assert_no_orphans(items):
    seen_calls = set()
    for item in items:
        if item.get("type") == "function_call":
            seen_calls.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in seen_calls, "function_call_output without its call"
        else:
            for block in item.get("content", []) if isinstance(item.get("content"), list) else []:
                if block.get("type") == "tool_use":
                    seen_calls.add(block["id"])
                elif block.get("type") == "tool_result":
                    assert block["tool_use_id"] in seen_calls, "tool_result without its tool_use"


turn_shapes = st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=12)


def _anthropic_items(spec):
    items, n = [], 0
    for tool_calls, final_text in spec:
        items.append({"role": "user", "content": [{"type": "text", "text": "q"}]})
        for _ in range(tool_calls):
            n += 1
            items.append(
                {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "x", "input": {}}]}
            )
            items.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "r"}]})
        if final_text:
            items.append({"role": "assistant", "content": [{"type": "text", "text": "a"}]})
    return items


def _responses_items(spec):
    items, n = [], 0
    for tool_calls, final_text in spec:
        items.append({"type": "message", "role": "user", "content": "q"})
        for _ in range(tool_calls):
            n += 1
            items.append({"type": "function_call", "call_id": f"c{n}", "name": "x", "arguments": "{}"})
            items.append({"type": "function_call_output", "call_id": f"c{n}", "output": "r"})
        if final_text:
            items.append({"type": "message", "role": "assistant", "content": "a"})
    return items


@hsettings(max_examples=300, deadline=None)
@given(spec=turn_shapes, cut=st.integers(0, 60), drops=st.integers(0, 5))
@pytest.mark.parametrize("shape", [_anthropic_items, _responses_items])
def test_cutting_never_orphans_a_tool_result(shape, spec, cut, drops):
    items = shape(spec)
    window = cut_to_whole_turns(items[min(cut, len(items)) :])
    assert_no_orphans(window)
    for _ in range(drops):
        window, _n = drop_oldest_turn(window)
        assert_no_orphans(window)
    if window:
        assert window[0].get("role") == "user"
        assert window[-1] == items[-1]  # the newest item is always kept


@pytest.mark.django_db
def test_after_a_background_summary_the_next_context_is_window_plus_summary(alice, settings):

    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("My order A-7781 ships to Milan.")]},
            {"role": "assistant", "content": [text_block("Noted.")]},
        ],
    )
    _turns(thread, 30)
    thread_summary_update(thread_id=thread.pk, change_judge=statement_changes, force=True, use_model=False)
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("status?")]}])[0]
    thread.refresh_from_db()
    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)
    assert ctx.report.summary_version == 1
    assert "A-7781" in ctx.system[1]["text"]
    # Only the message that aged out since the summary (the new request pushed it) is uncovered.
    assert len(ctx.messages) <= 6 and ctx.report.uncovered_messages <= 1
    assert ctx.report.estimated_tokens < ctx.report.full_resend_tokens


# --- older excerpts of the thread ----------------------------------------------------

SMALL_TALK = [
    "Hi, how are you doing today?",
    "Thanks, that was helpful!",
    "Nice weather today :)",
    "How was your weekend?",
    "Good morning! Anything new?",
    "Ciao, come stai oggi?",
]


def _long_thread(owner, *, statement: str, chatter: int = 40):
    """A statement, then ``chatter`` exchanges of small talk that share everyday words with it."""
    thread = thread_create(owner=owner)
    items = [
        {"role": "user", "content": [text_block(statement)]},
        {"role": "assistant", "content": [text_block("Noted.")]},
    ]
    for i in range(chatter):
        items.append({"role": "user", "content": [text_block(f"Nice weather today, a good weekend ahead ({i}).")]})
        items.append({"role": "assistant", "content": [text_block(f"Glad to hear it, have a good day ({i}).")]})
    messages_append(thread=thread, items=items)
    return thread


def _ask(owner, thread, text):
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(text)]}])[0]
    thread.refresh_from_db()
    return build_context(thread=thread, agent=get_agent("assistant"), user=owner, request_message=request)


@pytest.mark.django_db
def test_an_old_statement_beyond_the_window_reaches_the_context_when_asked_about(alice):
    thread = _long_thread(alice, statement="My passport number is YA4471902 and it expires in March 2029.")
    ctx = _ask(alice, thread, "When does my passport expire?")

    assert ctx.report.window_first_sequence > 1  # the statement is far outside the window
    assert [e.sequence for e in ctx.report.excerpts][:1] == [1]
    stable, dynamic = ctx.system
    assert "YA4471902" not in stable["text"] and "cache_control" in stable  # the cached prefix is untouched
    date = thread.messages.get(sequence=1).created_at.date().isoformat()
    assert EXCERPT_HEADING in dynamic["text"]
    assert f"- [#1, {date}, user] “My passport number is YA4471902" in dynamic["text"]
    assert ctx.report.excerpt_tokens > 0
    # It is counted in the estimate, and not repeated from the window.
    without = _ask(alice, thread, "Thanks!")
    assert without.report.excerpts == () and ctx.report.estimated_tokens > without.report.estimated_tokens
    window_sequences = set(range(ctx.report.window_first_sequence, ctx.report.window_last_sequence + 1))
    assert not window_sequences & {e.sequence for e in ctx.report.excerpts}


@pytest.mark.django_db
@pytest.mark.parametrize("message", SMALL_TALK)
def test_small_talk_pulls_in_nothing(alice, message):
    thread = _long_thread(alice, statement="I had a good weekend: the weather was nice and I met Anna today.")
    ctx = _ask(alice, thread, message)
    assert ctx.report.excerpts == () and ctx.report.excerpt_tokens == 0
    assert EXCERPT_HEADING not in " ".join(b["text"] for b in ctx.system)


@pytest.mark.django_db
def test_excerpts_keep_to_their_token_budget(alice, settings):
    settings.MEMORY_EXCERPT_TOKENS = 120
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            item
            for i in range(30)
            for item in (
                {"role": "user", "content": [text_block(f"The invoice INV-{i:04d} for the boiler repair was paid.")]},
                {"role": "assistant", "content": [text_block("Noted.")]},
            )
        ],
    )
    ctx = _ask(alice, thread, "What did I say about the boiler repair invoice?")
    assert ctx.report.excerpts and ctx.report.excerpt_tokens <= 120
    settings.MEMORY_EXCERPT_TOKENS = 0
    assert _ask(alice, thread, "What did I say about the boiler repair invoice?").report.excerpts == ()


@pytest.mark.django_db
def test_another_users_thread_is_never_searched(alice, bob):
    _long_thread(bob, statement="My locker code is 7731, do not tell anyone.")
    mine = _long_thread(alice, statement="I bought a blue bicycle.")
    ctx = _ask(alice, mine, "What is my locker code?")
    assert "7731" not in " ".join(b["text"] for b in ctx.system) + str(ctx.messages)
    assert all(Message.objects.get(pk=e.message_id).thread_id == mine.pk for e in ctx.report.excerpts)


@pytest.mark.django_db
def test_an_excerpt_the_summary_already_quotes_is_left_out(alice):
    statement = "The wedding is on 14 June in Verona, at the Villa Rossi."
    thread = _long_thread(alice, statement=statement)
    ThreadSummary.objects.create(thread=thread, version=1, text=f"- {statement}", covers_through=40, model="offline")
    ctx = _ask(alice, thread, "Where is the wedding?")
    assert 1 not in [e.sequence for e in ctx.report.excerpts]
    assert ctx.system[1]["text"].count("Villa Rossi") == 1


def test_what_asks_about_something():
    asks = [
        "When did Caroline go to the support group?",
        "What did I say about the order?",
        "Which code identifies my purchase?",
        "order A-7781?",
        "Cosa ti ho detto del medico?",
        "Do you remember the name of the hotel?",
    ]
    assert all(asks_about_something(t) for t in asks)
    tell = ["For the record: order A-1234 costs €120.50.", "Do you like music?", "ok", ""]
    assert not any(asks_about_something(t) for t in [*SMALL_TALK, *tell])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("statement", "request_text"),
    [
        ("The bike lock code is 4471, the combination one on the blue bike.", "bike lock code pls, I'm at the library"),
        ("La mia matricola è 40817, iscritta al secondo anno.", "mi serve la matricola per il modulo delle ferie"),
        ("The school trip cap per student is £45 this year.", "a mum is asking what the cap per student is"),
    ],
)
def test_a_value_asked_for_without_a_question_reaches_the_context(alice, statement, request_text):
    thread = _long_thread(alice, statement=statement)
    ctx = _ask(alice, thread, request_text)
    assert [e.sequence for e in ctx.report.excerpts][:1] == [1]
    # Asking for help with nothing of one's own in it opens nothing.
    assert _ask(alice, thread, "hi. ok I need a brain dump buddy today").report.excerpts == ()


@pytest.mark.django_db
def test_window_token_cap_drops_old_whole_turns_and_the_excerpts_reach_them(alice, settings):
    settings.MEMORY_WINDOW_TOKENS = 120
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("My passport number is YA4471902.")]},
            {"role": "assistant", "content": [text_block("Noted.")]},
        ],
    )
    _turns(thread, 6, with_tools_every=2)
    ctx = _ask(alice, thread, "What is my passport number?")
    assert ctx.report.window_first_sequence > 1 and ctx.messages[0]["role"] == "user"
    assert_no_orphans(ctx.messages)
    assert [e.sequence for e in ctx.report.excerpts][:1] == [1]  # its neighbour may follow
    # However small the cap, the previous turn and the current one stay.
    settings.MEMORY_WINDOW_TOKENS = 1
    ctx = _ask(alice, thread, "and the expiry?")
    texts = [b.get("text") for m in ctx.messages for b in m["content"] if b["type"] == "text"]
    assert texts[-1] == "and the expiry?" and "What is my passport number?" in texts


# What a context reads, in statements: the summary with the window and the memory switch
# (``conversations.selectors.summary_and_window``), the pinned memories, memory recall
# (one statement: ``memories.recall.MEMORY_SQL``), and for a question the history
# search (lexical, vectors, the hits' rows with what each reply answers); with nothing
# in this thread, the same over the person's other conversations plus what they asked to
# forget and the titles. Was 14 and 16 before memory recall became one statement, the
# summary came with the window and the hits with what they answer (the other
# conversations' hits are the person's own words: nothing they answer is read): the
# assertion keeps the count from creeping back. No lexical statement needs a ``SET LOCAL
# jit = off`` of its own any more: connections open with JIT off (``settings.DB_JIT``; 9 and 13
# with it). 8 and 11 while the memory switch was a statement of its own.
CONTEXT_QUERIES = {"own excerpts": 7, "other conversations": 10}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("case", "question", "found"),
    [
        ("own excerpts", "What did I say about my passport number?", "YA4471902"),
        ("other conversations", "What did I tell you about Lisbon?", "I fly to Lisbon"),
    ],
)
def test_a_context_reads_a_fixed_handful_of_statements(
    alice, settings, django_assert_max_num_queries, case, question, found
):
    settings.MEMORY_WINDOW = 10
    thread = _long_thread(alice, statement="My passport number is YA4471902 and it expires in March 2029.")
    ThreadSummary.objects.create(
        thread=thread, version=1, text="The user travels often.", covers_through=4, model="offline"
    )
    Memory.objects.create(user=alice, content="prefers window seats on trains")
    Memory.objects.create(user=alice, kind="rule", content="always answer in English")
    elsewhere = thread_create(owner=alice)
    messages_append(thread=elsewhere, items=[{"role": "user", "content": [text_block("I fly to Lisbon on Monday")]}])
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(question)]}])[0]
    thread.refresh_from_db()
    vector_search.backend()  # chosen once per process (a catalog read), not a statement of every context

    with django_assert_max_num_queries(CONTEXT_QUERIES[case]):
        ctx = build_context(thread=thread, agent=get_agent("relationship"), user=alice, request_message=request)

    dynamic = ctx.system[1]["text"]
    assert found in dynamic and "always answer in English" in dynamic and "The user travels often." in dynamic


# A long reply that names none of the question's words: ranked on its own, lines that
# repeat those words outrank it.
REPLY = (
    "Try the Memmo Alfama: calm rooms, a terrace over the river, breakfast until eleven, and ten minutes "
    "on foot from the venue. Book a room at the back, away from the tram, and ask for the late checkout "
    "on the last day; the staff are helpful with taxis to the airport early in the morning."
)


@pytest.mark.django_db
def test_a_hit_brings_the_reply_that_answered_it_even_when_other_lines_share_more_words(alice):
    thread = thread_create(owner=alice)
    items = [
        {"role": "user", "content": [text_block("I need a quiet hotel in Lisbon for the conference week. Any idea?")]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "web_search", "input": {"query": "x"}}],
        },
        {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "[]"}]},
        {"role": "assistant", "content": [text_block(REPLY)]},
    ]
    for i in range(12):  # more lines sharing the question's words than a context quotes
        items.append({"role": "user", "content": [text_block(f"The Lisbon conference hotel shuttle changed ({i}).")]})
        items.append({"role": "assistant", "content": [text_block("Noted.")]})
    messages_append(thread=thread, items=items)
    _turns(thread, 15)  # the exchange is far outside the window

    ctx = _ask(alice, thread, "Which quiet hotel in Lisbon did you suggest for the conference?")

    assert [e.sequence for e in ctx.report.excerpts][:2] == [1, 4]
    assert "Memmo Alfama" in ctx.system[1]["text"]


@pytest.mark.django_db
def test_the_turn_beside_a_hit_is_never_tool_traffic_nor_filler(alice):
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("Please remember that the garage door code is 4417.")]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "remember_fact", "input": {"content": "x"}}],
            },
            {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"ok": true}'}]},
            {"role": "assistant", "content": [text_block("I don't have information about that.")]},
            {"role": "user", "content": [text_block("Is it going to rain later?")]},
        ],
    )
    _turns(thread, 15)

    ctx = _ask(alice, thread, "What is my garage door code?")

    assert [e.sequence for e in ctx.report.excerpts] == [1]


@pytest.mark.django_db
@pytest.mark.parametrize("switched_off", [False, True])
def test_the_memory_switch_read_with_the_window_decides_what_is_recalled(alice, bob, switched_off):
    # A caller that does not decide the switch (the runner does) gets it read along with the
    # window: the person's own switch, not another person's.
    MemoryPreference.objects.create(user=bob, long_term_enabled=switched_off)
    if switched_off:
        MemoryPreference.objects.create(user=alice, long_term_enabled=False)
    Memory.objects.create(user=alice, content="my order number is A-7781")
    thread = thread_create(owner=alice)
    _turns(thread, 3)
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block("my order number?")]}])[0]
    thread.refresh_from_db()
    ctx = build_context(thread=thread, agent=get_agent("assistant"), user=alice, request_message=request)
    assert ctx.report.memory_allowed is not switched_off
    assert ("A-7781" in ctx.system[-1]["text"]) is not switched_off
