from django.urls import path

from memories import api, api_corrections, api_search, api_staff

urlpatterns = [
    path("threads/<uuid:thread_id>/search", api_search.ThreadSearchApi.as_view(), name="api-thread-search"),
    path("search", api_search.SearchApi.as_view(), name="api-search"),
    path("me/memories", api.MeMemoryListApi.as_view(), name="me-memories"),
    path("me/memories/<int:memory_id>", api.MeMemoryDetailApi.as_view(), name="me-memory-detail"),
    path("me/memory-settings", api.MeMemorySettingsApi.as_view(), name="me-memory-settings"),
    path(
        "threads/<uuid:thread_id>/messages/<int:sequence>/correct",
        api_corrections.MessageCorrectApi.as_view(),
        name="thread-message-correct",
    ),
    path(
        "staff/threads/<uuid:thread_id>/messages/<int:sequence>/correct",
        api_corrections.StaffMessageCorrectApi.as_view(),
        name="staff-thread-message-correct",
    ),
    path("memories", api_staff.MemoryListCreateApi.as_view(), name="memories"),
    path("memories/<int:memory_id>", api_staff.MemoryDetailApi.as_view(), name="memory-detail"),
    path("memories/<int:memory_id>/approve", api_staff.MemoryApproveApi.as_view(), name="memory-approve"),
    path("memories/<int:memory_id>/reject", api_staff.MemoryRejectApi.as_view(), name="memory-reject"),
    path("memories/<int:memory_id>/correct", api_staff.MemoryCorrectApi.as_view(), name="memory-correct"),
]
