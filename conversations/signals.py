"""What the conversations app tells the apps above it, without importing them.

``conversations`` is the lowest domain app: the apps above it (``memories``,
``agents``) add behaviour to its writes by connecting receivers in their
``AppConfig.ready()`` (``memories/receivers.py``, ``agents/receivers.py``). Both
signals are sent inside the writer's transaction.
"""

from __future__ import annotations

from django.dispatch import Signal

# Messages were appended to a thread. Arguments: ``messages`` (list of ``Message``).
# memories: embeds their text for the history search, after commit.
messages_stored = Signal()

# The summary job decided (summarized or waited) for the run that triggered it.
# Arguments: ``run_id``, ``payload`` (figures, never text), ``tokens_in``,
# ``tokens_out``, ``duration_ms``. agents: records it as the run's ``summary`` trace event.
summary_traced = Signal()
