"""Helpers for chat-turn tests: post turns through the real services and runner."""

from __future__ import annotations

from agents.models import Run
from conversations.models import Message, Thread
from usecases.turn.runner import run_execute
from usecases.turns import turn_submit


def run_turn(user, thread: Thread, content: str) -> Run:
    """Submit a turn and execute its run in this process (the worker's code path)."""
    _message, run = turn_submit(user=user, thread=thread, content=content)
    run_execute(run_id=str(run.id))
    run.refresh_from_db()
    return run


def reply_text(run: Run) -> str:
    msg = Message.objects.filter(run=run, role="assistant").order_by("-sequence").first()
    return msg.text if msg else ""
