"""Owner endpoints for threads."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from conversations import selectors, services
from conversations.serializers import (
    SearchOutSerializer,
    SearchQuerySerializer,
    ThreadCreateInSerializer,
    ThreadOutSerializer,
    ThreadUpdateInSerializer,
)
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters


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
        thread = services.thread_create(owner=request.user, **data.validated_data)
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
        from governance.deletion import thread_delete

        thread_delete(thread=thread_for_request(request, thread_id), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _search_answer(request, query: str, hits: list, titles: dict) -> Response:
    results = [
        {
            "rank": rank,
            "message_id": h.message_id,
            "thread_id": h.thread_id,
            "thread_title": titles.get(h.thread_id, ""),
            "sequence": h.sequence,
            "role": h.role,
            "created_at": h.created_at,
            "excerpt": h.excerpt,
        }
        for rank, h in enumerate(hits, start=1)
    ]
    return Response(SearchOutSerializer({"query": query, "results": results}).data)


class SearchApi(APIView):
    @extend_schema(
        parameters=[SearchQuerySerializer],
        responses=SearchOutSerializer,
        summary="Search all my conversations",
        description="The history search of memories/retrieval.py over every thread of mine, best first.",
    )
    def get(self, request):
        from memories.retrieval import search_threads

        params = SearchQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        query, limit = params.validated_data["q"], params.validated_data["limit"]
        hits = search_threads(user=request.user, query=query, limit=limit)
        titles = selectors.thread_titles(user=request.user, thread_ids=list({h.thread_id for h in hits}))
        return _search_answer(request, query, hits, titles)


class ThreadSearchApi(APIView):
    @extend_schema(
        parameters=[SearchQuerySerializer],
        responses=SearchOutSerializer,
        summary="Search one of my conversations",
        description="The same function as the agents' search_history tool, over the whole thread.",
    )
    def get(self, request, thread_id):
        from memories.retrieval import search_history

        thread = thread_for_request(request, thread_id)
        params = SearchQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        query, limit = params.validated_data["q"], params.validated_data["limit"]
        hits = search_history(thread=thread, query=query, limit=limit)
        return _search_answer(request, query, hits, {thread.pk: thread.title})
