from django.urls import path

from conversations import api

urlpatterns = [
    path("threads", api.ThreadListCreateApi.as_view(), name="api-threads"),
    path("threads/<uuid:thread_id>", api.ThreadDetailApi.as_view(), name="api-thread-detail"),
]
