from django.urls import path

from agents import api, api_threads

urlpatterns = [
    path("threads", api_threads.ThreadListCreateApi.as_view(), name="api-threads"),
    path("threads/<uuid:thread_id>", api_threads.ThreadDetailApi.as_view(), name="api-thread-detail"),
    path("threads/<uuid:thread_id>/messages", api.ThreadMessagesApi.as_view(), name="api-thread-messages"),
    path("runs/<uuid:run_id>", api.RunDetailApi.as_view(), name="api-run-detail"),
    path("runs/<uuid:run_id>/events", api.RunEventsApi.as_view(), name="api-run-events"),
    path("runs/<uuid:run_id>/retry", api.RunRetryApi.as_view(), name="api-run-retry"),
    path("runs/<uuid:run_id>/cancel", api.RunCancelApi.as_view(), name="api-run-cancel"),
]
