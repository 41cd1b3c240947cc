"""Retrieval as the agent and the user see it: the right turn, the right user, no errors."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from conversations import search
from conversations.embedding_services import message_embeddings_update
from conversations.models import Message
from conversations.search import search_history, search_other_threads, search_threads
from conversations.selectors import ASKED_NEAR, asked_before, hit_rows, said_rows_at
from conversations.services import messages_append, thread_create
from liamemory.search_terms import date_terms
from memories.models import Memory, MemoryStatus
from memories.recall import search_memories
from tests.factories import MessageFactory

pytestmark = pytest.mark.django_db

CHITCHAT = [
    ("user", "Ugh, the meeting took forever today and then the deadline moved again."),
    ("assistant", "That sounds frustrating. Try to set a small goal for tomorrow and keep the deadline separate."),
    ("user", "Can you give me three quick tips about cooking pasta? Nothing too long."),
    ("assistant", "Salt the water well, stir in the first minute, and taste two minutes before the box says."),
    ("user", "The weather was grey all day, I stayed inside with a podcast."),
    ("assistant", "Grey days are good for podcasts. Any favourite show lately?"),
]


def _say(thread, turns) -> None:
    messages_append(thread=thread, items=[{"role": r, "content": [{"type": "text", "text": t}]} for r, t in turns])


def _long_thread(owner, *, answer: str, distractors: list[str], filler_rounds: int = 30):
    """A thread with the answer early, distractors and many turns of chit-chat after it."""
    thread = thread_create(owner=owner)
    _say(thread, CHITCHAT)
    _say(thread, [("user", answer), ("assistant", "Noted, thanks for telling me.")])
    answer_seq = thread.next_sequence - 2
    for i in range(filler_rounds):
        _say(thread, CHITCHAT)
        if i < len(distractors):
            _say(thread, [("user", distractors[i]), ("assistant", "I see.")])
    return thread, answer_seq


def test_history_finds_an_old_turn_by_paraphrase_above_distractors(alice):
    thread, answer_seq = _long_thread(
        alice,
        answer="By the way, the parcel with the new lamp shipped to my sister's address in Turin.",
        distractors=[
            "My sister called, she is fine.",
            "The lamp in the kitchen flickers again.",
            "I read an article about container ships on the news.",
        ],
    )
    assert thread.next_sequence > 150  # far beyond any context window

    hits = search_history(thread=thread, query="What did I say about shipping the lamp to my sister?")

    assert hits, "nothing found"
    assert hits[0].sequence == answer_seq
    assert "Turin" in hits[0].excerpt
    assert hits[0].thread_id == thread.pk and hits[0].role == "user"


def test_history_respects_before_sequence(alice):
    thread, answer_seq = _long_thread(alice, answer="My order number is A-7781.", distractors=[], filler_rounds=3)

    assert [h.sequence for h in search_history(thread=thread, query="order number")][:1] == [answer_seq]
    assert search_history(thread=thread, query="order number", before_sequence=answer_seq) == []
    later = search_history(thread=thread, query="order number", before_sequence=answer_seq + 1)
    # The answer first; the turn before it may follow (its neighbour holds the words).
    assert later[0].sequence == answer_seq
    assert all(h.sequence < answer_seq + 1 for h in later)


def test_history_never_crosses_threads_or_users(alice, bob):
    text = "My locker code is 4471, please remember it."
    mine = thread_create(owner=alice)
    other_of_mine = thread_create(owner=alice)
    bobs = thread_create(owner=bob)
    for thread in (mine, other_of_mine, bobs):
        _say(thread, [*CHITCHAT, ("user", text)])

    hits = search_history(thread=mine, query="locker code")
    assert hits and {h.thread_id for h in hits} == {mine.pk}

    across = search_threads(user=alice, query="locker code")
    assert {h.thread_id for h in across} == {mine.pk, other_of_mine.pk}
    assert {h.thread_id for h in search_threads(user=bob, query="locker code")} == {bobs.pk}


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "what did I say about the",
        "cosa ti ho detto di questo?",
        "?!.,;:()[]{}<>|&*'\"\\%_",
        "':* & !( | <-> DROP TABLE conversations_message; --",
        "zzzqqq xyzzy",
        "a" * 5000,
        "word " * 3000,
        "emoji 🙂🚀 and \x00 null",
    ],
)
def test_odd_queries_do_not_fail_and_find_nothing(alice, query):
    thread = thread_create(owner=alice)
    _say(thread, CHITCHAT)
    Memory.objects.create(user=alice, content="Prefers tea to coffee")

    assert search_history(thread=thread, query=query) == []
    assert search_threads(user=alice, query=query) == []
    assert search_memories(user=alice, query=query) == []


def test_history_italian_query_finds_italian_turn(alice):
    thread, answer_seq = _long_thread(
        alice,
        answer="Le spedizioni dei mobili nuovi arriveranno a Bologna giovedì.",
        distractors=["Il mio vicino di Bologna ha un cane.", "Ho comprato dei mobili usati anni fa."],
    )

    hits = search_history(thread=thread, query="Cosa ti ho detto sulla spedizione dei mobili?")

    assert hits and hits[0].sequence == answer_seq


def test_history_skips_empty_text_rows(alice):
    thread = thread_create(owner=alice)
    _say(thread, [("user", "the locker is blue")])
    MessageFactory(thread=thread, sequence=2, role="assistant", content=[], text="")
    assert [h.sequence for h in search_history(thread=thread, query="locker")] == [1]
    assert [h.sequence for h in search_history(thread=thread, query="the")] == []


@pytest.mark.parametrize(("mode", "queries"), [("off", 2), ("on", 3)])
def test_history_query_count(alice, django_assert_num_queries, settings, mode, queries):
    """Lexical ranking and the hits' texts; with embeddings, the thread's vectors too (no JIT
    statement: the connection opens with it off, ``settings.DB_JIT``)."""
    settings.HISTORY_SEARCH_EMBEDDINGS = mode
    thread, _ = _long_thread(alice, answer="My order number is A-7781.", distractors=[], filler_rounds=5)
    with django_assert_num_queries(queries):
        search_history(thread=thread, query="what was my order number?")


def test_a_question_of_many_kind_words_is_ranked_without_jit_compilation(alice):
    """A question like "insurance for the car" looks for 49 words (car makes and models): the
    planner's estimate then passed ``jit_above_cost`` and PostgreSQL compiled the statement first,
    0.5 s of a 0.9-s search on a 10,000-message thread. Every connection opens with JIT off
    (``settings.DB_JIT``, a startup option): the search's statement is planned without it, with
    no statement of its own to say so, and it ranks as before."""
    thread, answer_seq = _long_thread(
        alice, answer="The insurance renewal for my Fiat Panda is due in March.", distractors=[], filler_rounds=3
    )
    planned_with = []

    def record_jit(execute, sql, params, many, context):
        if "terms AS MATERIALIZED" in sql:
            context["cursor"].execute("SELECT current_setting('jit')")
            planned_with.append(context["cursor"].fetchone()[0])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record_jit):
        hits = search_history(thread=thread, query="insurance for the car", kinds=True)
    assert planned_with == ["off"]
    assert hits[0].sequence == answer_seq


def test_connections_open_with_jit_off_unless_the_server_decides(settings):
    """``DB_JIT=off`` (the default) is libpq's startup option, kept beside any the URL gave."""
    assert "-c jit=off" in settings.DATABASES["default"]["OPTIONS"]["options"]
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def _memory(user, content, **kwargs) -> Memory:
    return Memory.objects.create(user=user, content=content, **kwargs)


def test_memory_recall_ranks_the_relevant_fact_first(alice):
    _memory(alice, "Likes hiking in the Dolomites")
    _memory(alice, "Works from home on Fridays")
    order = _memory(alice, "Order number is A-7781")
    _memory(alice, "Has a dog named Biscuit")

    hits = search_memories(user=alice, query="what is my order number?")
    assert hits[0].memory == order

    dog = search_memories(user=alice, query="what's the name of my dogs?")
    assert dog[0].memory.content == "Has a dog named Biscuit"


@pytest.mark.django_db(transaction=True)
def test_memory_recall_leaves_no_setting_on_the_connection(alice):
    """The trigram threshold is set for the search's own transaction only: a pooled
    connection handed to the next request keeps PostgreSQL's default."""
    from django.db import connection

    _memory(alice, "Order number is A-7781")
    with connection.cursor() as cursor:
        cursor.execute("SHOW pg_trgm.word_similarity_threshold")
        before = cursor.fetchone()[0]
    assert search_memories(user=alice, query="order number")
    with connection.cursor() as cursor:
        cursor.execute("SHOW pg_trgm.word_similarity_threshold")
        assert cursor.fetchone()[0] == before


def test_memory_recall_italian(alice):
    _memory(alice, "Il suo ordine è il numero A-7781")
    cane = _memory(alice, "Ha un cane di nome Birillo")
    assert search_memories(user=alice, query="come si chiama il mio cane?")[0].memory == cane


def test_memory_recall_excludes_pending_superseded_expired_and_others(alice, bob):
    text = "Order number is A-7781"
    active = _memory(alice, text)
    _memory(alice, text + " (pending)", status=MemoryStatus.PENDING)
    _memory(alice, text + " (old)", status=MemoryStatus.SUPERSEDED, superseded_by=active)
    _memory(alice, text + " (rejected)", status=MemoryStatus.REJECTED)
    _memory(alice, text + " (expired)", expires_at=timezone.now() - timedelta(minutes=1))
    _memory(bob, text)

    hits = search_memories(user=alice, query="order number")
    assert [h.memory for h in hits] == [active]
    assert [h.memory.user for h in search_memories(user=bob, query="order number")] == [bob]


def test_memory_recall_breaks_ties_by_importance_then_recency(alice):
    low = _memory(alice, "Seat preference: window", importance=2)
    high = _memory(alice, "Seat preference: aisle", importance=5)
    newer = _memory(alice, "Seat preference: middle", importance=2)

    hits = search_memories(user=alice, query="seat preference")
    assert [h.memory for h in hits] == [high, newer, low]


def test_memory_recall_filters_kinds(alice):
    _memory(alice, "Order number is A-7781", kind="fact")
    rule = _memory(alice, "Never discuss order numbers by email", kind="rule")
    assert [h.memory for h in search_memories(user=alice, query="order numbers", kinds=["rule"])] == [rule]


def test_history_question_naming_a_month_finds_the_turn_said_that_month(alice):
    """ "Yesterday" holds no date: the message's own date answers "in July"."""
    thread = thread_create(owner=alice)
    _say(thread, CHITCHAT)
    _say(thread, [("user", "We went camping by the lake yesterday, the kids loved it."), ("assistant", "Lovely!")])
    june_seq = thread.next_sequence - 2
    _say(thread, CHITCHAT * 3)
    july_from = thread.next_sequence
    _say(thread, [("user", "We went camping again yesterday, this time up in the mountains."), ("assistant", "Nice.")])
    july_seq = thread.next_sequence - 2
    _say(thread, CHITCHAT)
    june, july = (timezone.now().replace(year=2023, month=m, day=10) for m in (6, 7))
    thread.messages.filter(sequence__lt=july_from).update(created_at=june)
    thread.messages.filter(sequence__gte=july_from).update(created_at=july)

    assert search_history(thread=thread, query="Where did we go camping in July?")[0].sequence == july_seq
    assert search_history(thread=thread, query="Where did we go camping in June?")[0].sequence == june_seq


def test_history_finds_an_answer_through_its_neighbour(alice):
    """The answer shares no word with the question; the turn just before it does."""
    thread = thread_create(owner=alice)
    for _ in range(10):
        _say(thread, CHITCHAT)
    _say(thread, [("assistant", "Did you finally go to the pottery class on Saturday?"), ("user", "Yes! A bowl.")])
    answer_seq = thread.next_sequence - 1
    for _ in range(10):
        _say(thread, CHITCHAT)

    hits = search_history(thread=thread, query="What did I create at the pottery class?")

    assert answer_seq in [h.sequence for h in hits[:3]]


def test_date_terms_name_months_years_and_weekdays_but_not_may_the_verb():

    assert date_terms("What did I do in May 2023, on a Friday?") == [("month", 5), ("year", 2023), ("isodow", 5)]
    assert date_terms("May I ask what you may have said?") == []
    assert date_terms("Cosa ho fatto a giugno?") == [("month", 6)]


def _exchange_with_tools(thread) -> None:
    """A turn as the agent stores it: the question, a tool call, its result, the reply."""
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [{"type": "text", "text": "What is my locker code? Please check the query."}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "recall_facts", "input": {"query": ""}}],
            },
            {
                "role": "tool",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": '{"facts": ["locker query 4412"]}'}
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "Your locker code is 4412."}]},
        ],
    )


def test_thread_search_reads_what_people_wrote_and_the_replies_never_tool_steps(alice):
    thread = thread_create(owner=alice)
    _say(thread, CHITCHAT)
    _exchange_with_tools(thread)

    for query in ["recall_facts", "query", "facts"]:
        hits = search_threads(user=alice, query=query)
        assert all(h.role in {"user", "assistant"} for h in hits), query
        assert not any("recall_facts" in h.excerpt or '"facts"' in h.excerpt for h in hits), query
    found = search_threads(user=alice, query="locker code")
    assert {h.excerpt for h in found} >= {
        "What is my locker code? Please check the query.",
        "Your locker code is 4412.",
    }


def test_a_reply_carries_the_question_it_answers_however_many_steps_came_between(alice):
    """What a hit shows of a reply is the person's nearest earlier message: just before it, after
    a turn of tool steps, or past more rows than the near look-up reads (``ASKED_NEAR``)."""
    thread = thread_create(owner=alice)
    _say(thread, [("user", "Where did I park the car?"), ("assistant", "On level 3, by the lift.")])
    _exchange_with_tools(thread)
    _say(thread, [("user", "What time is the train to Cork?")])
    notes = [{"role": "system", "content": [{"type": "text", "text": f"Note {i}."}]} for i in range(ASKED_NEAR + 4)]
    messages_append(thread=thread, items=notes)
    _say(thread, [("assistant", "The train to Cork leaves at 9:40.")])
    replies = {m.text: m for m in Message.objects.filter(thread=thread, role="assistant").exclude(text="")}
    expected = {
        "On level 3, by the lift.": "Where did I park the car?",
        "Your locker code is 4412.": "What is my locker code? Please check the query.",
        "The train to Cork leaves at 9:40.": "What time is the train to Cork?",
    }
    rows = hit_rows(message_ids=[replies[text].pk for text in expected])
    said = said_rows_at(thread=thread, sequences=[replies[text].sequence for text in expected])
    for text, question in expected.items():
        assert rows[replies[text].pk].asked == question
        assert said[replies[text].sequence].row.asked == question
    assert asked_before(message_ids=[replies[t].pk for t in expected]) == {
        replies[t].pk: q for t, q in expected.items()
    }
    first = Message.objects.get(thread=thread, sequence=1)
    assert hit_rows(message_ids=[first.pk])[first.pk].asked == ""


def test_thread_search_has_a_relevance_floor(alice, settings):
    settings.HISTORY_SEARCH_EMBEDDINGS = "auto"
    thread = thread_create(owner=alice)
    _say(thread, CHITCHAT * 3)
    _exchange_with_tools(thread)
    _embed_all()

    assert search_threads(user=alice, query="xylophone") == []
    assert search_threads(user=alice, query="Did I ever mention a xylophone?") == []
    assert search_threads(user=alice, query="trumpet lessons") == []
    assert search_threads(user=alice, query="pasta")  # a word said still finds its message
    _say(thread, [("user", "My new GP is Dr. Okafor, she is lovely.")])
    _embed_all()
    hits = search_threads(user=alice, query="Who is my physician?")  # a paraphrase too
    assert hits and "Okafor" in hits[0].excerpt


def _embed_all() -> None:

    message_embeddings_update(message_ids=list(Message.objects.values_list("id", flat=True)))


def _thread_with_an_old_locker_code(owner):
    """A thread opening with a line sharing one word ("code") with the locker code after it."""
    thread = thread_create(owner=owner)
    _say(thread, [("user", "The code review of the billing module went fine."), ("assistant", "Good to hear.")])
    _say(thread, [("user", "My gym locker code is K-7731."), ("assistant", "Noted.")])
    return thread, thread.next_sequence - 2


def test_history_on_a_thread_longer_than_the_lexical_window(alice, settings):
    """Past ``HISTORY_LEXICAL_WINDOW`` messages, the lexical statement reads the newest ones
    in full and, before them, only those holding every query word: an old locker code is
    still found by its words, an old message sharing one common word with the question is not."""
    thread, code_seq = _thread_with_an_old_locker_code(alice)
    for _ in range(6):
        _say(thread, CHITCHAT)
    assert thread.next_sequence > 40
    query = "what was my gym locker code?"
    settings.HISTORY_LEXICAL_WINDOW = 10
    bounded = search_history(thread=thread, query=query)
    settings.HISTORY_LEXICAL_WINDOW = 0
    whole = search_history(thread=thread, query=query)

    assert bounded[0].sequence == code_seq and bounded[0].signals.get("lexical", 0) > 0
    assert whole[0].sequence == code_seq
    lexical = {h.sequence for h in bounded if "lexical" in h.signals}
    assert 1 not in lexical  # "code" alone, before the window
    assert 1 in {h.sequence for h in whole if "lexical" in h.signals}


def test_history_scores_the_window_back_to_its_newest_hits_only(alice, settings, monkeypatch):
    """Within ``HISTORY_LEXICAL_WINDOW``, the lexical statement scores the rows back to the
    ``LEXICAL_WINDOW_HITS``-th newest that holds a query word: a word said in every few messages
    ("gym") no longer makes it score the whole window. Before that row, as before the window,
    only what holds every query word: the old locker code is still found by its words, an old
    line sharing one word is not. With fewer hits than that, it ranks as without the bound."""
    thread, code_seq = _thread_with_an_old_locker_code(alice)
    for _ in range(6):
        _say(thread, CHITCHAT)
        _say(thread, [("user", "Went to the gym again, my legs are sore."), ("assistant", "Stretch tonight.")])
    settings.HISTORY_LEXICAL_WINDOW = thread.next_sequence + 10
    query = "what was my gym locker code?"
    monkeypatch.setattr(search, "LEXICAL_WINDOW_HITS", 3)
    bounded = search_history(thread=thread, query=query)
    monkeypatch.setattr(search, "LEXICAL_WINDOW_HITS", 100)
    whole = search_history(thread=thread, query=query)
    settings.HISTORY_LEXICAL_WINDOW = 0
    unbounded = search_history(thread=thread, query=query)

    assert bounded[0].sequence == code_seq and bounded[0].signals.get("lexical", 0) > 0
    gym = [m.sequence for m in Message.objects.filter(thread=thread, text__startswith="Went to the gym")]
    scored = {h.sequence for h in bounded if "lexical" in h.signals}
    assert scored & set(gym) == set(gym[-3:])  # the three newest
    assert 1 not in scored
    assert {1, *gym} <= {h.sequence for h in whole if "lexical" in h.signals}
    # The same ranking; the scores to the last bits only up to the order the database sums them in
    # (a hash aggregate's order follows the message ids, which other tests' rows move).
    assert [h.message_id for h in whole] == [h.message_id for h in unbounded]
    assert [h.score for h in whole] == pytest.approx([h.score for h in unbounded], rel=1e-12)


def test_history_on_a_thread_within_the_lexical_window_ranks_as_without_it(alice, settings):
    thread, _ = _long_thread(alice, answer="The plumber comes on Thursday to fix the boiler.", distractors=[])
    query = "when is the plumber coming for the boiler?"
    settings.HISTORY_LEXICAL_WINDOW = thread.next_sequence + 10
    bounded = search_history(thread=thread, query=query)
    settings.HISTORY_LEXICAL_WINDOW = 0
    whole = search_history(thread=thread, query=query)
    assert [(h.message_id, h.score) for h in bounded] == [(h.message_id, h.score) for h in whole]
    assert bounded


def test_other_conversations_past_the_lexical_window(alice, settings):
    """A person's other conversations past ``HISTORY_LEXICAL_WINDOW`` of their messages: the
    newest are read in full, before them only what holds every query word, so an old
    locker code is still found by its words and an old line sharing one common word is not;
    this conversation and another person's stay out."""
    old = thread_create(owner=alice)
    _say(old, [("user", "The code review of the billing module went fine."), ("assistant", "Good to hear.")])
    _say(old, [("user", "My gym locker code is K-7731."), ("assistant", "Noted.")])
    newer = thread_create(owner=alice)
    for _ in range(4):
        _say(newer, CHITCHAT)
    _say(newer, [("user", "The gym was closed today, so no locker for me."), ("assistant", "Too bad.")])
    here = thread_create(owner=alice)
    _say(here, [("user", "My gym locker code is Z-0000 at the other gym.")])
    query = "what was my gym locker code?"

    settings.HISTORY_LEXICAL_WINDOW = 5
    bounded = search_other_threads(user=alice, thread=here, query=query)
    settings.HISTORY_LEXICAL_WINDOW = 0
    whole = search_other_threads(user=alice, thread=here, query=query)

    for hits in (bounded, whole):
        assert "K-7731" in hits[0].excerpt
        assert {h.thread_id for h in hits} <= {old.pk, newer.pk}
    assert any("closed today" in h.excerpt for h in bounded)  # in the window: one word is enough
    assert not any("billing" in h.excerpt for h in bounded)  # "code" alone, before the window
    assert any("billing" in h.excerpt for h in whole)


def test_other_conversations_within_the_lexical_window_rank_as_without_it(alice, settings):
    earlier, _ = _long_thread(alice, answer="The plumber comes on Thursday to fix the boiler.", distractors=[])
    here = thread_create(owner=alice)
    query = "when is the plumber coming for the boiler?"
    settings.HISTORY_LEXICAL_WINDOW = earlier.next_sequence
    bounded = search_other_threads(user=alice, thread=here, query=query)
    settings.HISTORY_LEXICAL_WINDOW = 0
    whole = search_other_threads(user=alice, thread=here, query=query)
    assert bounded and [(h.message_id, h.score) for h in bounded] == [(h.message_id, h.score) for h in whole]
