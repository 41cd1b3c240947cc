"""Executes a claimed run through the graph, and resumes one after a staff decision."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from langgraph.types import Command

from agents import run_lifecycle
from agents.checkpointer import shared_saver
from agents.context_report import context_report_read
from agents.models import Run, RunErrorCode, RunStatus
from agents.selectors import approval_decided_last
from agents.streaming import RunStream
from conversations.models import Thread
from liamemory.database import pool_timed_out
from liamemory.llm import AnthropicModel, ChatModel, ModelError
from liamemory.personal_data import Event
from memories.selectors import long_term_memory_allowed, memory_preference_of, memory_preference_value
from usecases.thread_deletion import threads_delete
from usecases.turn.graph import TurnRuntime, build_graph, initial_state
from usecases.turn.offline import OfflineModel
from usecases.turn.registry import get_agent

logger = logging.getLogger(__name__)


class RunLeftRunning(Exception):
    """The run's end could not be recorded (back to the queue after a database error, or
    failed after a model's or an internal one): the database is away, and the connection
    outside the pool failed too. The run is still ``running`` under this worker's claim,
    which started at ``claimed_at``; the task's retry gives it back and runs it again
    (``run_execute``) as soon as the database answers, not the reaper after ``RUN_STALE_AFTER``."""

    def __init__(self, run_id: str, claimed_at: datetime) -> None:
        super().__init__(f"run {run_id} left running (claimed at {claimed_at.isoformat()})")
        self.run_id, self.claimed_at = run_id, claimed_at


def model_for_run(run: Run) -> ChatModel:
    """The model the run recorded when it was queued (``usecases.turns.chat_model_name``
    chose it, once): "offline" (or none recorded) for the offline model, else a Claude model."""
    if run.model in ("", "offline"):
        return OfflineModel()
    return AnthropicModel(run.model)


_compiled: tuple[Any, Any] | None = None


def _graph() -> Any:
    """The compiled graph, built once per process and checkpointer pool (compiling costs tens of ms).

    It holds no per-run state: the run's runtime and config go to each ``invoke``.
    """
    global _compiled
    saver = shared_saver()
    pool = getattr(saver, "conn", saver)  # a new saver object each call, over the process's one pool
    if _compiled is None or _compiled[0] is not pool:
        _compiled = (pool, build_graph(saver))
    return _compiled[1]


def _runtime(run_id: str) -> TurnRuntime:
    """The run with its thread, user and request message: the turn's one read of the run row."""
    # The person's memory switch comes with it: one statement, where it was two.
    run = (
        Run.objects.select_related("thread", "user", "request_message")
        .annotate(memory_preference=memory_preference_of("user_id"))
        .get(pk=run_id)
    )
    if run.request_message is None:
        raise ValueError(f"run {run_id} has no request message (it was deleted)")
    return TurnRuntime(
        run=run,
        thread=run.thread,
        user=run.user,
        agent=get_agent(run.agent),
        model=model_for_run(run),
        request_message=run.request_message,
        memory_allowed=long_term_memory_allowed(
            user=run.user, thread=run.thread, preference=memory_preference_value(run.memory_preference)
        ),
        stream=RunStream(run.pk) if settings.STREAM_REPLIES else None,
    )


def _config(rt: TurnRuntime, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": str(rt.thread.pk), "user_id": rt.user.pk, "run_id": str(rt.run.pk)}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable, "recursion_limit": 4 * rt.agent.max_steps + 10}


def _drop_orphaned_checkpoints(thread_id: Any) -> None:
    """A run whose thread was erased or deleted meanwhile may have written a checkpoint
    after the deletion (the saver has its own connection and no foreign key): remove it.

    After every run, the pool busy or not (``despite_busy_pool``): a pool timeout here
    left an erased thread's checkpoint behind, and made a run already ended raise."""
    if thread_id and not Thread.objects.filter(pk=thread_id).exists():
        with transaction.atomic():
            # Whatever deleted the thread took or kept its memories: only rows written
            # since are left, and expiry's rules touch nothing else.
            threads_delete(thread_ids=[thread_id], event=Event.EXPIRE)


def _start(rt: TurnRuntime, decision: dict[str, Any] | None) -> tuple[Any, str | None] | None:
    """The graph's input and the checkpoint it continues from; None when there is nothing to resume.

    A staff decision (``decision``, just made) resumes from its approval's checkpoint. So
    does a run claimed again after such a decision (its resume met a busy pool or an
    outage, or its worker died: ``run_requeue``, the reaper), with the decision read back
    from its approval: starting it over would ask staff again. Only a run claimed before
    can have one (``attempts``), so a first attempt reads nothing more.
    """
    if decision is None and rt.run.attempts <= 1:
        return initial_state(), None
    if rt.run.status != RunStatus.RUNNING:
        return None
    approval = approval_decided_last(run_id=rt.run.pk)
    if approval is None:
        return (initial_state(), None) if decision is None else None
    value = run_lifecycle.approval_resume_value(approval) if decision is None else decision
    return Command(resume=value), approval.checkpoint_id


def _drive(run_id: str, decision: dict[str, Any] | None = None, claimed_at: datetime | None = None) -> None:
    """Load the turn's runtime (its one read of the run) and drive the graph to its end or interrupt.

    ``claimed_at`` is this worker's claim of the run, when it made one (``RunLeftRunning``).
    """
    started = time.monotonic()
    rt: TurnRuntime | None = None
    try:
        rt = _runtime(run_id)
        start = _start(rt, decision)
        if start is None:
            logger.info("run %s is not resumable", run_id)
            return
        graph_input, checkpoint_id = start
        graph = _graph()
        result = graph.invoke(
            graph_input, _config(rt, checkpoint_id), context=rt, durability=settings.CHECKPOINT_DURABILITY
        )
        if result.get("__interrupt__"):
            state = graph.get_state(_config(rt))
            run_lifecycle.run_interrupt(
                run_id=run_id,
                request=run_lifecycle.ApprovalRequest.from_payload(result["__interrupt__"][0].value),
                checkpoint_id=state.config["configurable"]["checkpoint_id"],
                report=context_report_read(result.get("info")),
            )
    except run_lifecycle.RunNoLongerActive:
        logger.info("run %s ended elsewhere (cancelled or erased); its results were dropped", run_id)
    except ModelError as exc:
        logger.warning("run %s failed: %s", run_id, exc.code)
        latency_ms = int((time.monotonic() - started) * 1000)
        fail = partial(run_lifecycle.run_fail, run_id=run_id, code=exc.code, message=exc.message, latency_ms=latency_ms)
        _record_end(run_id, claimed_at, exc, fail)
    except Run.DoesNotExist:
        logger.info("run %s no longer exists", run_id)
    except run_lifecycle.DATABASE_UNAVAILABLE_ERRORS as exc:
        # Not the run's fault (either pool busy, or the database away): the run goes back
        # to the queue and its task is retried (``usecases/turn/tasks.py``), a resumed one
        # continuing from its staff decision (``_start``); the requeue gets past a pool
        # that is only busy (``run_requeue``). If the database is still away, the requeue
        # fails too and the task's retry gives the run back (``RunLeftRunning``).
        busy = pool_timed_out(exc)
        logger.warning("run %s: %s (%s)", run_id, "pool busy" if busy else "database unavailable", type(exc).__name__)
        _record_end(run_id, claimed_at, exc, partial(run_lifecycle.run_requeue, run_id=run_id))
        raise
    except Exception as exc:
        logger.exception("run %s failed with an internal error", run_id)
        message = "An internal error stopped this reply."
        fail = partial(run_lifecycle.run_fail, run_id=run_id, code=RunErrorCode.INTERNAL, message=message)
        _record_end(run_id, claimed_at, exc, fail)
    finally:
        if rt is not None:
            _clean_up_after(run_id, rt.thread.pk)


def _record_end(run_id: str, claimed_at: datetime | None, exc: BaseException, record: Callable[[], object]) -> None:
    """The run's end as it stands (failed, or back in the queue), past a busy pool. When the
    database is away that fails too, and the run is left ``running``: ``RunLeftRunning``,
    so that the task's retry gives it back and runs it again once the database answers.
    A resume of a run staff decided on (no claim of this worker's) raises the database's
    error instead: its retry drives the run again as it stands."""
    try:
        record()
    except run_lifecycle.DATABASE_UNAVAILABLE_ERRORS:
        if claimed_at is None:
            raise
        raise RunLeftRunning(run_id, claimed_at) from exc


def _clean_up_after(run_id: str, thread_id: Any) -> None:
    """The orphaned checkpoints of a thread deleted meanwhile, past a busy pool; in an
    outage they wait for the thread's next run, and the run's own error goes up, not this one."""
    try:
        run_lifecycle.despite_busy_pool(lambda: _drop_orphaned_checkpoints(thread_id))
    except run_lifecycle.DATABASE_UNAVAILABLE_ERRORS as exc:
        logger.warning("run %s: clean-up skipped, database unavailable (%s)", run_id, type(exc).__name__)


def _take_back(run_id: str, left_running: datetime | None) -> None:
    """A retry after ``RunLeftRunning``: the run back in the queue first, if still under that claim."""
    if left_running is not None and run_lifecycle.run_requeue_claim(run_id=run_id, started_at=left_running):
        logger.info("run %s, left running in an outage, is back in the queue", run_id)


def run_execute(*, run_id: str, left_running: datetime | None = None) -> None:
    """Claim the run (one conditional UPDATE) and drive the graph; a second delivery does nothing.

    ``left_running``: the claim this task's earlier attempt left running (``RunLeftRunning``).
    """
    _take_back(run_id, left_running)
    claimed_at = run_lifecycle.run_claim(run_id=run_id)
    if claimed_at is None:
        logger.info("run %s was not queued; nothing to do", run_id)
        return
    _drive(run_id, claimed_at=claimed_at)


def run_resume(*, run_id: str, decision: dict[str, Any], left_running: datetime | None = None) -> None:
    """Continue a run staff just decided on, from its checkpoint with the decision.

    The task's retry, after the database failed the resume and the run went back to the
    queue, finds it queued: it claims it as ``run_execute`` does, and the run continues
    from the decision recorded on its approval.
    """
    _take_back(run_id, left_running)
    claimed_at = run_lifecycle.run_claim(run_id=run_id)
    if claimed_at is not None:
        _drive(run_id, claimed_at=claimed_at)
        return
    _drive(run_id, decision)
