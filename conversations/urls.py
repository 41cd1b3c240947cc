from django.urls import path

from conversations import api

urlpatterns = [
    path("threads", api.ThreadListCreateApi.as_view(), name="api-threads"),
    path("threads/<uuid:thread_id>", api.ThreadDetailApi.as_view(), name="api-thread-detail"),
    path("threads/<uuid:thread_id>/search", api.ThreadSearchApi.as_view(), name="api-thread-search"),
    path("search", api.SearchApi.as_view(), name="api-search"),
]
