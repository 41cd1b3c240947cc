"""Reads on runs, scoped to their owner."""

from __future__ import annotations

from django.contrib.auth.models import User

from agents.models import Run, RunStatus
from conversations.models import Message, MessageRole
from liamemory.errors import NotFound


class RunNotFound(NotFound):
    """A run that does not exist or is not the caller's: the two are indistinguishable."""

    def __init__(self, run_id: object = None) -> None:
        super().__init__("Run not found.")


def run_get_for_user(*, user: User, run_id) -> Run:
    """Another user's run answers exactly like a missing one."""
    try:
        return Run.objects.select_related("thread", "request_message").get(pk=run_id, user=user)
    except (Run.DoesNotExist, ValueError, TypeError) as exc:
        raise RunNotFound(run_id) from exc


def run_reply(*, run: Run) -> Message | None:
    """The final assistant message a completed run wrote."""
    if run.status != RunStatus.COMPLETED:
        return None
    return Message.objects.filter(run=run, role=MessageRole.ASSISTANT).order_by("-sequence").first()


def thread_checkpoints(*, thread, limit: int = 100) -> list[dict]:
    """The thread's LangGraph checkpoints, newest first: id, step, run, what was next."""
    from agents.checkpointer import shared_saver

    out = []
    for tup in shared_saver().list({"configurable": {"thread_id": str(thread.pk)}}, limit=limit):
        values = tup.checkpoint.get("channel_values", {})
        out.append(
            {
                "checkpoint_id": tup.config["configurable"]["checkpoint_id"],
                "step": tup.metadata.get("step"),
                "source": tup.metadata.get("source"),
                "run_id": tup.metadata.get("run_id"),
                "created_at": tup.checkpoint.get("ts"),
                "new_messages": len(values.get("new") or []),
                "next": list(getattr(tup, "next", None) or []),
                "pending_interrupt": bool(
                    tup.pending_writes and any(w[1] == "__interrupt__" for w in tup.pending_writes)
                ),
            }
        )
    return out


def run_latest_for_thread(*, thread) -> Run | None:
    """The thread's newest run (served by the thread/created index): what the chat page shows as pending or failed."""
    return Run.objects.filter(thread=thread).order_by("-created_at").first()


def run_messages(*, run: Run) -> list[Message]:
    """The assistant and system messages a run wrote, in order (tool results left out)."""
    return list(Message.objects.filter(run=run).exclude(role=MessageRole.TOOL).order_by("sequence"))
