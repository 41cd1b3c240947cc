"""The turn API's answers. The hot answers (a message, a run: every POST of a turn and the
end of every event stream) are written out by plain functions behind ``to_representation``:
DRF building a ModelSerializer's fields afresh for each answer (``get_fields``, deep copies,
the model's field mapping) was a fifth of the web's CPU a turn. The declared fields stay
the schema (drf-spectacular), and a test holds the two to the same answer."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.models import Run
from conversations.content import correction_words, is_stopped
from conversations.models import Message, Thread
from usecases.turn.registry import agent_choices


class CorrectionOutSerializer(serializers.Serializer):
    right_value = serializers.CharField(help_text="The right value, in the words it was given.")
    about = serializers.CharField(help_text="What it is about ('' when not said).")
    by = serializers.ChoiceField(choices=["the user", "staff"])


# DRF's own rendering of a date-time (the current time zone, ISO 8601, "Z" for UTC): stateless.
_DATETIME = serializers.DateTimeField(read_only=True)


def _datetime(value: datetime | None) -> str | None:
    return _DATETIME.to_representation(value) if value else None


def _uuid(value: Any) -> str | None:
    return None if value is None else str(value)


def message_out(message: Message, *, just_written: bool = False) -> dict[str, Any]:
    """A message as ``MessageOutSerializer`` declares it."""
    # Lists and a run's reply annotate ``corrected`` (``conversations.selectors``); the message a
    # turn just wrote has nothing correcting it yet (``just_written``); any other one asks.
    corrected = False if just_written else getattr(message, "corrected", None)
    words = correction_words(message.content or []) if message.corrects_id else None
    return {
        "id": message.id,
        "thread_id": _uuid(message.thread_id),
        "sequence": message.sequence,
        "role": message.role,
        "content": message.content,
        "text": message.text,
        "agent": message.agent,
        "run_id": _uuid(message.run_id),
        "token_estimate": message.token_estimate,
        "created_at": _datetime(message.created_at),
        "stopped": is_stopped(message.content or []),
        "corrected": message.corrections.exists() if corrected is None else bool(corrected),
        "corrects_id": message.corrects_id,
        "correction": {"right_value": words.right_value, "about": words.about, "by": words.by} if words else None,
    }


def run_url(run: Run) -> str:
    return reverse("api-run-detail", kwargs={"run_id": run.id})


def run_ref(run: Run) -> dict[str, Any]:
    """A run as ``RunRefSerializer`` declares it."""
    return {"id": str(run.id), "status": run.status, "url": run_url(run)}


def run_out(run: Run, *, reply: Message | None = None) -> dict[str, Any]:
    """A run as ``RunOutSerializer`` declares it, with its reply when given."""
    return {
        "id": str(run.id),
        "url": run_url(run),
        "thread_id": _uuid(run.thread_id),
        "request_message_id": run.request_message_id,
        "status": run.status,
        "agent": run.agent,
        "model": run.model,
        "attempts": run.attempts,
        "tokens_in": run.tokens_in,
        "tokens_out": run.tokens_out,
        "tokens_cached": run.tokens_cached,
        "latency_ms": run.latency_ms,
        "created_at": _datetime(run.created_at),
        "finished_at": _datetime(run.finished_at),
        "reply": message_out(reply) if reply else None,
        "error": {"code": run.error_code, "message": run.error_message} if run.error_code else None,
    }


class MessageOutSerializer(serializers.ModelSerializer):
    """A message as the chat page shows it: a stopped reply marked, a corrected statement
    marked, and a correction note naming the statement it corrects (the page shows it there)."""

    run_id = serializers.UUIDField(allow_null=True, read_only=True)
    thread_id = serializers.UUIDField(read_only=True)
    stopped = serializers.SerializerMethodField(help_text="A reply stopped by its person before it was finished.")
    corrected = serializers.SerializerMethodField(help_text="A correction note names this message as wrong.")
    corrects_id = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="On a correction note: the id of the message it corrects."
    )
    correction = serializers.SerializerMethodField(help_text="On a correction note: the right value given.")

    class Meta:
        model = Message
        fields = [
            "id",
            "thread_id",
            "sequence",
            "role",
            "content",
            "text",
            "agent",
            "run_id",
            "token_estimate",
            "created_at",
            "stopped",
            "corrected",
            "corrects_id",
            "correction",
        ]

    def to_representation(self, instance: Message) -> dict[str, Any]:
        return message_out(instance, just_written=bool(self.context.get("just_written")))

    # The schema's types of the three computed fields; the answer is ``message_out``'s.
    def get_stopped(self, message: Message) -> bool:
        raise NotImplementedError

    def get_corrected(self, message: Message) -> bool:
        raise NotImplementedError

    @extend_schema_field(CorrectionOutSerializer(allow_null=True))
    def get_correction(self, message: Message) -> dict | None:
        raise NotImplementedError


class TurnInSerializer(serializers.Serializer):
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)


class RunRefSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "status", "url"]

    def to_representation(self, instance: Run) -> dict[str, Any]:
        return run_ref(instance)

    def get_url(self, run: Run) -> str:
        raise NotImplementedError


class RunOutSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    thread_id = serializers.UUIDField(read_only=True)
    request_message_id = serializers.IntegerField(allow_null=True, read_only=True)
    reply = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = [
            "id",
            "url",
            "thread_id",
            "request_message_id",
            "status",
            "agent",
            "model",
            "attempts",
            "tokens_in",
            "tokens_out",
            "tokens_cached",
            "latency_ms",
            "created_at",
            "finished_at",
            "reply",
            "error",
        ]

    def to_representation(self, instance: Run) -> dict[str, Any]:
        return run_out(instance, reply=self.context.get("reply"))

    # The schema's types of the computed fields; the answer is ``run_out``'s.
    def get_url(self, run: Run) -> str:
        raise NotImplementedError

    def get_reply(self, run: Run) -> dict | None:
        raise NotImplementedError

    def get_error(self, run: Run) -> dict | None:
        raise NotImplementedError


class TurnOutSerializer(serializers.Serializer):
    message = MessageOutSerializer()
    run = RunRefSerializer()

    def to_representation(self, instance: dict[str, Any]) -> dict[str, Any]:
        just_written = bool(self.context.get("just_written"))
        return {"message": message_out(instance["message"], just_written=just_written), "run": run_ref(instance["run"])}


class ThreadOutSerializer(serializers.ModelSerializer):
    class Meta:
        model = Thread
        fields = [
            "id",
            "title",
            "agent",
            "incognito",
            "created_at",
            "last_activity_at",
            "expires_at",
            "tokens_sent",
            "tokens_full_resend",
        ]


class ThreadCreateInSerializer(serializers.Serializer):
    agent = serializers.ChoiceField(choices=agent_choices(), default="assistant")
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    incognito = serializers.BooleanField(default=False)


class ThreadUpdateInSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200, allow_blank=True)
