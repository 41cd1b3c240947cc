"""Owner endpoints for threads: list, start, read, rename, delete.

Here rather than in ``conversations`` because starting one checks the agent
(``usecases.turn.registry``) and deleting one takes its runs and checkpoints along
(``usecases/thread_deletion.py``). The turns are ``api/runs.py``.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.turn_serializers import ThreadCreateInSerializer, ThreadOutSerializer, ThreadUpdateInSerializer
from conversations import selectors, services
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters
from usecases import turns as agent_services
from usecases.thread_deletion import thread_delete


class ThreadCursor(StrictCursorPagination):
    ordering = "-last_activity_at"


def thread_for_request(request, thread_id):
    return selectors.thread_get_for_user(user=request.user, thread_id=thread_id)


class ThreadListCreateApi(APIView):
    @extend_schema(
        operation_id="threads_list",
        parameters=cursor_parameters(),
        responses=cursor_page(ThreadOutSerializer, "ThreadPage"),
        summary="My conversations, newest first (cursor pages; limit 1-200)",
    )
    def get(self, request):
        paginator = ThreadCursor()
        page = paginator.paginate_queryset(selectors.thread_list_for_user(user=request.user), request, view=self)
        return paginator.get_paginated_response(ThreadOutSerializer(page, many=True).data)

    @extend_schema(request=ThreadCreateInSerializer, responses={201: ThreadOutSerializer}, summary="Start one")
    def post(self, request):
        data = ThreadCreateInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread = agent_services.thread_start(owner=request.user, **data.validated_data)
        return Response(ThreadOutSerializer(thread).data, status=status.HTTP_201_CREATED)


class ThreadDetailApi(APIView):
    @extend_schema(responses=ThreadOutSerializer, summary="One conversation")
    def get(self, request, thread_id):
        return Response(ThreadOutSerializer(thread_for_request(request, thread_id)).data)

    @extend_schema(request=ThreadUpdateInSerializer, responses=ThreadOutSerializer, summary="Rename")
    def patch(self, request, thread_id):
        thread = thread_for_request(request, thread_id)
        data = ThreadUpdateInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread = services.thread_rename(thread=thread, title=data.validated_data["title"])
        return Response(ThreadOutSerializer(thread).data)

    @extend_schema(request=None, responses={204: None}, summary="Delete, with what was derived only from it")
    def delete(self, request, thread_id):
        thread_delete(thread=thread_for_request(request, thread_id), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
