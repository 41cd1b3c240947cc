"""Recall across a person's conversations: a new one finds what was said in the others.

Only where long-term memory is on, never from or into an incognito conversation, never
another person's.
"""

import pytest

from conversations.content import text_block
from conversations.models import Message
from conversations.services import messages_append, thread_create
from memories.models import MemoryPreference
from memories.recall import search_memories
from memories.services import memory_remember
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn.context import OTHER_HEADING, build_context
from usecases.turn.registry import get_agent

STATEMENT = "The dentist appointment is on 12 March at 9:30, at the clinic on Via Roma."
QUESTION = "What did I tell you about my dentist appointment?"


def _earlier(owner, *, incognito: bool = False, title: str = "Errands for March", statement: str = STATEMENT):
    """A conversation of ``owner`` holding the statement among other things (stored as said, no memory)."""
    thread = thread_create(owner=owner, incognito=incognito, title=title)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("Lovely morning, off for a walk by the river.")]},
            {"role": "assistant", "content": [text_block("Enjoy the walk!")]},
            {"role": "user", "content": [text_block(statement)]},
            {"role": "assistant", "content": [text_block("Good luck with it.")]},
        ],
    )
    return thread


def _ask(owner, thread, text=QUESTION):
    request = messages_append(thread=thread, items=[{"role": "user", "content": [text_block(text)]}])[0]
    thread.refresh_from_db()
    return build_context(thread=thread, agent=get_agent("assistant"), user=owner, request_message=request)


@pytest.mark.django_db
def test_a_new_conversation_finds_it_in_another_one_labelled_with_its_title_and_date(alice, client):
    earlier = _earlier(alice)
    ctx = _ask(alice, thread_create(owner=alice))
    dynamic = ctx.system[1]["text"]
    date = earlier.messages.get(sequence=3).created_at.date().isoformat()
    assert OTHER_HEADING in dynamic
    assert f"- [“Errands for March”, {date}, user] “{STATEMENT}”" in dynamic
    assert {e.thread_id for e in ctx.report.excerpts} == {str(earlier.pk)}

    # Through the offline model, and on the page under the reply, linked to that conversation.
    new = thread_create(owner=alice)
    run = run_turn(alice, new, QUESTION)
    assert "12 March at 9:30" in reply_text(run) and "Errands for March" in reply_text(run)
    client.force_login(alice)
    page = client.get(f"/c/{new.pk}/").content.decode()
    assert f'href="/c/{earlier.pk}/#msg-' in page and "used 1 earlier message" in page


@pytest.mark.django_db
def test_never_when_long_term_memory_is_off(alice):
    _earlier(alice)
    MemoryPreference.objects.create(user=alice, long_term_enabled=False)
    ctx = _ask(alice, thread_create(owner=alice))
    assert ctx.report.excerpts == () and "9:30" not in ctx.system[-1]["text"]


@pytest.mark.django_db
def test_never_from_or_into_an_incognito_conversation(alice):
    _earlier(alice, incognito=True)
    ctx = _ask(alice, thread_create(owner=alice))
    assert ctx.report.excerpts == () and "9:30" not in ctx.system[-1]["text"]

    _earlier(alice)
    ctx = _ask(alice, thread_create(owner=alice, incognito=True))
    assert ctx.report.excerpts == () and "9:30" not in ctx.system[-1]["text"]


@pytest.mark.django_db
def test_never_another_persons(alice, bob):
    _earlier(bob)
    ctx = _ask(alice, thread_create(owner=alice))
    assert ctx.report.excerpts == () and "9:30" not in " ".join(b["text"] for b in ctx.system)
    mine = _earlier(alice, title="Mine")
    ctx = _ask(alice, thread_create(owner=alice))
    assert {Message.objects.get(pk=e.message_id).thread_id for e in ctx.report.excerpts} == {mine.pk}


@pytest.mark.django_db
def test_small_talk_in_a_new_conversation_pulls_in_nothing(alice):
    _earlier(alice)
    assert _ask(alice, thread_create(owner=alice), "Hi, how are you today?").report.excerpts == ()


@pytest.mark.django_db
def test_a_question_about_one_definite_thing_looks_in_the_other_conversations_and_small_talk_does_not(alice):
    _earlier(alice)
    ctx = _ask(alice, thread_create(owner=alice), "when's the dentist appointment now? I've lost track")
    assert OTHER_HEADING in ctx.system[1]["text"] and ctx.report.excerpts
    for text in ["how are you?", "How long do you boil an egg?", "Come va?"]:
        assert not _ask(alice, thread_create(owner=alice), text).report.excerpts, text


@pytest.mark.django_db
def test_a_question_that_opens_a_conversation_sees_the_memories_recall_left_out_and_small_talk_does_not(alice):
    for content in ["We're renting a smallish flat in Bristol", "My all time favourite thing to eat is laksa"]:
        memory_remember(user=alice, content=content)
    question = "which city did I tell you I live in?"
    ctx = _ask(alice, thread_create(owner=alice), question)
    assert "Bristol" in ctx.system[1]["text"]
    hello = "Hi, how are you today?"
    found = [h.memory.id for h in search_memories(user=alice, query=hello)]
    assert list(_ask(alice, thread_create(owner=alice), hello).report.memory_ids) == found
    # Further into a conversation the memories stay the ones recall found for the message.
    thread = thread_create(owner=alice)
    _ask(alice, thread, "Lovely morning, off for a walk by the river.")
    found = [h.memory.id for h in search_memories(user=alice, query=question)]
    assert list(_ask(alice, thread, question).report.memory_ids) == found


@pytest.mark.parametrize(
    ("statement", "question"),
    [
        ("Biscuit is whining at the door again, he's such a beagle", "what's my dog's name?"),
        (
            "Briciola stamattina ha rosicchiato una ciabatta, la mia bassottina è terribile",
            "come si chiama il mio cane?",
        ),
        ("Our dog Bruno hates the rain", "how old is my beagle?"),
        ("so I'm a structural engineer, been working in Milan for 9 years", "what do I do for a living?"),
        ("sono fisioterapista, da tre anni ho uno studio mio", "domanda stupida: ti ricordi che lavoro faccio?"),
        ("Please remember I'm coeliac, restaurants must be gluten free", "what's my diet? booking the dinner"),
        ("Switching from Royal Mail to Evri, it's cheaper", "which courier am I using now?"),
    ],
)
@pytest.mark.django_db
def test_a_kind_asked_about_finds_the_instance_said_in_another_conversation(alice, bob, statement, question):
    """The stating turn names the instance (a breed), the question the kind (or the other way round)."""
    for owner in (alice, bob):
        _earlier(owner, statement=statement)
    ctx = _ask(alice, thread_create(owner=alice), question)
    assert statement in ctx.system[1]["text"]
    assert len(ctx.report.excerpts) == 1
    assert Message.objects.get(pk=ctx.report.excerpts[0].message_id).thread.owner == alice
