from __future__ import annotations

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

    def get_stopped(self, message: Message) -> bool:
        return is_stopped(message.content or [])

    def get_corrected(self, message: Message) -> bool:
        # Lists and a run's reply annotate it (``conversations.selectors``); the message a turn
        # just wrote has nothing correcting it yet (``just_written``); any other one asks.
        corrected = False if self.context.get("just_written") else getattr(message, "corrected", None)
        return message.corrections.exists() if corrected is None else bool(corrected)

    @extend_schema_field(CorrectionOutSerializer(allow_null=True))
    def get_correction(self, message: Message) -> dict | None:
        words = correction_words(message.content or []) if message.corrects_id else None
        return CorrectionOutSerializer(words).data if words else None


class TurnInSerializer(serializers.Serializer):
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)


class RunRefSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "status", "url"]

    def get_url(self, run: Run) -> str:
        return reverse("api-run-detail", kwargs={"run_id": run.id})


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

    def get_url(self, run: Run) -> str:
        return reverse("api-run-detail", kwargs={"run_id": run.id})

    def get_reply(self, run: Run) -> dict | None:
        reply = self.context.get("reply")
        return MessageOutSerializer(reply).data if reply else None

    def get_error(self, run: Run) -> dict | None:
        if not run.error_code:
            return None
        return {"code": run.error_code, "message": run.error_message}


class TurnOutSerializer(serializers.Serializer):
    message = MessageOutSerializer()
    run = RunRefSerializer()


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
