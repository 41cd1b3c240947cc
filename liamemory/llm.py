"""The one module that talks to model providers.

In the core so that both the turn (``agents``) and the summarizer (``conversations``)
reach it without going up. Claude goes through the ``anthropic`` SDK; provider errors
are mapped to :class:`ModelError` with a :class:`ModelErrorCode`, so nothing above this
module knows an SDK exception. The offline model (no API key) is ``agents/offline.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from django.conf import settings


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
    ) -> ModelReply: ...


def has_api_key() -> bool:
    return bool(settings.ANTHROPIC_API_KEY)


def _client():
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
    return ModelError(ModelErrorCode.INTERNAL, type(exc).__name__)


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
    ) -> ModelReply:
        started = time.monotonic()
        kwargs: dict[str, Any] = {"model": self.name, "max_tokens": max_tokens, "system": system, "messages": messages}
        if tools:
            kwargs["tools"] = tools
        try:
            raw = _client().messages.create(**kwargs)
        except Exception as exc:
            raise _map_error(exc) from exc
        return ModelReply(
            content=[block.model_dump(exclude_none=True) for block in raw.content],
            stop_reason=raw.stop_reason or "end_turn",
            model=raw.model or self.name,
            usage=_usage(raw.usage),
            latency_ms=int((time.monotonic() - started) * 1000),
        )


def fast_complete(*, system: str, prompt: str, max_tokens: int = 1024) -> ModelReply:
    """One plain completion with ``FAST_MODEL`` (summaries). Needs an API key."""
    return AnthropicModel(settings.FAST_MODEL).complete(
        system=[{"type": "text", "text": system}],
        messages=[{"role": "user", "content": prompt}],
        tools=[],
        max_tokens=max_tokens,
    )
