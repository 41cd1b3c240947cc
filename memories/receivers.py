"""What memories adds to the writes of the apps below it (connected in ``MemoriesConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from conversations.signals import messages_stored
from memories import embeddings
from memories.tasks import embed_messages


@receiver(messages_stored, dispatch_uid="memories.embed_stored_messages")
def embed_stored_messages(*, messages: list[Any], **_: Any) -> None:
    """Embed new messages for the history search, after commit, in a worker.

    The turn never waits for the model, and search treats a message without a
    vector lexically until it has one.
    """
    ids = [m.pk for m in messages if m.text]
    if ids and embeddings.enabled():
        embed_messages.delay_on_commit(ids)
