"""What the conversations app tells the apps above it, without importing them.

``agents`` records the summary job's outcome on the run that triggered it by
connecting a receiver in its ``AppConfig.ready()`` (``agents/receivers.py``). The
signal is sent inside the writer's transaction.
"""

from __future__ import annotations

from django.dispatch import Signal

# The summary job decided (summarized or waited) for the run that triggered it.
# Arguments: ``run_id``, ``payload`` (figures, never text), ``tokens_in``,
# ``tokens_out``, ``duration_ms``. agents: records it as the run's ``summary`` trace event.
summary_traced = Signal()
