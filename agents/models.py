"""Runs (one per user turn) and the trace events of every step inside them."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from liamemory.llm import ModelErrorCode


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"
    INTERRUPTED = "interrupted", "Waiting for approval"
    CANCELLED = "cancelled", "Cancelled"


class RunErrorCode(models.TextChoices):
    MODEL_UNAVAILABLE = ModelErrorCode.MODEL_UNAVAILABLE.value, "Model unavailable"
    RATE_LIMITED = ModelErrorCode.RATE_LIMITED.value, "Rate limited"
    TIMEOUT = ModelErrorCode.TIMEOUT.value, "Timed out"
    TOO_LONG = ModelErrorCode.TOO_LONG.value, "Too long for the model"
    BAD_REQUEST = ModelErrorCode.BAD_REQUEST.value, "Rejected by the model API"
    STEP_LIMIT = "step_limit", "Too many tool steps"
    REJECTED = "rejected", "Action rejected by staff"
    WORKER_LOST = "worker_lost", "Worker lost too many times"
    NEVER_STARTED = "never_started", "Never picked up by a worker"
    INTERNAL = ModelErrorCode.INTERNAL.value, "Internal error"


class RunQuerySet(models.QuerySet["Run"]):
    def for_user(self, user) -> RunQuerySet:
        return self.filter(user=user)

    def expired(self, now) -> RunQuerySet:
        return self.filter(expires_at__lte=now)


class Run(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    thread = models.ForeignKey("conversations.Thread", on_delete=models.CASCADE, related_name="runs")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs")
    request_message = models.ForeignKey(
        "conversations.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="request_runs"
    )
    agent = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    error_code = models.CharField(max_length=32, choices=RunErrorCode.choices, blank=True)
    error_message = models.TextField(blank=True)
    model = models.CharField(max_length=100, blank=True)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    tokens_cached = models.PositiveIntegerField(default=0)
    tokens_cache_write = models.PositiveIntegerField(default=0)
    # What resending the whole history would have cost for this turn (estimate).
    tokens_full_resend = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When the run last entered ``queued`` (made, or given back by the reaper), and whether
    # the reaper has already sent its task again because no worker took it: the reaper
    # finds runs queued too long, sends them once more, then fails them.
    queued_at = models.DateTimeField(default=timezone.now)
    redelivered = models.BooleanField(default=False)
    # What went into the prompt (summary version, memory ids, window bounds, token
    # estimates): ``agents.context_report.ContextReport`` as JSON, read back with
    # ``context_report_read``. Null until the run has assembled its context.
    context_report = models.JSONField(null=True, blank=True)
    # The reply as it is being written (streaming): text so far and the tool steps
    # taken so far, appended by the worker and read by the web. Cleared when the run
    # completes (the messages hold the reply then); deleted with the run like the rest.
    partial_text = models.TextField(blank=True, default="")
    partial_steps = models.JSONField(default=list, blank=True)
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        indexes = [
            # A thread's runs newest first.
            models.Index(fields=["thread", "-created_at"], name="run_thread_created_idx"),
            # "Is a run of this thread queued, running or waiting for staff?" (every POST of a
            # turn): the unique index below leaves out ``interrupted``, so without this one the
            # check read every run the thread ever had (208 pages at 1,280 runs).
            models.Index(
                fields=["thread"],
                name="run_unfinished_thread_idx",
                condition=Q(status__in=["queued", "running", "interrupted"]),
            ),
            # The reaper: runs stuck in running since before a cut-off.
            models.Index(fields=["started_at"], name="run_running_started_idx", condition=Q(status="running")),
            # The reaper: runs left queued since before a cut-off.
            models.Index(fields=["queued_at"], name="run_queued_at_idx", condition=Q(status="queued")),
            # The purge: runs whose expiry has passed.
            models.Index(fields=["expires_at"], name="run_expires_idx", condition=Q(expires_at__isnull=False)),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=RunStatus.values), name="run_status_valid"),
            # At most one queued or running run per thread (``state_machine.WORKING``): the
            # 409 of the turn API, held by the database even under concurrent posts.
            models.UniqueConstraint(
                fields=["thread"], condition=Q(status__in=["queued", "running"]), name="run_one_active_per_thread"
            ),
        ]

    def __str__(self) -> str:
        return f"Run {self.id} ({self.status})"


class RunTransition(models.Model):
    """One move of a run from a state to another (``agents/state_machine.py``): its life, row by row."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="transitions")
    # Blank for the first row, when the run was made.
    from_status = models.CharField(max_length=16, choices=RunStatus.choices, blank=True)
    to_status = models.CharField(max_length=16, choices=RunStatus.choices)
    # Why: the error code of a failure, or what moved it ("claimed", "cancelled", "approved", …).
    reason = models.CharField(max_length=32, blank=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["run", "id"]
        indexes = [
            # A run's transitions in order (admin inline, export, erasure).
            models.Index(fields=["run", "id"], name="run_transition_run_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(to_status__in=RunStatus.values) & Q(from_status__in=["", *RunStatus.values]),
                name="run_transition_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_status or 'new'} → {self.to_status}"


class TraceKind(models.TextChoices):
    MODEL_CALL = "model_call", "Model call"
    TOOL_CALL = "tool_call", "Tool call"
    RETRIEVAL = "retrieval", "Retrieval"
    SUMMARY = "summary", "Summary"
    CONTEXT = "context", "Context assembly"


class TraceEvent(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="trace_events")
    kind = models.CharField(max_length=16, choices=TraceKind.choices)
    name = models.CharField(max_length=100)
    payload = models.JSONField(default=dict, blank=True)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "id"]
        indexes = [
            # A run's events in order (admin inline, export, erasure).
            models.Index(fields=["run", "id"], name="trace_run_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=TraceKind.values), name="trace_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


class ApprovalDecision(models.TextChoices):
    PENDING = "pending", "Waiting for a decision"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    # The run was cancelled (by its person, or an erasure) before staff decided.
    WITHDRAWN = "withdrawn", "Withdrawn"


class ApprovalQuerySet(models.QuerySet["Approval"]):
    def waiting(self) -> ApprovalQuerySet:
        """The staff's queue: undecided, and the run still waits for them."""
        return self.filter(decision=ApprovalDecision.PENDING, run__status=RunStatus.INTERRUPTED)


class Approval(models.Model):
    """An action a run asked staff to allow (``request_approval`` above the threshold), and their decision.

    Made when the run is interrupted (``run_lifecycle.run_interrupt``), decided once
    (``run_lifecycle.approval_decide``); the run resumes from ``checkpoint_id``.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="approvals")
    # What the model asked to do: the tool that asked, its reason and amount (euros).
    action = models.CharField(max_length=64)
    reason = models.TextField(blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    # The LangGraph checkpoint the run waits at, and resumes from once decided.
    checkpoint_id = models.CharField(max_length=64)
    decision = models.CharField(max_length=16, choices=ApprovalDecision.choices, default=ApprovalDecision.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="approvals_decided"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    requested_at = models.DateTimeField(default=timezone.now)

    objects = ApprovalQuerySet.as_manager()

    class Meta:
        indexes = [
            # The staff's queue: undecided approvals, oldest first.
            models.Index(fields=["requested_at"], name="approval_pending_idx", condition=Q(decision="pending")),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(decision__in=ApprovalDecision.values), name="approval_decision_valid"),
            # A run waits for one decision at a time.
            models.UniqueConstraint(
                fields=["run"], condition=Q(decision="pending"), name="approval_one_pending_per_run"
            ),
            # Decided means when; pending means not yet.
            models.CheckConstraint(
                condition=Q(decision="pending", decided_at__isnull=True)
                | (~Q(decision="pending") & Q(decided_at__isnull=False)),
                name="approval_decided_at",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} ({self.decision})"
