"""What the pages show of messages and runs: plain data for the templates."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString

from agents import selectors as run_selectors
from agents.models import Run
from conversations import selectors as conversation_selectors
from conversations.content import STOPPED_MARK, correction_words, is_stopped
from conversations.models import Message, MessageRole, Thread
from usecases.turn.registry import AGENTS
from web.markdown import render_markdown

# Friendly words for a failed run, by error code. The user's message is always kept.
FRIENDLY_ERRORS: dict[str, str] = {
    "model_unavailable": "The model is not available right now.",
    "rate_limited": "The model is busy with too many requests just now.",
    "timeout": "The model took too long to answer.",
    "too_long": "This conversation has grown too long for the model. Start a new conversation to go on.",
    "bad_request": "The model could not accept this request.",
    "step_limit": "The reply needed too many steps and was stopped.",
    "rejected": "A staff member declined the action this reply asked for.",
    "worker_lost": "The reply was interrupted several times.",
    "internal": "Something went wrong on our side.",
}
GENERIC_ERROR = "Something went wrong while writing the reply."
# Tool calls shown as a small note under a reply, in words a user reads.
TOOL_LABELS = {
    "remember_fact": "saved to memory",
    "recall_facts": "looked in memory",
    "forget_fact": "removed from memory",
    "search_history": "searched this conversation",
    "get_current_date": "checked the date",
    "request_approval": "asked for staff approval",
}
# A refused call (memory off, incognito, bad arguments) says what did not happen, or nothing.
REFUSED_TOOL_LABELS = {
    "remember_fact": "not saved to memory",
    "forget_fact": "nothing removed from memory",
}


def agent_title(name: str) -> str:
    spec = AGENTS.get(name)
    return spec.title if spec else name


@dataclass(frozen=True)
class CorrectionView:
    """A correction shown at the message it corrects, in the words it was given."""

    note_id: int
    right_value: str
    about: str
    by_you: bool


@dataclass
class MessageView:
    id: int
    sequence: int
    role: str
    html: SafeString
    agent: str = ""
    tools: list[str] = field(default_factory=list)
    run_id: Any = None
    # Older messages of the thread the reply's context quoted (``web.presenters.run_excerpts_for``).
    excerpts: list[dict] = field(default_factory=list)
    # Where "Correct" posts (what the user or the assistant said), and a refused correction.
    correct_url: str = ""
    correction_error: str = ""
    # A reply the person stopped while it was written (the words until then are shown).
    stopped: bool = False
    # Its corrections, oldest first (the notes are shown here, not as messages of their own).
    corrections: list[CorrectionView] = field(default_factory=list)


def _tool_label(block: dict[str, Any], refused: Collection[str]) -> str:
    name = block.get("name", "")
    if block.get("id") in refused:
        return REFUSED_TOOL_LABELS.get(name, "")
    return TOOL_LABELS.get(name, "used a tool")


def message_view(message: Message, *, refused: Collection[str] = ()) -> MessageView:
    """``refused``: ids of tool calls whose result was a refusal (their note says so)."""
    texts, tools = [], []
    for block in message.content or []:
        if block.get("type") == "text" and block.get("text") != STOPPED_MARK:
            texts.append(block.get("text", ""))
        elif block.get("type") == "tool_use" and (label := _tool_label(block, refused)):
            tools.append(label)
    text = "\n\n".join(t for t in texts if t)
    # What the user typed is shown as typed (escaped, line breaks kept by CSS); replies as markdown.
    html = escape(text) if message.role == MessageRole.USER else render_markdown(text)
    return MessageView(
        id=message.pk,
        sequence=message.sequence,
        role=message.role,
        html=html,
        agent=agent_title(message.agent) if message.agent else "",
        tools=sorted(set(tools)),
        run_id=message.run_id,
        stopped=is_stopped(message.content or []),
        correct_url=reverse(
            "web:message-correct", kwargs={"thread_id": message.thread_id, "sequence": message.sequence}
        )
        if message.role in (MessageRole.USER, MessageRole.ASSISTANT)
        else "",
    )


def messages_for_display(messages: list[Message], *, excerpts: dict | None = None) -> list[MessageView]:
    """One bubble per spoken message: a tool step without text lends its note to the next reply.

    ``excerpts`` (run id -> quoted older messages) go under the run's first reply.
    """
    shown: list[MessageView] = []
    carried: list[str] = []
    excerpts = dict(excerpts or {})
    refused = _refused_calls(messages)
    corrections = _corrections_at_their_message(messages)
    shown_apart = [m for m in messages if m.pk not in corrections["notes"]]
    for view in (message_view(m, refused=refused) for m in shown_apart):
        view.corrections = corrections["by_message"].get(view.id, [])
        if view.corrections:
            view.correct_url = ""  # a message is corrected once (usecases.message_correction)
        if not str(view.html).strip():
            carried += view.tools
            continue
        if carried and view.role == MessageRole.ASSISTANT:
            view.tools = sorted(set(carried + view.tools))
            carried = []
        if view.role == MessageRole.ASSISTANT and view.run_id in excerpts:
            view.excerpts = excerpts.pop(view.run_id)
        shown.append(view)
    return shown


def _corrections_at_their_message(messages: list[Message]) -> dict[str, Any]:
    """The correction notes among ``messages`` whose statement is shown too, by the statement's id."""
    shown = {m.pk for m in messages}
    by_message: dict[int, list[CorrectionView]] = {}
    notes = set()
    for note in messages:
        words = correction_words(note.content or []) if note.corrects_id in shown else None
        if note.corrects_id is None or words is None:
            continue
        notes.add(note.pk)
        view = CorrectionView(
            note_id=note.pk, right_value=words.right_value, about=words.about, by_you=words.by == "the user"
        )
        by_message.setdefault(note.corrects_id, []).append(view)
    return {"notes": notes, "by_message": by_message}


def _refused_calls(messages: list[Message]) -> set[str]:
    """Refused tool calls of ``messages``' runs (a query only when some message called a tool)."""
    run_ids = {
        m.run_id
        for m in messages
        if m.run_id and any(b.get("type") == "tool_use" for b in m.content or [] if isinstance(b, dict))
    }
    return conversation_selectors.tool_calls_refused(run_ids=list(run_ids)) if run_ids else set()


def run_excerpts_for(*, thread: Thread, messages: list[Message]) -> dict:
    """The quoted older messages of the runs that wrote ``messages``."""
    run_ids = {m.run_id for m in messages if m.run_id and m.role == MessageRole.ASSISTANT}
    if not run_ids:
        return {}
    refs = run_selectors.run_excerpt_refs(thread=thread, run_ids=list(run_ids))
    rows = conversation_selectors.message_excerpts(thread=thread, message_ids=[i for ids in refs.values() for i in ids])
    out = {run_id: [rows[i] for i in ids if i in rows] for run_id, ids in refs.items()}
    return {run_id: shown for run_id, shown in out.items() if shown}


def run_error_text(run: Run) -> str:
    return FRIENDLY_ERRORS.get(run.error_code, GENERIC_ERROR)


def thread_tokens(thread: Thread) -> dict[str, Any]:
    """Tokens sent against a full resend, and in words which cost more: on a short
    conversation the memory layer (summary, recalled memories, tools) can cost more than
    resending everything, and the page says so rather than "0% saved"."""
    sent, full = thread.tokens_sent, thread.tokens_full_resend
    saved = 0 if not full else round(100 * (1 - sent / full))
    if saved > 0:
        comparison = f"{saved}% saved"
    elif saved < 0:
        comparison = f"cost {-saved}% more than resending"
    else:
        comparison = "about the same as resending"
    return {"sent": sent, "full": full, "saved_percent": max(0, saved), "comparison": comparison}
