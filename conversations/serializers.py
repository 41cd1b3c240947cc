from __future__ import annotations

from rest_framework import serializers

from agents.registry import agent_choices
from conversations.models import Thread


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


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=500, help_text="Words or a question.")
    limit = serializers.IntegerField(min_value=1, max_value=50, default=10)


class SearchHitSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 = best match. Ordinal only: scores are not comparable across calls.")
    message_id = serializers.IntegerField()
    thread_id = serializers.UUIDField()
    thread_title = serializers.CharField()
    sequence = serializers.IntegerField()
    role = serializers.CharField()
    created_at = serializers.DateTimeField()
    excerpt = serializers.CharField(help_text="Verbatim, centred on the first matching word.")


class SearchOutSerializer(serializers.Serializer):
    query = serializers.CharField()
    results = SearchHitSerializer(many=True)
