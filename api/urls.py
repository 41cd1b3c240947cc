"""The JSON API (mounted under /api/ by config/urls.py): threads and runs, memories and
search, message corrections, erasure and data export."""

from django.urls import path

from api import approvals, erasure, memories, memories_staff, message_corrections, person_data, runs, search, threads

urlpatterns = [
    path("threads", threads.ThreadListCreateApi.as_view(), name="api-threads"),
    path("threads/<uuid:thread_id>", threads.ThreadDetailApi.as_view(), name="api-thread-detail"),
    path("threads/<uuid:thread_id>/messages", runs.ThreadMessagesApi.as_view(), name="api-thread-messages"),
    path("runs/<uuid:run_id>", runs.RunDetailApi.as_view(), name="api-run-detail"),
    path("runs/<uuid:run_id>/events", runs.RunEventsApi.as_view(), name="api-run-events"),
    path("runs/<uuid:run_id>/retry", runs.RunRetryApi.as_view(), name="api-run-retry"),
    path("runs/<uuid:run_id>/cancel", runs.RunCancelApi.as_view(), name="api-run-cancel"),
    path("approvals", approvals.ApprovalListApi.as_view(), name="api-approvals"),
    path("approvals/<int:approval_id>/approve", approvals.ApprovalApproveApi.as_view(), name="api-approval-approve"),
    path("approvals/<int:approval_id>/reject", approvals.ApprovalRejectApi.as_view(), name="api-approval-reject"),
    # memories and search
    path("threads/<uuid:thread_id>/search", search.ThreadSearchApi.as_view(), name="api-thread-search"),
    path("search", search.SearchApi.as_view(), name="api-search"),
    path("me", person_data.MeApi.as_view(), name="me"),
    path("me/memories", memories.MeMemoryListApi.as_view(), name="me-memories"),
    path("me/memories/<int:memory_id>", memories.MeMemoryDetailApi.as_view(), name="me-memory-detail"),
    path("me/memory-settings", memories.MeMemorySettingsApi.as_view(), name="me-memory-settings"),
    path(
        "threads/<uuid:thread_id>/messages/<int:sequence>/correct",
        message_corrections.MessageCorrectApi.as_view(),
        name="thread-message-correct",
    ),
    path(
        "staff/threads/<uuid:thread_id>/messages/<int:sequence>/correct",
        message_corrections.StaffMessageCorrectApi.as_view(),
        name="staff-thread-message-correct",
    ),
    path("memories", memories_staff.MemoryListCreateApi.as_view(), name="memories"),
    path("memories/<int:memory_id>", memories_staff.MemoryDetailApi.as_view(), name="memory-detail"),
    path("memories/<int:memory_id>/approve", memories_staff.MemoryApproveApi.as_view(), name="memory-approve"),
    path("memories/<int:memory_id>/reject", memories_staff.MemoryRejectApi.as_view(), name="memory-reject"),
    path("memories/<int:memory_id>/correct", memories_staff.MemoryCorrectApi.as_view(), name="memory-correct"),
    # governance
    path("erasure-requests", erasure.ErasureRequestListCreateApi.as_view(), name="erasure-request-list"),
    path("erasure-requests/<uuid:pk>", erasure.ErasureRequestDetailApi.as_view(), name="erasure-request-detail"),
    path("erasure-requests/<uuid:pk>/dry-run", erasure.ErasureDryRunApi.as_view(), name="erasure-request-dry-run"),
    path("erasure-requests/<uuid:pk>/execute", erasure.ErasureExecuteApi.as_view(), name="erasure-request-execute"),
    path("erasure-requests/<uuid:pk>/receipt", erasure.ErasureReceiptApi.as_view(), name="erasure-request-receipt"),
    path("legal-holds", erasure.LegalHoldListPlaceApi.as_view(), name="legal-hold-list"),
    path("legal-holds/<int:pk>/lift", erasure.LegalHoldLiftApi.as_view(), name="legal-hold-lift"),
    path("memories/<int:memory_id>/erase", erasure.MemoryEraseApi.as_view(), name="memory-erase"),
    path("me/erase", erasure.MeEraseApi.as_view(), name="me-erase"),
    path("me/export", person_data.MeExportApi.as_view(), name="me-export"),
    path("people/<int:user_id>/export", person_data.PersonExportApi.as_view(), name="person-export"),
    path("people/<int:user_id>/import", person_data.PersonImportApi.as_view(), name="person-import"),
]
