"""The context report: one typed record, read back the same way whatever version stored it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from agents.context_report import CONTEXT_REPORT_VERSION, ContextReport, ExcerptRef, context_report_read
from conversations.services import thread_create

# The keys Run.context_info held before the report had its own column (version 1).
OLD_INFO = {
    "summary_version": 2,
    "summary_covers_through": 9,
    "memory_ids": [4, 7],
    "excerpts": [{"message_id": 31, "sequence": 3}, {"message_id": 90, "sequence": 1, "thread_id": "t-1"}],
    "excerpt_tokens": 40,
    "window_first_sequence": 11,
    "window_last_sequence": 20,
    "window_messages": 10,
    "dropped_for_budget": 1,
    "uncovered_messages": 1,
    "estimated_tokens": 900,
    "prefix_tokens": 300,
    "full_resend_tokens": 4000,
    "budget": 150000,
    "memory_allowed": True,
}


def test_a_report_reads_back_equal_to_what_was_written():
    report = ContextReport(
        summary_version=1,
        memory_ids=(3,),
        excerpts=(ExcerptRef(message_id=5, sequence=2), ExcerptRef(message_id=6, sequence=1, thread_id="x")),
        excerpt_tokens=12,
        window_first_sequence=4,
        window_last_sequence=9,
        estimated_tokens=100,
        memory_allowed=False,
    )
    stored = report.as_json()
    assert stored["version"] == CONTEXT_REPORT_VERSION
    assert stored["excerpts"] == [{"message_id": 5, "sequence": 2}, {"message_id": 6, "sequence": 1, "thread_id": "x"}]
    assert context_report_read(stored) == report


def test_an_old_unversioned_row_reads_as_version_1_with_its_missing_fields_unknown():
    report = context_report_read(
        {"summary_version": 3, "memory_ids": [8], "excerpts": [{"message_id": 1, "sequence": 4}]}
    )
    assert report is not None and report.version == 1
    assert report.summary_version == 3 and report.memory_ids == (8,)
    assert report.excerpts == (ExcerptRef(message_id=1, sequence=4),)
    assert report.estimated_tokens is None and report.window_first_sequence is None and report.memory_allowed is None
    assert context_report_read(OLD_INFO) == ContextReport(
        **{**OLD_INFO, "memory_ids": (4, 7), "excerpts": (ExcerptRef(31, 3), ExcerptRef(90, 1, "t-1")), "version": 1}
    )


def test_nothing_recorded_and_values_of_the_wrong_type_are_dropped_not_shown():
    assert context_report_read(None) is None and context_report_read({}) is None and context_report_read([1]) is None
    report = context_report_read(
        {
            "memory_ids": [1, "2", None],
            "excerpts": [{"message_id": "x"}, 5, {"message_id": 2, "sequence": 1}],
            "estimated_tokens": "many",
            "memory_allowed": "yes",
            "summary_version": True,
        }
    )
    assert report is not None
    assert report.memory_ids == (1,) and report.excerpts == (ExcerptRef(2, 1),)
    assert report.estimated_tokens is None and report.memory_allowed is None and report.summary_version is None
    assert context_report_read({"memory_ids": 5, "excerpts": "abc"}) == ContextReport(version=1)


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_the_report_moves_to_its_own_column_and_back(alice):
    thread = thread_create(owner=alice)
    apps = _migrate(("agents", "0008_run_context_report"))
    Run = apps.get_model("agents", "Run")
    approval = {"approval": {"amount": 900}, "checkpoint_id": "cp-1"}
    old = Run.objects.create(
        thread_id=thread.pk,
        user_id=alice.pk,
        agent="assistant",
        status="completed",
        context_info={**OLD_INFO, **approval},
    )
    waiting = Run.objects.create(
        thread_id=thread.pk, user_id=alice.pk, agent="assistant", status="completed", context_info=approval
    )
    never = Run.objects.create(thread_id=thread.pk, user_id=alice.pk, agent="assistant", status="completed")
    try:
        apps = _migrate(("agents", "0009_run_context_report_data"))
        Run = apps.get_model("agents", "Run")
        moved = Run.objects.get(pk=old.pk)
        assert moved.context_report == OLD_INFO and moved.context_info == approval
        assert context_report_read(moved.context_report).memory_ids == (4, 7)
        assert Run.objects.get(pk=waiting.pk).context_report is None
        assert Run.objects.get(pk=never.pk).context_report is None

        apps = _migrate(("agents", "0008_run_context_report"))
        Run = apps.get_model("agents", "Run")
        back = Run.objects.get(pk=old.pk)
        assert back.context_info == {**OLD_INFO, **approval} and back.context_report is None
        assert Run.objects.get(pk=waiting.pk).context_info == approval
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
