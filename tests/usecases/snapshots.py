"""What is stored, as one comparable value: a refused request must leave it as it was."""

from __future__ import annotations

from django.db.models import Count

from agents.models import Run
from conversations.models import Message, Thread, ThreadSummary
from governance.models import ErasureRequest, LegalHold
from memories.models import Memory, MemoryPreference


def stored_state() -> dict:
    return {
        "threads": sorted(Thread.objects.values_list("id", "owner_id", "title", "incognito")),
        "messages": sorted(Message.objects.values("thread_id").annotate(n=Count("id")).values_list("thread_id", "n")),
        "summaries": ThreadSummary.objects.count(),
        "runs": sorted(Run.objects.values_list("id", "status")),
        "memories": sorted(Memory.objects.values_list("id", "user_id", "content", "status", "importance")),
        "memory_audit": Memory.history.model.objects.count(),
        "preferences": sorted(MemoryPreference.objects.values_list("user_id", "long_term_enabled")),
        "erasure_requests": ErasureRequest.objects.count(),
        "legal_holds": LegalHold.objects.count(),
    }
