"""Owner endpoints for searching past conversations (``conversations/search.py``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from api.memory_serializers import SearchOutSerializer, SearchQuerySerializer
from conversations import selectors
from conversations.search import search_threads


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
        description="The history search of conversations/search.py over every thread of mine, best first.",
    )
    def get(self, request):
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
        description=(
            "The search of /api/search within one conversation, with the same rules: what was said and the "
            "replies (never tool steps), and nothing below the relevance floor."
        ),
    )
    def get(self, request, thread_id):
        thread = selectors.thread_get_for_user(user=request.user, thread_id=thread_id)
        params = SearchQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        query, limit = params.validated_data["q"], params.validated_data["limit"]
        hits = search_threads(user=request.user, query=query, limit=limit, thread=thread)
        return _search_answer(request, query, hits, {thread.pk: thread.title})
