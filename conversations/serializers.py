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
