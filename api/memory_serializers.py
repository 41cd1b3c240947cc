from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memories.models import Memory, MemoryKind, MemoryStatus, WriterType


class ProvenanceSerializer(serializers.Serializer):
    writer_type = serializers.ChoiceField(choices=WriterType.choices)
    writer_name = serializers.CharField()
    thread_id = serializers.UUIDField(allow_null=True, help_text="Kept after the thread expired (see source_expired).")
    message_id = serializers.IntegerField(allow_null=True)
    run_id = serializers.UUIDField(allow_null=True)
    source_expired = serializers.BooleanField()


class MemoryOutSerializer(serializers.ModelSerializer):
    provenance = serializers.SerializerMethodField()

    class Meta:
        model = Memory
        fields = [
            "id",
            "kind",
            "content",
            "importance",
            "status",
            "superseded_by",
            "provenance",
            "created_at",
            "updated_at",
            "last_used_at",
            "expires_at",
        ]

    @extend_schema_field(ProvenanceSerializer)
    def get_provenance(self, memory: Memory) -> dict:
        return ProvenanceSerializer(
            {
                "writer_type": memory.writer_type,
                "writer_name": memory.writer_name,
                "thread_id": memory.source_thread_id or memory.source_thread_ref,
                "message_id": memory.source_message_id,
                "run_id": memory.source_run_id,
                "source_expired": memory.source_expired,
            }
        ).data


class StaffMemoryOutSerializer(MemoryOutSerializer):
    user_id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)
    rank = serializers.SerializerMethodField(help_text="1 = most similar to q; null without q. Ordinal only.")

    class Meta(MemoryOutSerializer.Meta):
        fields = ["id", "user_id", "username", *MemoryOutSerializer.Meta.fields[1:], "rank"]

    def get_rank(self, memory: Memory) -> int | None:
        return self.context.get("ranks", {}).get(memory.pk)


class MemoryFilterSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=MemoryKind.choices, required=False)
    status = serializers.ChoiceField(choices=MemoryStatus.choices, required=False)


class StaffMemoryFilterSerializer(MemoryFilterSerializer):
    q = serializers.CharField(required=False, max_length=500, help_text="Ranks by trigram word similarity.")
    user_id = serializers.IntegerField(required=False, min_value=1)
    writer_type = serializers.ChoiceField(choices=WriterType.choices, required=False)


class MemoryCorrectInSerializer(serializers.Serializer):
    content = serializers.CharField(help_text="The corrected text; the old one is kept as superseded.")


class MemoryCreateInSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(min_value=1)
    content = serializers.CharField()
    kind = serializers.ChoiceField(choices=MemoryKind.choices, default=MemoryKind.FACT)
    importance = serializers.IntegerField(min_value=1, max_value=5, default=3)


class MemoryUpdateInSerializer(serializers.Serializer):
    content = serializers.CharField(required=False)
    kind = serializers.ChoiceField(choices=MemoryKind.choices, required=False)
    importance = serializers.IntegerField(min_value=1, max_value=5, required=False)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Send at least one of content, kind, importance, expires_at.")
        return attrs


class MemoryRejectInSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=90)


class RememberOutSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["created", "updated", "superseded", "pending"])
    previous_id = serializers.IntegerField(allow_null=True)
    memory = StaffMemoryOutSerializer()


class MemorySettingsSerializer(serializers.Serializer):
    long_term_enabled = serializers.BooleanField(help_text="Your switch: false = nothing is remembered or recalled.")
    installation_enabled = serializers.BooleanField(
        read_only=True, help_text="Whether long-term memory is on in this installation at all."
    )


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


class MessageCorrectInSerializer(serializers.Serializer):
    right_value = serializers.CharField(
        max_length=500, help_text="What is right instead (a value or a short statement): 'B-1200'."
    )
    about = serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        default="",
        help_text="What the wrong statement was about, in a few words: 'my order number'.",
    )


class CorrectionNoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    sequence = serializers.IntegerField()
    role = serializers.CharField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    corrects_sequence = serializers.IntegerField(source="corrects.sequence")


class SupersededByCorrectionSerializer(serializers.Serializer):
    superseded_id = serializers.IntegerField()
    superseded_content = serializers.CharField()
    memory = MemoryOutSerializer(help_text="The memory with the right value (its source: the note).")


class MessageCorrectOutSerializer(serializers.Serializer):
    note = CorrectionNoteSerializer(help_text="The correction note, appended right after the thread's last message.")
    memories = SupersededByCorrectionSerializer(
        many=True, help_text="Memories drawn from the wrong statement, each superseded by one with the right value."
    )
