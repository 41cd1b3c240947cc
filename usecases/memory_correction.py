"""Correcting a memory: a new text supersedes it, under the lock order of every correction."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from conversations.services import message_lock_for_correction
from memories import services
from memories.models import Memory


def memory_correct(*, actor: User, memory: Memory, content: str) -> Memory:
    """Replace ``memory`` by a corrected text (``memories.services.memory_correct``).

    The statement the memory was drawn from is locked first, then the memory: the one
    lock order of corrections (a correction of that statement supersedes this memory too,
    ``usecases/message_correction.py``), so the two never deadlock.
    """
    with transaction.atomic():
        if memory.source_message_id:
            message_lock_for_correction(message_id=memory.source_message_id)
        return services.memory_correct(actor=actor, memory=memory, content=content)
