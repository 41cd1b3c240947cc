"""Reads on runs, scoped to their owner."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from agents.models import Run, RunStatus
from conversations.models import Message, MessageRole
from liamemory.api import NotFound


def run_get_for_user(*, user: AbstractBaseUser, run_id) -> Run:
    """Another user's run answers exactly like a missing one."""
    try:
        return Run.objects.select_related("thread", "request_message").get(pk=run_id, user=user)
    except (Run.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("Run not found.") from exc


def run_reply(*, run: Run) -> Message | None:
    """The final assistant message a completed run wrote."""
    if run.status != RunStatus.COMPLETED:
        return None
    return Message.objects.filter(run=run, role=MessageRole.ASSISTANT).order_by("-sequence").first()
