"""The context's older excerpts carry information: never tool traffic, refusals, echoes or copies."""

import json
from datetime import UTC, datetime

import pytest

from conversations.content import text_block
from conversations.informative import carries_nothing, near_identical, says_nothing
from conversations.models import Message, ThreadSummary
from conversations.search import HistoryHit, informative_hits, search_history
from conversations.services import messages_append, thread_create
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent

REFUSAL = "(offline model) I don't have information about that. I can keep notes for you: say “remember that …”."


def _chatter(n: int) -> list[dict]:
    items = []
    for i in range(n):
        items.append({"role": "user", "content": [text_block(f"Lovely sunny morning here, off for a walk ({i}).")]})
        items.append({"role": "assistant", "content": [text_block(f"Enjoy the walk and the sunshine ({i}).")]})
    return items


def _ask(owner, thread, text):
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(text)]}])[0]
    thread.refresh_from_db()
    return build_context(thread=thread, agent=get_agent("assistant"), user=owner, request_message=request)


def _excerpt_rows(ctx) -> list[Message]:
    return [Message.objects.get(pk=e.message_id) for e in ctx.report.excerpts]


def _tool_turn(statement: str, n: int) -> list[dict]:
    """A fact the agent stored with its tool: the call, the result and the reply, as a real turn stores them."""
    tid = f"toolu_{n}"
    result = {"ok": True, "memory_id": n, "action": "created", "content": statement}
    return [
        {"role": "user", "content": [text_block(statement)]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tid, "name": "remember_fact", "input": {"content": statement}}],
        },
        {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": tid, "content": json.dumps(result)}]},
        {"role": "assistant", "content": [text_block(f"(offline model) I'll remember that: {statement}.")]},
    ]


@pytest.mark.django_db
def test_tool_calls_and_results_never_become_excerpts(alice, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    messages_append(thread=thread, items=[*_tool_turn("our dog is called Bruno", 1), *_chatter(15)])
    ctx = _ask(alice, thread, "What's my dog called?")
    rows = _excerpt_rows(ctx)
    assert rows and rows[0].text == "our dog is called Bruno"
    assert all(r.role in {"user", "assistant"} and not r.text.startswith(("[remember_fact]", "{")) for r in rows)
    assert "remember_fact" not in ctx.system[1]["text"] and '"ok": true' not in ctx.system[1]["text"]
    # Nor does the agent's own search (what its search_history tool shows).
    hits = search_history(thread=thread, query="remember_fact dog Bruno memory_id ok")
    assert hits and {h.role for h in hits} <= {"user", "assistant"}
    assert not [h for h in hits if h.excerpt.startswith(("[remember_fact]", "{"))]


@pytest.mark.django_db
def test_replies_that_say_nothing_never_become_excerpts(alice, settings):
    """The assistant's "I don't have information" to questions sharing the words ranked first."""
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    items = [{"role": "user", "content": [text_block("I have the dentist on Thursday 14 November at 8:30am.")]}]
    items.append({"role": "assistant", "content": [text_block("Good luck with it.")]})
    asked = ["When is the dentist appointment?", "remind me, the dentist appointment is when?", "dentist when?"]
    for question in asked * 2:
        items += _chatter(2)
        items.append({"role": "user", "content": [text_block(question)]})
        items.append({"role": "assistant", "content": [text_block(REFUSAL)]})
        items.append({"role": "user", "content": [text_block("Which dentist appointment do I have?")]})
        items.append({"role": "assistant", "content": [text_block("You asked which dentist appointment you have.")]})
    items += _chatter(4)
    messages_append(thread=thread, items=items)
    ctx = _ask(alice, thread, "When is my dentist appointment?")
    rows = _excerpt_rows(ctx)
    assert "8:30am" in " ".join(r.text for r in rows)
    assert not [r for r in rows if r.role == "assistant" and ("information" in r.text or "You asked" in r.text)]
    # Questions asked before are no answer to the one asked now.
    assert not [r for r in rows if r.text.endswith("?")]


@pytest.mark.django_db
def test_a_reply_quoting_a_statement_is_not_a_second_row(alice, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    statement = "my sister Maeve is coming up from Cork this weekend"
    items = [
        {"role": "user", "content": [text_block(statement)]},
        {"role": "assistant", "content": [text_block("Have a lovely weekend.")]},
        *_chatter(8),
        {"role": "user", "content": [text_block("who is coming from Cork?")]},
        {"role": "assistant", "content": [text_block(f"(offline model) Earlier you said:\n- “{statement}”")]},
        *_chatter(8),
    ]
    messages_append(thread=thread, items=items)
    rows = _excerpt_rows(_ask(alice, thread, "When is my sister Maeve coming from Cork?"))
    assert [r.text for r in rows if "Maeve" in r.text] == [statement]


@pytest.mark.django_db
def test_when_the_summary_holds_the_answer_no_filler_takes_its_place(alice, settings):
    settings.MEMORY_WINDOW = 6
    statement = "The wedding is on 14 June in Verona, at the Villa Rossi."
    thread = thread_create(owner=alice)
    items = [
        {"role": "user", "content": [text_block(statement)]},
        {"role": "assistant", "content": [text_block("Congratulations!")]},
        *_chatter(6),
        {"role": "user", "content": [text_block("I started a pottery class at the community centre.")]},
        {"role": "assistant", "content": [text_block("Sounds fun.")]},
        *_chatter(6),
    ]
    messages_append(thread=thread, items=items)
    ThreadSummary.objects.create(thread=thread, version=1, text=f"- {statement}", covers_through=20, model="offline")
    ctx = _ask(alice, thread, "Where is the wedding?")
    assert ctx.report.excerpts == ()


@pytest.mark.django_db
def test_the_chat_page_lists_only_what_the_context_used(alice, client, settings):
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my gate code is 4411")
    for i in range(6):
        run_turn(alice, thread, f"Lovely sunny morning, off for a walk ({i}).")
        run_turn(alice, thread, "what was the weather like in the gate area?")  # refused: filler
    run = run_turn(alice, thread, "What is my gate code?")
    assert "4411" in reply_text(run)
    client.force_login(alice)
    page = client.get(f"/c/{thread.pk}/").content.decode()
    used = page[page.rindex("earlier message") :]
    used = used[: used.index("</details>")]
    assert "remember that my gate code is 4411" in used
    assert "remember_fact" not in used and "memory_id" not in used and "have information" not in used


def test_what_carries_nothing():
    assert says_nothing(REFUSAL)
    assert says_nothing("(offline model) Non ho informazioni su questo. Posso ricordare qualcosa per te.")
    assert says_nothing("Sorry, I can't help with that. Anything else?")
    assert says_nothing("Non lo so, mi dispiace.")
    assert not says_nothing("I don't know the exact hours, but the museum opens at 9.")
    assert not says_nothing("The museum opens at 9 on weekdays.")
    assert carries_nothing("When is my dentist appointment? Remind me?", role="user")
    # Typed without the question mark, it asks all the same; a clause like it that states does not.
    assert carries_nothing("ok memory test lol, whats the code on my garage", role="user")
    assert carries_nothing("mercury wants our account number again, what was it", role="user")
    assert not carries_nothing("we got the builders in, which is great", role="user")
    assert not carries_nothing("Is it Thursday? I think the dentist said 9:15.", role="user")
    assert carries_nothing("You asked what your dog's name is.", role="assistant", asked="What is my dog's name?")
    assert not carries_nothing("Bruno.", role="assistant", asked="What is my dog's name?")
    assert not carries_nothing("Yes, the pottery class.", role="assistant", asked="Did you go to the pottery class?")
    assert not carries_nothing("I don't know", role="user")
    assert near_identical("Earlier you said: “our dog is called Bruno”", "our dog is called Bruno")
    assert not near_identical("our dog is called Bruno", "our cat is called Pickle")


@pytest.mark.django_db
def test_earlier_questions_and_tasks_that_needed_a_value_are_no_excerpts(alice, settings):
    """Asking again for a value someone asked for before shows where it was said, not the earlier asks."""
    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    statement = "Miso, our ginger cat, has claimed the radiator for the winter"
    items = [{"role": "user", "content": [text_block(statement)]}, *_chatter(6)]
    for asked in [
        "what's my cat called again? my daughter bet me you wouldn't know",
        "write a short poem about my cat on the radiator, use her name",
        "mi scrivi una filastrocca sulla mia gatta? usa il suo nome",
    ]:
        items += [{"role": "user", "content": [text_block(asked)]}, *_chatter(3)]
    messages_append(thread=thread, items=items)
    rows = _excerpt_rows(_ask(alice, thread, "my cat is on the radiator again, what's her name?"))
    assert [r.text for r in rows if r.role == "user" and "cat" in r.text] == [statement]
    # A question beside a fact, and news headed by a word that also gives tasks, still carry it.
    assert not carries_nothing("can you suggest snacks? no peanuts though, I'm allergic to them", role="user")
    assert not carries_nothing("update: they moved us to gate C4", role="user")
    assert not carries_nothing("how do I make risotto? Tom says mine is rice soup", role="user")


def test_the_first_informative_hits_are_those_of_the_whole_list():
    """Asked for the first few, a person's words further down still replace the reply that quoted them."""
    statement = "my sister Maeve is coming up from Cork this weekend"

    def hit(n: int, role: str, text: str, asked: str = "") -> HistoryHit:
        at = datetime(2026, 1, 1, tzinfo=UTC)
        return HistoryHit(n, None, n, role, at, text, 1.0, asked=asked)  # type: ignore[arg-type]

    hits = [
        hit(1, "assistant", f"Earlier you said: “{statement}”", asked="who is coming from Cork?"),
        hit(2, "user", "the plumber fixed the boiler on Tuesday"),
        hit(3, "user", "the dentist moved my cleaning to the 14th"),
        hit(4, "assistant", "I don't have information about that.", asked="when is the party?"),
        hit(5, "user", "who is coming from Cork this weekend, my sister Maeve?"),  # asks: filler, replaces nothing
        hit(6, "user", statement),
        hit(7, "user", "we booked the table at Luigi's for eight"),
    ]
    whole = informative_hits(hits)
    assert [h.message_id for h in whole] == [6, 2, 3, 7]
    for limit in range(1, len(hits) + 1):
        assert informative_hits(hits, limit=limit) == whole[:limit]
