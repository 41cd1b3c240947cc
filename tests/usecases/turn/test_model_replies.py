"""Whatever the provider answers, a run ends with a clear error or a stored reply, never
an internal error with a parser's name, and nothing malformed is stored or sent again."""

from __future__ import annotations

import pytest

from agents.models import Run
from conversations.models import Message
from conversations.services import thread_create
from tests.fake_anthropic import raw_reply, text_reply, tool_use_reply, usage
from tests.usecases.turn.helpers import run_turn

pytestmark = pytest.mark.django_db


def _reply(*blocks: dict, stop: str = "end_turn") -> dict:
    """A reply whose blocks go over the wire as they are: json.dumps writes NaN, Infinity,
    \\u0000 and lone surrogates, as a misbehaving provider or proxy would."""
    return {"body": {"content": list(blocks), "stop_reason": stop, "usage": usage()}}


def _tool(tool_input, **extra) -> dict:
    return {"type": "tool_use", "id": "toolu_1", "name": "recall_facts", "input": tool_input, **extra}


CASES = {
    "NUL in the text": _reply({"type": "text", "text": "hello\x00world"}),
    "NaN in a tool input": _reply(_tool({"query": "x", "n": float("nan")}), stop="tool_use"),
    "a huge number in a tool input": _reply(_tool({"query": "x", "n": float("inf")}), stop="tool_use"),
    "lone surrogate in the text": _reply({"type": "text", "text": "caf\ud800"}),
    "a body that is not JSON": raw_reply("<html>502 Bad Gateway</html>"),
    "a body that is not JSON, as text": raw_reply("upstream error", content_type="text/plain"),
    "a tool_use block without an id": _reply(
        {"type": "tool_use", "id": "", "name": "recall_facts", "input": {}}, stop="tool_use"
    ),
    "a text block without text": _reply({"type": "text", "text": None}),
    "a tool_use whose input is a list": _reply(_tool([1]), stop="tool_use"),
}


@pytest.fixture(params=[False, True], ids=["whole", "streamed"])
def streaming(request, settings):
    settings.STREAM_REPLIES = request.param
    return request.param


@pytest.mark.parametrize("case", CASES)
def test_a_malformed_model_reply_ends_the_run_with_a_clear_error_and_stores_nothing(
    alice, fake_anthropic, streaming, case
):
    thread = thread_create(owner=alice)
    fake_anthropic.script(CASES[case], CASES[case], CASES[case])
    run = run_turn(alice, thread, "hello?")
    assert run.status == "failed"
    assert run.error_code != "internal", run.error_message
    assert "Error" not in run.error_message and "JSON" not in run.error_message
    assert run.error_message.endswith(".")
    assert list(Message.objects.filter(thread=thread).values_list("role", flat=True)) == ["user"]

    # The next turn sends only well-formed history.
    fake_anthropic.reset()
    fake_anthropic.script(text_reply("fine now"))
    again = run_turn(alice, thread, "and now?")
    assert again.status == "completed"
    sent = fake_anthropic.message_requests()[0]["messages"]
    assert [m["role"] for m in sent] == ["user", "user"] or [m["role"] for m in sent] == ["user"]


def test_a_well_formed_tool_call_still_works(alice, fake_anthropic):
    thread = thread_create(owner=alice)
    fake_anthropic.script(tool_use_reply("recall_facts", {"query": "order"}), text_reply("nothing stored"))
    run = run_turn(alice, thread, "what do you know?")
    assert run.status == "completed"
    assert Run.objects.get(pk=run.pk).error_code == ""
