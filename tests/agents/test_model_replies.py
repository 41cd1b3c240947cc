"""Whatever the provider answers, a run ends with a clear error or a stored reply, never
an internal error with a parser's name, and nothing malformed is stored or sent again."""

from __future__ import annotations

import pytest

from agents.models import Run
from conversations.models import Message
from conversations.services import thread_create
from tests.agents.helpers import run_turn
from tests.fake_anthropic import raw_reply, text_reply, tool_use_reply

pytestmark = pytest.mark.django_db

ENVELOPE = (
    '{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_sequence": null, '
    '"stop_reason": "%s", "usage": {"input_tokens": 5, "output_tokens": 5}, "content": %s}'
)


def _reply(content: str, stop: str = "end_turn") -> dict:
    return raw_reply(ENVELOPE % (stop, content))


TOOL = '[{"type": "tool_use", "id": "toolu_1", "name": "recall_facts", "input": %s}]'
CASES = {
    "NUL in the text": _reply('[{"type": "text", "text": "hello\\u0000world"}]'),
    "NaN in a tool input": _reply(TOOL % '{"query": "x", "n": NaN}', "tool_use"),
    "a huge number in a tool input": _reply(TOOL % '{"query": "x", "n": 1e400}', "tool_use"),
    "lone surrogate in the text": _reply('[{"type": "text", "text": "caf\\ud800"}]'),
    "a body that is not JSON": raw_reply("<html>502 Bad Gateway</html>", content_type="application/json"),
    "a body that is not JSON, as text": raw_reply("upstream error", content_type="text/plain"),
    "a tool_use block without an id": _reply('[{"type": "tool_use", "name": "recall_facts", "input": {}}]', "tool_use"),
    "a text block without text": _reply('[{"type": "text"}]'),
    "a tool_use whose input is a list": _reply(
        '[{"type": "tool_use", "id": "toolu_1", "name": "recall_facts", "input": [1]}]', "tool_use"
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_malformed_model_reply_ends_the_run_with_a_clear_error_and_stores_nothing(alice, fake_anthropic, case):
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
