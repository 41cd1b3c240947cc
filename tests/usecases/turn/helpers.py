"""Helpers for chat-turn tests: post turns through the real services and runner."""

from __future__ import annotations

from agents.context_report import ContextReport, context_report_read
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


def report_of(run: Run) -> ContextReport:
    """The context report the run recorded (read back as every reader does)."""
    report = context_report_read(run.context_report)
    assert report is not None, "the run recorded no context report"
    return report
