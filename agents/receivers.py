"""What agents adds to the writes of the apps below it (connected in ``AgentsConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from agents.models import Run, TraceEvent, TraceKind
from conversations.signals import summary_traced


@receiver(summary_traced, dispatch_uid="agents.trace_summary")
def trace_summary(
    *, run_id: str, payload: dict[str, Any], tokens_in: int, tokens_out: int, duration_ms: int, **_: Any
) -> None:
    """A ``summary`` trace event on the run that triggered the summary job (if it still exists)."""
    if not Run.objects.filter(pk=run_id).exists():
        return
    event = TraceEvent(
        run_id=run_id,
        kind=TraceKind.SUMMARY,
        name="summarize_thread",
        payload=payload,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=duration_ms,
    )
    event.full_clean()
    event.save()
