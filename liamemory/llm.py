"""The one module that talks to model providers.

In the core so that both the turn (``agents``) and the summarizer (``conversations``)
reach it without going up. Claude goes through the ``anthropic`` SDK; provider errors
are mapped to :class:`ModelError` with a :class:`ModelErrorCode`, so nothing above this
module knows an SDK exception. The offline model (no API key) is ``usecases/turn/offline.py``.

Replies are streamed when the caller passes ``on_text``: it receives each piece of
text as the model writes it (the SDK's ``messages.stream``), and the returned
:class:`ModelReply` is the same final message a non-streamed call returns. An
exception raised by ``on_text`` (the run was cancelled) closes the stream — the
provider stops generating — and propagates unchanged.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from django.conf import settings

from liamemory.jsoncheck import json_problems


class ModelErrorCode(StrEnum):
    """Why a model call failed. A run that fails records the code (``agents.models.RunErrorCode``)."""

    MODEL_UNAVAILABLE = "model_unavailable"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    TOO_LONG = "too_long"
    BAD_REQUEST = "bad_request"
    INTERNAL = "internal"


# Worth trying again later: the provider is busy or away, the request itself is fine.
RETRYABLE_CODES = frozenset({ModelErrorCode.RATE_LIMITED, ModelErrorCode.MODEL_UNAVAILABLE, ModelErrorCode.TIMEOUT})


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens


@dataclass
class ModelReply:
    content: list[dict[str, Any]]
    stop_reason: str
    model: str
    usage: Usage = field(default_factory=Usage)
    latency_ms: int = 0

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text" and b.get("text"))


class ModelError(Exception):
    """A model call that failed; ``code`` is a run error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ChatModel(Protocol):
    name: str

    def complete(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply: ...


class _SinkFailed(Exception):
    """Carries an exception raised by the caller's ``on_text`` past the SDK error mapping."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


def has_api_key() -> bool:
    return bool(settings.ANTHROPIC_API_KEY)


_clients: dict[tuple, Any] = {}
_clients_lock = threading.Lock()


def _client():
    """One SDK client per process and configuration, shared by threads.

    Building a client builds an HTTP connection pool and a TLS context (~19 ms of CPU);
    reusing it also keeps connections to the provider alive between turns.
    """
    key = (
        settings.ANTHROPIC_API_KEY,
        settings.ANTHROPIC_BASE_URL,
        settings.MODEL_TIMEOUT_SECONDS,
        settings.MODEL_MAX_RETRIES,
    )
    client = _clients.get(key)
    if client is None:
        with _clients_lock:
            client = _clients.get(key) or _new_client()
            _clients[key] = client
    return client


def _new_client():
    import anthropic

    kwargs: dict[str, Any] = {
        "api_key": settings.ANTHROPIC_API_KEY,
        "timeout": settings.MODEL_TIMEOUT_SECONDS,
        # The SDK retries 408/409/429/5xx (529 overloaded included) with backoff and
        # honours retry-after; it never retries 400/401/403/404.
        "max_retries": settings.MODEL_MAX_RETRIES,
    }
    if settings.ANTHROPIC_BASE_URL:
        kwargs["base_url"] = settings.ANTHROPIC_BASE_URL
    return anthropic.Anthropic(**kwargs)


def _map_error(exc: Exception) -> ModelError:
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ModelError(ModelErrorCode.TIMEOUT, "The model did not answer in time.")
    if isinstance(exc, anthropic.RateLimitError):
        return ModelError(ModelErrorCode.RATE_LIMITED, "The model is rate-limited right now; try again shortly.")
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelError(ModelErrorCode.MODEL_UNAVAILABLE, "The model could not be reached.")
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        text = str(getattr(exc, "message", "")) or type(exc).__name__
        if status == 400 and "too long" in text.lower():
            return ModelError(ModelErrorCode.TOO_LONG, "The conversation is too long for the model.")
        if status in (400, 404, 413, 422):
            return ModelError(ModelErrorCode.BAD_REQUEST, f"The model API refused the request ({status}).")
        if status in (401, 403):
            return ModelError(ModelErrorCode.MODEL_UNAVAILABLE, f"The model API refused our credentials ({status}).")
        return ModelError(ModelErrorCode.MODEL_UNAVAILABLE, f"The model is unavailable ({status}).")
    unreadable = (anthropic.APIResponseValidationError, ValueError, TypeError, AttributeError, KeyError, AssertionError)
    if isinstance(exc, unreadable):
        # A body that is not JSON (a proxy's HTML page) or not a Messages API reply; a
        # stream that ended without a message (the SDK asserts it got one).
        return _unreadable("its body was not a Messages API reply")
    return ModelError(ModelErrorCode.INTERNAL, "The model call failed unexpectedly; try again.")


def _usage(raw: Any) -> Usage:
    return Usage(
        input_tokens=getattr(raw, "input_tokens", 0) or 0,
        output_tokens=getattr(raw, "output_tokens", 0) or 0,
        cache_read_tokens=getattr(raw, "cache_read_input_tokens", 0) or 0,
        cache_write_tokens=getattr(raw, "cache_creation_input_tokens", 0) or 0,
    )


class AnthropicModel:
    """Claude through the Messages API, tools and prompt caching included."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or settings.CHAT_MODEL

    def complete(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        started = time.monotonic()
        kwargs: dict[str, Any] = {"model": self.name, "max_tokens": max_tokens, "system": system, "messages": messages}
        if tools:
            kwargs["tools"] = tools
        try:
            raw = self._stream(kwargs, on_text) if on_text else _client().messages.create(**kwargs)
            content = _checked_content([block.model_dump(exclude_none=True) for block in raw.content])
            stop_reason, model, usage = raw.stop_reason or "end_turn", raw.model or self.name, _usage(raw.usage)
        except _SinkFailed as stop:
            raise stop.original from None
        except ModelError:
            raise
        except Exception as exc:
            raise _map_error(exc) from exc
        return ModelReply(
            content=content,
            stop_reason=stop_reason,
            model=model,
            usage=usage,
            latency_ms=int((time.monotonic() - started) * 1000),
        )

    @staticmethod
    def _stream(kwargs: dict[str, Any], on_text: Callable[[str], None]) -> Any:
        with _client().messages.stream(**kwargs) as stream:
            for event in stream:
                if event.type == "content_block_delta" and event.delta.type == "text_delta" and event.delta.text:
                    if json_problems(event.delta.text, limit=1):
                        # Never shown, never stored: the whole reply is refused below.
                        raise _unreadable("characters that cannot be stored")
                    try:
                        on_text(event.delta.text)
                    except Exception as exc:
                        raise _SinkFailed(exc) from exc
            return stream.get_final_message()


def _unreadable(what: str) -> ModelError:
    return ModelError(
        ModelErrorCode.MODEL_UNAVAILABLE, f"The model sent a reply that could not be used ({what}); try again."
    )


def _checked_content(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reply's blocks, or a :class:`ModelError` when one could not be stored or sent back.

    A reply is stored as the thread's history and re-sent on every later turn: a NUL
    character, NaN or a number past a float (which ``jsonb`` refuses), a tool call without
    an id or with a non-object input, or a text block without text would fail the run
    at the database, or every later turn at the provider.
    """
    if json_problems(content, limit=1):
        raise _unreadable("characters or numbers that cannot be stored")
    kept = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise _unreadable("a text block without text")
            if block["text"]:  # the API refuses empty text blocks when they are sent back
                kept.append(block)
        elif kind == "tool_use":
            if not (isinstance(block.get("id"), str) and block["id"] and isinstance(block.get("name"), str)):
                raise _unreadable("a tool call without an id or a name")
            if not isinstance(block.get("input"), dict):
                raise _unreadable("a tool call whose arguments are not an object")
            kept.append(block)
        else:
            raise _unreadable(f"a block of an unknown type {str(kind)[:40]!r}")
    if not kept:
        raise _unreadable("an empty reply")
    return kept


def fast_complete(*, system: str, prompt: str, max_tokens: int = 1024) -> ModelReply:
    """One plain completion with ``FAST_MODEL`` (summaries). Needs an API key."""
    return AnthropicModel(settings.FAST_MODEL).complete(
        system=[{"type": "text", "text": system}],
        messages=[{"role": "user", "content": prompt}],
        tools=[],
        max_tokens=max_tokens,
    )
