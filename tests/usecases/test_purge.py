"""Retention: every level gets an expiry; the scheduled purge deletes exactly what expired."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from agents.models import Run, RunTransition, TraceEvent
from conversations.content import text_block
from conversations.models import Message, Thread, ThreadSummary
from conversations.services import message_append, thread_create
from governance.models import LegalHold, PurgeRecord
from liamemory.models import RetentionPolicy
from liamemory.retention import memory_expires_at, policy_cache_clear, run_expires_at, thread_expires_at
from memories.models import Memory
from tests.factories import MemoryFactory, RunFactory
from tests.utils import wait_for
from usecases.purge import purge_expired
from usecases.tasks import purge_expired as purge_expired_task

DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def _fresh_policy_cache():
    policy_cache_clear()
    yield
    policy_cache_clear()


def close_to(value, expected, slack=timedelta(minutes=1)) -> bool:
    return value is not None and abs(value - expected) < slack


# --- Expiries ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_threads_expire_after_their_last_activity_incognito_soonest(alice):
    now = timezone.now()
    thread = thread_create(owner=alice)
    incognito = thread_create(owner=alice, incognito=True)
    assert close_to(Thread.objects.get(pk=thread.pk).expires_at, now + 30 * DAY)
    assert close_to(Thread.objects.get(pk=incognito.pk).expires_at, now + DAY)

    Thread.objects.filter(pk=thread.pk).update(expires_at=now + DAY)
    message_append(thread=thread, role="user", content=[text_block("still here")])
    # Touching the thread renews it.
    assert close_to(Thread.objects.get(pk=thread.pk).expires_at, timezone.now() + 30 * DAY)


@pytest.mark.django_db
def test_policies_edited_in_admin_change_the_expiries(alice, staff, client):
    # (A transactional test elsewhere may have flushed the migration's rows.)
    policy, _ = RetentionPolicy.objects.get_or_create(scope="thread", memory_kind="", defaults={"lifetime_days": 30})
    client.force_login(staff)
    staff.is_superuser = True
    staff.save()
    response = client.post(
        f"/admin/liamemory/retentionpolicy/{policy.pk}/change/",
        {"scope": "thread", "memory_kind": "", "lifetime_days": "7"},
    )
    assert response.status_code == 302

    thread = thread_create(owner=alice)
    assert close_to(thread.expires_at, timezone.now() + 7 * DAY)


@pytest.mark.django_db
def test_memories_are_kept_until_forgotten_unless_their_kind_has_a_policy():
    now = timezone.now()
    assert memory_expires_at(kind="fact", now=now) is None
    RetentionPolicy.objects.create(scope="memory", memory_kind="nudge_outcome", lifetime_days=90)
    policy_cache_clear()
    assert memory_expires_at(kind="nudge_outcome", now=now) == now + 90 * DAY
    assert memory_expires_at(kind="fact", now=now) is None
    assert memory_expires_at(kind="fact", incognito=True, now=now) == now + DAY
    assert run_expires_at(now=now) == now + 30 * DAY
    assert run_expires_at(thread=Thread(incognito=False), now=now) == now + 30 * DAY
    assert run_expires_at(thread=Thread(incognito=True), now=now) == now + DAY
    assert thread_expires_at(thread=Thread(incognito=True), now=now) == now + DAY


# --- The purge --------------------------------------------------------------------------------


def add_checkpoint_rows(thread_id) -> None:
    """LangGraph checkpoint rows of a thread, as the checkpointer writes them (no FK)."""
    tid = str(thread_id)
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata)"
            " VALUES (%s, '', 'c1', '{}', '{}'), (%s, '', 'c2', '{}', '{}')",
            [tid, tid],
        )
        cur.execute(
            "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)"
            " VALUES (%s, '', 'messages', '1', 'json', 'x')",
            [tid],
        )
        cur.execute(
            "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, blob)"
            " VALUES (%s, '', 'c2', 't1', 0, 'messages', 'x')",
            [tid],
        )


def checkpoint_rows(thread_id) -> int:
    with connection.cursor() as cur:
        total = 0
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            cur.execute(f"SELECT count(*) FROM {table} WHERE thread_id = %s", [str(thread_id)])
            total += cur.fetchone()[0]
        return total


def full_thread(owner, *, expires_at):
    """A thread with every level: messages, a summary, a run with trace events, checkpoints."""
    thread = thread_create(owner=owner)
    run = RunFactory(thread=thread, status="completed", expires_at=expires_at + 60 * DAY)
    message_append(thread=thread, role="user", content=[text_block("my code is A-7781")], run=run)
    message_append(thread=thread, role="assistant", content=[text_block("noted")], run=run)
    ThreadSummary.objects.create(thread=thread, version=1, text="- code A-7781", covers_through=1, model="m")
    TraceEvent.objects.create(run=run, kind="model_call", name="chat")
    TraceEvent.objects.create(run=run, kind="summary", name="summarize_thread")
    RunTransition.objects.create(run=run, from_status="running", to_status="completed", at=timezone.now())
    add_checkpoint_rows(thread.id)
    Thread.objects.filter(pk=thread.pk).update(expires_at=expires_at)
    return thread, run


@pytest.mark.django_db
def test_purge_removes_exactly_the_expired_rows_of_every_level(alice, bob):
    clock = timezone.now() + 31 * DAY  # past the default 30 days of everything created now
    gone_thread, gone_thread_run = full_thread(alice, expires_at=clock - DAY)
    kept_thread, kept_run = full_thread(bob, expires_at=clock + DAY)
    # An expired run on a living thread goes with its trace events; its message stays.
    old_run = RunFactory(thread=kept_thread, status="completed", expires_at=clock - DAY)
    TraceEvent.objects.create(run=old_run, kind="model_call", name="chat")
    RunTransition.objects.create(run=old_run, from_status="running", to_status="completed", at=timezone.now())
    message_append(thread=kept_thread, role="user", content=[text_block("later")], run=old_run)
    Thread.objects.filter(pk=kept_thread.pk).update(expires_at=clock + DAY)  # the append renewed it to now + 30
    Run.objects.filter(pk=kept_run.pk).update(expires_at=clock + DAY)
    gone_memory = MemoryFactory(user=bob, expires_at=clock - DAY)
    gone_memory.content = "changed"
    gone_memory.save()  # two history rows
    kept_memory = MemoryFactory(user=bob, expires_at=None)
    later_memory = MemoryFactory(user=alice, expires_at=clock + DAY)

    record = purge_expired(now=clock)

    assert not Thread.objects.filter(pk=gone_thread.pk).exists()
    assert not Message.objects.filter(thread_id=gone_thread.pk).exists()
    assert not ThreadSummary.objects.filter(thread_id=gone_thread.pk).exists()
    assert not Run.objects.filter(pk__in=[gone_thread_run.pk, old_run.pk]).exists()
    assert not TraceEvent.objects.filter(run_id__in=[gone_thread_run.pk, old_run.pk]).exists()
    assert not RunTransition.objects.filter(run_id__in=[gone_thread_run.pk, old_run.pk]).exists()
    assert checkpoint_rows(gone_thread.pk) == 0
    assert not Memory.objects.filter(pk=gone_memory.pk).exists()
    assert not Memory.history.filter(id=gone_memory.pk).exists()

    assert Message.objects.filter(thread=kept_thread).count() == 3
    assert Message.objects.get(thread=kept_thread, sequence=3).run_id is None
    assert ThreadSummary.objects.filter(thread=kept_thread).count() == 1
    assert TraceEvent.objects.filter(run=kept_run).count() == 2
    assert RunTransition.objects.filter(run=kept_run).count() == 1
    assert checkpoint_rows(kept_thread.pk) == 4
    assert set(Memory.objects.values_list("pk", flat=True)) == {kept_memory.pk, later_memory.pk}

    assert record.counts == {
        "threads": 1,
        "messages": 2,
        "summaries": 1,
        "runs": 2,
        "trace_events": 3,
        "run_transitions": 2,
        "checkpoint_rows": 4,
        "memories": 1,
        "memory_history": 2,
        "embeddings": 0,  # nothing was embedded here (tests/memories/test_embeddings.py counts them)
        "memories_source_expired": 0,
        "expiry_set_threads": 0,
        "expiry_set_runs": 0,
        "expiry_set_memories": 0,
    }
    assert record.finished_at is not None
    # Counts, never content.
    assert "A-7781" not in json.dumps(record.counts)
    assert PurgeRecord.objects.count() == 1


@pytest.mark.django_db
def test_an_expired_thread_leaves_its_memories_with_provenance_marked_expired(alice):
    clock = timezone.now() + 31 * DAY
    thread, run = full_thread(alice, expires_at=clock - DAY)
    message = Message.objects.get(thread=thread, sequence=1)
    memory = MemoryFactory(user=alice, source_thread=thread, source_message=message, source_run=run)

    purge_expired(now=clock)

    memory.refresh_from_db()
    assert memory.source_expired is True
    assert memory.source_thread_ref == thread.pk
    assert memory.source_thread_id is None and memory.source_message_id is None and memory.source_run_id is None
    assert memory.content.startswith("remembered fact")


@pytest.mark.django_db
def test_people_under_legal_hold_are_skipped(alice, bob, staff):
    clock = timezone.now() + 31 * DAY
    held_thread, held_run = full_thread(alice, expires_at=clock - DAY)
    Run.objects.filter(pk=held_run.pk).update(expires_at=clock - DAY)
    held_memory = MemoryFactory(user=alice, expires_at=clock - DAY)
    free_thread, _ = full_thread(bob, expires_at=clock - DAY)
    hold = LegalHold.objects.create(user=alice, reason="litigation", placed_by=staff)

    record = purge_expired(now=clock)

    assert Thread.objects.filter(pk=held_thread.pk).exists()
    assert Run.objects.filter(pk=held_run.pk).exists()
    assert Memory.objects.filter(pk=held_memory.pk).exists()
    assert checkpoint_rows(held_thread.pk) == 4
    assert not Thread.objects.filter(pk=free_thread.pk).exists()
    assert record.skipped_held_users == 1

    hold.lifted_at = timezone.now()
    hold.save()
    purge_expired(now=clock)
    assert not Thread.objects.filter(pk=held_thread.pk).exists()
    assert not Memory.objects.filter(pk=held_memory.pk).exists()


@pytest.mark.django_db
def test_rows_stored_without_an_expiry_get_one_from_their_own_age(alice):
    old, _ = full_thread(alice, expires_at=timezone.now())
    recent, _ = full_thread(alice, expires_at=timezone.now())
    Thread.objects.filter(pk=old.pk).update(expires_at=None, last_activity_at=timezone.now() - 40 * DAY)
    Thread.objects.filter(pk=recent.pk).update(expires_at=None, last_activity_at=timezone.now() - 2 * DAY)
    Run.objects.update(expires_at=None)

    record = purge_expired()

    assert not Thread.objects.filter(pk=old.pk).exists()
    recent.refresh_from_db()
    assert close_to(recent.expires_at, timezone.now() + 28 * DAY)
    assert record.counts["expiry_set_threads"] == 2
    assert record.counts["expiry_set_runs"] == 2
    assert Run.objects.get(thread=recent).expires_at is not None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("session_worker_held_off")
def test_a_purge_skips_rows_another_purge_holds(alice):
    clock = timezone.now() + 31 * DAY
    threads = [full_thread(alice, expires_at=clock - DAY)[0] for _ in range(3)]
    locked = threading.Event()
    release = threading.Event()

    def other_purge_holding_one_thread() -> None:
        try:
            with transaction.atomic():
                Thread.objects.select_for_update().get(pk=threads[0].pk)
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=other_purge_holding_one_thread)
    holder.start()
    assert locked.wait(10)
    try:
        record = purge_expired(now=clock, batch_size=1)  # must neither wait nor fail
    finally:
        release.set()
        holder.join(10)

    assert record.counts["threads"] == 2
    assert list(Thread.objects.values_list("pk", flat=True)) == [threads[0].pk]


@pytest.mark.django_db(transaction=True)
def test_overlapping_purges_delete_nothing_twice(alice, bob):
    clock = timezone.now() + 31 * DAY
    for i in range(12):
        full_thread(alice if i % 2 else bob, expires_at=clock - DAY)
    start = threading.Barrier(2)
    records: list[PurgeRecord] = []
    errors: list[BaseException] = []

    def purge() -> None:
        try:
            start.wait(10)
            records.append(purge_expired(now=clock, batch_size=2))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=purge) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)

    assert errors == []
    assert not Thread.objects.exists()
    assert sum(r.counts["threads"] for r in records) == 12
    assert sum(r.counts["messages"] for r in records) == 24
    assert sum(r.counts["checkpoint_rows"] for r in records) == 48


# --- On the schedule, on the real worker --------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_puts_purge_and_reaper_on_the_beat_schedule_and_reverses():
    # Back to before the data migration (rows a flush left or not), then forward again.
    call_command("migrate", "governance", "0001", verbosity=0)
    assert not PeriodicTask.objects.filter(task__in=["governance.purge_expired", "agents.reap_stale_runs"]).exists()
    assert not RetentionPolicy.objects.exists()

    # Forward again, every app: going back also unapplied the core's migrations that
    # depend on governance's, and later tests need the whole schema.
    call_command("migrate", verbosity=0)

    purge = PeriodicTask.objects.get(task="governance.purge_expired")
    reaper = PeriodicTask.objects.get(task="agents.reap_stale_runs")
    assert purge.enabled and (purge.interval.every, purge.interval.period) == (1, "hours")
    assert reaper.enabled and (reaper.interval.every, reaper.interval.period) == (1, "minutes")
    assert set(RetentionPolicy.objects.values_list("scope", "memory_kind", "lifetime_days")) == {
        ("thread", "", 30),
        ("incognito_thread", "", 1),
        ("run", "", 30),
        ("memory", "", None),
    }


@pytest.mark.worker
def test_the_worker_purges_what_expired(worker, alice):
    now = timezone.now()
    gone, _ = full_thread(alice, expires_at=now - timedelta(minutes=1))
    kept, _ = full_thread(alice, expires_at=now + DAY)

    purge_expired_task.delay()

    wait_for(lambda: not Thread.objects.filter(pk=gone.pk).exists(), timeout=60, what="the purge")
    assert Thread.objects.filter(pk=kept.pk).exists()
    assert checkpoint_rows(gone.pk) == 0
    wait_for(lambda: PurgeRecord.objects.filter(finished_at__isnull=False).exists(), what="the purge record")
