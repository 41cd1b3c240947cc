"""A new statement on the same subject replaces the old one; compatible ones stay side by side."""

from __future__ import annotations

import pytest

from memories.matching import compare
from memories.models import Memory, MemoryStatus
from memories.recall import search_memories
from memories.services import memory_remember

pytestmark = pytest.mark.django_db


def remember(user, content):
    return memory_remember(user=user, content=content, writer_name="assistant")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("my order number is A-7781", "my order number is actually B-1200"),
        ("I live in Rome", "I moved to Milan"),
        ("I am vegetarian", "I am no longer vegetarian"),
        ("my manager is Luca Bianchi", "my new manager is Paolo Rossi"),
        ("abito a Roma", "mi sono trasferito a Milano"),
        ("My favourite colour is blue", "My favourite colour is green now"),
        ("mi piace il caffè", "non mi piace più il caffè"),
        ("lavoro per Fiat", "invece lavoro per Ferrari"),
    ],
)
def test_a_changed_statement_supersedes_the_old_one_which_is_kept_and_linked(alice, old, new):
    first = remember(alice, old).memory
    out = remember(alice, new)
    assert out.action == "superseded" and out.memory.pk != first.pk
    first.refresh_from_db()
    # Never overwritten in place: the old text is still there, linked to its successor.
    assert (first.content, first.status, first.superseded_by_id) == (old, MemoryStatus.SUPERSEDED, out.memory.pk)
    assert list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True)) == [new]
    assert first.pk not in [h.memory.pk for h in search_memories(user=alice, query=old)]
    result = out.as_tool_result()
    assert result["superseded"] == [{"memory_id": first.pk, "content": old, "why": result["superseded"][0]["why"]}]
    assert old in result["note"] and "no longer be recalled" in result["note"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("my sister is Anna", "my brother is Marco"),
        ("I live in Rome", "I work in Milan"),
        ("I like coffee", "I like tea too"),
        ("mia sorella si chiama Anna", "mio fratello si chiama Marco"),
        ("my order number is A-7781", "my phone number is 555-0134"),
    ],
)
def test_compatible_statements_stay_side_by_side(alice, old, new):
    remember(alice, old)
    assert remember(alice, new).action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 2


def test_a_restatement_updates_in_place(alice):
    first = remember(alice, "I live in Rome").memory
    out = remember(alice, "I live in Rome, near the Colosseum")
    assert (out.action, out.memory.pk) == ("updated", first.pk)
    assert Memory.objects.filter(user=alice).count() == 1


def test_forgetting_after_a_correction_forgets_the_new_value_and_its_history(alice):
    remember(alice, "my order number is A-7781")
    newest = remember(alice, "my order number is actually B-1200").memory
    assert [h.memory.pk for h in search_memories(user=alice, query="my order number")] == [newest.pk]


def test_every_verdict_says_why():
    verdict = compare("I live in Rome", "I moved to Milan")
    assert verdict.relation == "supersedes" and "residence" in verdict.reason
    assert compare("I live in Rome", "I work in Milan").reason.startswith("different subjects")


def test_the_fast_model_is_asked_about_what_the_grammar_leaves_side_by_side(alice, fake_anthropic, settings):
    from tests.fake_anthropic import error_reply, text_reply

    settings.MEMORY_CONTRADICTION_MODEL = True
    remember(alice, "I live in Rome")
    # The grammar decides: nothing is left to ask, no call.
    assert remember(alice, "I moved to Milan").action == "superseded"
    assert fake_anthropic.message_requests() == []

    old = remember(alice, "I have no children").memory
    fake_anthropic.script(text_reply("[1]"))
    out = remember(alice, "we just had a baby")
    assert out.action == "superseded" and [pk for pk, _, _ in out.superseded] == [old.pk]
    request = fake_anthropic.message_requests()[-1]
    assert request["model"] == settings.FAST_MODEL
    assert "NEW: we just had a baby" in str(request["messages"]) and "1. I have no children" in str(request["messages"])
    # A failing or unreadable model changes nothing: the grammar's verdict stands.
    fake_anthropic.script(*[error_reply(529, "overloaded_error")] * 3)
    assert remember(alice, "my sister is Anna").action == "created"
    fake_anthropic.script(text_reply("I think none of them."))
    assert remember(alice, "my brother is Marco").action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 4  # Milan, the baby, Anna, Marco


def test_the_model_is_not_asked_unless_switched_on(alice, fake_anthropic):
    remember(alice, "I have no children")
    assert remember(alice, "we just had a baby").action == "created"
    assert fake_anthropic.message_requests() == []
