"""Typed long-term memories of a user, with provenance, review status and expiry."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from simple_history.models import HistoricalRecords


class MemoryKind(models.TextChoices):
    FACT = "fact", "Fact"
    RULE = "rule", "Relationship rule"
    KPI = "kpi", "Emotional KPI"
    PLATFORM = "platform", "Platform presentation"
    NUDGE_OUTCOME = "nudge_outcome", "Nudge outcome"
    CLIENT_SETUP = "client_setup", "Client setup"
    TEAM_POLICY = "team_policy", "Team policy"


class MemoryStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    PENDING = "pending", "Pending review"
    REJECTED = "rejected", "Rejected"
    SUPERSEDED = "superseded", "Superseded"


class WriterType(models.TextChoices):
    AGENT = "agent", "Agent tool"
    USER = "user", "The user"
    STAFF = "staff", "Staff"
    WORKFLOW = "workflow", "Workflow"
    ONBOARDING = "onboarding", "Onboarding"
    IMPORT = "import", "Import"


class MemoryQuerySet(models.QuerySet["Memory"]):
    def for_user(self, user) -> MemoryQuerySet:
        return self.filter(user=user)

    def active(self) -> MemoryQuerySet:
        return self.filter(status=MemoryStatus.ACTIVE).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        )

    def of_kind(self, *kinds: str) -> MemoryQuerySet:
        return self.filter(kind__in=kinds)

    def expired(self, now) -> MemoryQuerySet:
        return self.filter(expires_at__lte=now)


class Memory(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories")
    kind = models.CharField(max_length=32, choices=MemoryKind.choices, default=MemoryKind.FACT)
    content = models.TextField(validators=[MaxLengthValidator(settings.MEMORY_MAX_CHARS)])
    importance = models.PositiveSmallIntegerField(default=3, validators=[MinValueValidator(1), MaxValueValidator(5)])
    status = models.CharField(max_length=16, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    # Provenance. Source ids are kept as plain values too, so that a memory outliving its
    # expired thread still says where it came from.
    source_thread = models.ForeignKey(
        "conversations.Thread", null=True, blank=True, on_delete=models.SET_NULL, related_name="derived_memories"
    )
    source_thread_ref = models.UUIDField(null=True, blank=True)
    source_message = models.ForeignKey(
        "conversations.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="derived_memories"
    )
    source_run = models.ForeignKey(
        "agents.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="derived_memories"
    )
    source_expired = models.BooleanField(default=False)
    writer_type = models.CharField(max_length=16, choices=WriterType.choices, default=WriterType.AGENT)
    writer_name = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    history = HistoricalRecords()
    objects = MemoryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "memories"
        indexes = [
            # Recall: a user's active memories of some kinds (pinned kinds, caps).
            models.Index(fields=["user", "status", "kind"], name="memory_user_status_kind_idx"),
            # The staff search (``memories_ranked``): trigram word similarity against content.
            GinIndex(fields=["content"], name="memory_content_trgm_idx", opclasses=["gin_trgm_ops"]),
            # The purge: memories whose expiry has passed.
            models.Index(fields=["expires_at"], name="memory_expires_idx", condition=Q(expires_at__isnull=False)),
            # The staff review queue.
            models.Index(fields=["created_at"], name="memory_pending_idx", condition=Q(status="pending")),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=MemoryKind.values), name="memory_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=MemoryStatus.values), name="memory_status_valid"),
            models.CheckConstraint(condition=Q(importance__gte=1, importance__lte=5), name="memory_importance_1_5"),
            models.CheckConstraint(condition=Q(writer_type__in=WriterType.values), name="memory_writer_type_valid"),
            models.CheckConstraint(condition=~Q(content=""), name="memory_content_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} of user {self.user_id}"


class MemoryPreference(models.Model):
    """Per-user switch for long-term memory (absent row = on)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_preference")
    long_term_enabled = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Memory {'on' if self.long_term_enabled else 'off'} for user {self.user_id}"


class PendingMemory(Memory):
    """The staff review queue: memories of review kinds waiting for approval (admin only)."""

    class Meta:
        proxy = True
        verbose_name = "pending memory"
        verbose_name_plural = "pending memories (review queue)"


class MemoryEmbedding(models.Model):
    """A memory's content embedding (float16 bytes), for the semantic list of memory recall.

    ``content_md5`` is the hash of the text that was embedded: after an edit the vector
    is stale and ignored (the search falls back to the lexical lists) until the
    background task re-embeds it. The foreign key also cascades in the database
    (migration 0005): the erasure deletes memories with a raw DELETE.
    """

    memory = models.OneToOneField(Memory, on_delete=models.CASCADE, primary_key=True, related_name="embedding")
    model = models.CharField(max_length=64)
    content_md5 = models.CharField(max_length=32)
    vector = models.BinaryField()
    embedded_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Embedding of memory {self.memory_id}"
