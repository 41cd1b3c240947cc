"""A message that changes a memory, when its turn stored nothing from it: the newest statement wins.

The agent stores the sentence a message states a fact in; a change told through what happened
("The Alfama flat fell through … We've signed for a flat in Campo de Ourique instead", "Rosa va
in pensione a fine mese. Dal primo arriva Annalisa") is often no sentence it keeps, and the
older memory stayed active and was recalled in every new conversation (session 16: 41 of 74
stale memories were never put to the change test). After such a turn the person's statements
are put to it, all together and then one by one (``change_pieces``), as a change only
(``memory_remember``'s ``only_if_it_replaces``): stored only as the newer version of a memory
they supersede, else nothing is written.
"""

from __future__ import annotations

import re

from conversations.content import blocks_to_text
from conversations.extractive import sentences
from conversations.informative import asks, gives_a_task
from conversations.models import Message
from memories.models import Memory
from memories.services import RememberOutcome, memory_remember
from memories.write_rules import MemoryWriteRefused

# Who the change is written by, in the memory's history.
WRITER_NAME = "change check"
# Refusals that hold for every piece of the message.
SWITCHED_OFF = ("memory_disabled", "foreign_source", "incognito", "memory_off")


def change_pieces(text: str) -> list[str]:
    """What ``text`` states, to put to the change test: its statements together (the whole message,
    its questions and tasks for the assistant left out), then each one. A question ("what's my
    deadline now?") or a request ("Rifammi il cartello") states no value, whatever words it has."""
    said = [
        s.strip() for s in sentences(text or "") if any(c.isalnum() for c in s) and not asks(s) and not gives_a_task(s)
    ]
    pieces = [" ".join(said)] if len(said) > 1 else []
    for piece in said:
        if piece not in pieces:
            pieces.append(piece)
    return pieces


def message_changes_memory(*, message_id: int) -> RememberOutcome | None:
    """Put the person's message ``message_id`` to the change test if its turn stored no memory from
    it; the first piece (``change_pieces``) that supersedes a memory is stored as its newer version."""
    message = Message.objects.select_related("thread__owner").filter(pk=message_id, role="user").first()
    if message is None or Memory.objects.filter(source_message=message).exists():
        return None
    thread = message.thread
    for piece in change_pieces(blocks_to_text(message.content)):
        try:
            return memory_remember(
                user=thread.owner,
                content=piece,
                writer_type="agent",
                writer_name=WRITER_NAME,
                source_thread=thread,
                source_message=message,
                only_if_it_replaces=True,
                supersedes_if=new_value_for,
            )
        except MemoryWriteRefused as refused:
            if refused.code in SWITCHED_OFF:
                return None
    return None


# A value: a name past a sentence's first word, or a token holding a digit ("19 April", "KR-55817");
# a capitalised word anywhere, to match a name that opens the other text's sentence ("Rosa va in pensione").
_VALUE = re.compile(r"(?<![.!?]\s)(?<!^)\b(?!I['’])[A-Z][\w'’-]+|[\w:./-]*\d[\w:./-]*")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]+|[\w:./-]*\d[\w:./-]*")


def new_value_for(piece: str, memory: str) -> bool:
    """Whether ``piece`` gives ``memory`` a new value in place of one: each names a value the other does
    not, and they share one (the thing changed: "Monzo asked if I could start on 17 March instead" for
    "… Monzo …, starting 3 March"; not "Dr. Okafor said he's doing great" for "our pediatrician is
    Dr. Okafor").

    Said after a turn that stored nothing, most sentences are plans, feelings or another thing's
    news ("first day tomorrow. nervous!", "un nuovo AD a dicembre"); the change test's cue words
    and closeness in meaning alone retired memories they were not about.
    """
    mine, theirs = set(_VALUE.findall(piece)), set(_VALUE.findall(memory))
    mine_any, theirs_any = set(_CAPITALISED.findall(piece)), set(_CAPITALISED.findall(memory))
    return bool(mine - theirs_any) and bool(theirs - mine_any) and bool(mine & theirs_any or mine_any & theirs)
