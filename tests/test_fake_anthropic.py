"""The fake Messages API answers the real ``anthropic`` SDK in its own wire format."""

import anthropic
import httpx
import pytest

from tests.fake_anthropic import error_reply, text_reply, tool_use_reply


def _client(server, **kw) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=server.url, **kw)


def test_sdk_gets_text_and_usage(fake_anthropic_server):
    fake_anthropic_server.reset()
    fake_anthropic_server.script(text_reply("Ciao!", input_tokens=42, output_tokens=3, cache_read=30))
    msg = _client(fake_anthropic_server).messages.create(
        model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].text == "Ciao!"
    assert msg.usage.input_tokens == 42 and msg.usage.cache_read_input_tokens == 30
    assert fake_anthropic_server.message_requests()[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_sdk_parses_tool_use(fake_anthropic_server):
    fake_anthropic_server.reset()
    fake_anthropic_server.script(tool_use_reply("recall_facts", {"query": "order"}))
    msg = _client(fake_anthropic_server).messages.create(
        model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "order?"}]
    )
    assert msg.stop_reason == "tool_use"
    assert msg.content[0].name == "recall_facts" and msg.content[0].input == {"query": "order"}


def test_sdk_retries_429_then_succeeds(fake_anthropic_server):
    fake_anthropic_server.reset()
    fake_anthropic_server.script(error_reply(429, "rate_limit_error"), text_reply("after retry"))
    msg = _client(fake_anthropic_server, max_retries=2).messages.create(
        model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].text == "after retry"
    assert len(fake_anthropic_server.message_requests()) == 2


def test_sdk_raises_on_400_without_retry(fake_anthropic_server):
    fake_anthropic_server.reset()
    fake_anthropic_server.script(error_reply(400, "invalid_request_error", "prompt is too long"))
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        _client(fake_anthropic_server, max_retries=2).messages.create(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        )
    assert len(fake_anthropic_server.message_requests()) == 1


def test_control_endpoints_script_other_processes(fake_anthropic_server):
    fake_anthropic_server.reset()
    httpx.post(f"{fake_anthropic_server.url}/_control/script", json=[text_reply("from control")])
    msg = _client(fake_anthropic_server).messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
    )
    assert msg.content[0].text == "from control"
    recorded = httpx.get(f"{fake_anthropic_server.url}/_control/requests").json()
    assert recorded[0]["body"]["model"] == "m"
