"""Explicit corrections of what was said (docs/design.md: "a correction message that names what to ignore").

The owner (web chat, API) or staff (admin, API) mark a statement in the history as wrong
and give the right value. In one transaction:

- a correction note (a ``system`` message with the next sequence, referencing the
  statement) is appended to the thread: the statement itself stays;
- every active or pending memory drawn from the statement (its provenance's source
  message; for a reply, the run that wrote it) is superseded by one that holds the
  right value, drawn from the note.

The context keeps the note wherever the statement is (``usecases.turn.context``), and the
summarizer writes the right value instead of the wrong one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from conversations.content import correction_words
from conversations.models import Message, MessageRole
from conversations.services import message_correct, message_lock_for_correction
from liamemory.errors import Conflict
from memories.matching import extract_claim
from memories.models import Memory, MemoryStatus
from memories.services import memory_correct


@dataclass(frozen=True)
class StatementCorrection:
    note: Message
    corrected: Message
    # (superseded memory, the memory that replaced it)
    memories: list[tuple[Memory, Memory]]


def corrected_memory_text(*, old: str, right_value: str, about: str = "", limit: int = 180) -> str:
    """What a memory drawn from a wrong statement should say instead.

    A right value that is a statement of its own ("my order number is B-1200") is the
    new memory; a bare value ("B-1200") takes the old value's place in the old memory
    ("my order number is A-7781" → "my order number is B-1200"); otherwise the subject
    and the value are put side by side.
    """
    if extract_claim(right_value) is not None and len(right_value) <= limit:
        return right_value
    claim = extract_claim(old)
    if claim is not None and claim.value:
        span = re.search(re.escape(claim.value), old, flags=re.IGNORECASE)
        if span:
            replaced = old[: span.start()] + right_value + old[span.end() :]
            if len(replaced) <= limit:
                return replaced
    subject = about or old
    return f"{subject}: {right_value}"[:limit]


def statement_correct(
    *, actor: User, message: Message, right_value: str, about: str = "", by_staff: bool = False
) -> StatementCorrection:
    """Mark ``message`` as wrong with the right value (see the module docstring).

    The caller has checked that ``actor`` may: the thread's owner, or staff. A statement
    is corrected once: of parallel corrections the first writes its note and the others
    find it corrected (``Conflict``), never six contradicting notes. Rows are locked in
    the one order every correction uses (``memories.services.memory_correct`` too): the
    statement, then the memories drawn from it by id, so a memory corrected at the same
    time waits or is skipped, and nothing deadlocks.
    """
    with transaction.atomic():
        locked = message_lock_for_correction(message_id=message.pk)
        if locked is None:
            raise Conflict("This message no longer exists.")
        message = locked
        earlier = message.corrections.order_by("sequence").first()
        if earlier is not None:
            raise _corrected_already(message=message, note=earlier, right_value=right_value)
        note = message_correct(
            message=message, right_value=right_value, about=about, by="staff" if by_staff else "the user"
        )
        replaced = []
        # Drawn from the statement: remembered from this message, or, for a reply, in the
        # run that wrote it (the reply says what it remembered). Locked now, by id; one
        # superseded meanwhile by its own correction is left to that correction.
        source = Q(source_message=message)
        if message.role == MessageRole.ASSISTANT and message.run_id:
            source |= Q(source_run_id=message.run_id)
        drawn = list(
            Memory.objects.filter(source, status__in=[MemoryStatus.ACTIVE, MemoryStatus.PENDING])
            .select_for_update()
            .order_by("id")
        )
        for old in drawn:
            text = corrected_memory_text(old=old.content, right_value=note_value(right_value), about=about)
            new = memory_correct(actor=actor, memory=old, content=text)
            # The right value came from the note: that is the new memory's source.
            new.source_message = note
            new.save(update_fields=["source_message", "updated_at"])
            old.refresh_from_db()
            replaced.append((old, new))
    return StatementCorrection(note=note, corrected=message, memories=replaced)


def note_value(right_value: str) -> str:
    return " ".join(right_value.split())


def _corrected_already(*, message: Message, note: Message, right_value: str) -> Conflict:
    """The refusal of a second correction, in words a person reads at the message (the same one twice, or another)."""
    words = correction_words(note.content or [])
    before = words.right_value if words else ""
    extra = {"sequence": message.sequence, "note_sequence": note.sequence, "right_value": before}
    if note_value(right_value).casefold() == before.casefold():
        return Conflict(f"This correction is already saved: “{before}”. Nothing was changed.", extra=extra)
    return Conflict(
        f"This message was already corrected to “{before}”, and a message is corrected once. To change the "
        "right value again, correct the memory it produced (What I remember) or say it in the conversation.",
        extra=extra,
    )
