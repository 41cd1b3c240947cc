"""Owner endpoints for long-term memory: my memories (list, correct, delete) and the on/off switch."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.memory_serializers import (
    MemoryCorrectInSerializer,
    MemoryFilterSerializer,
    MemoryOutSerializer,
    MemorySettingsSerializer,
)
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters
from liamemory.roles import signed_in
from memories import selectors, services
from usecases.memory_correction import memory_correct


class MemoryCursor(StrictCursorPagination):
    ordering = ("-created_at", "-id")


class MeMemoryListApi(APIView):
    @extend_schema(
        parameters=[MemoryFilterSerializer, *cursor_parameters()],
        operation_id="me_memories_list",
        responses=cursor_page(MemoryOutSerializer, "MemoryPage"),
        summary="What is remembered about me, newest first",
    )
    def get(self, request: Request) -> Response:
        filters = MemoryFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        rows = selectors.memory_list_for_user(user=signed_in(request.user), **filters.validated_data)
        paginator = MemoryCursor()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(MemoryOutSerializer(page, many=True).data)


class MeMemoryDetailApi(APIView):
    @extend_schema(responses=MemoryOutSerializer, summary="One of my memories")
    def get(self, request: Request, memory_id: int) -> Response:
        memory = selectors.memory_get_for_user(user=signed_in(request.user), memory_id=memory_id)
        return Response(MemoryOutSerializer(memory).data)

    @extend_schema(
        request=MemoryCorrectInSerializer,
        responses={200: MemoryOutSerializer},
        summary="Correct one of my memories",
        description="Stored as a correction: the answer is the new memory; the old text is kept as superseded "
        "(it is no longer used). 409 when the memory was already superseded or rejected.",
    )
    def patch(self, request: Request, memory_id: int) -> Response:
        memory = selectors.memory_get_for_user(user=signed_in(request.user), memory_id=memory_id)
        data = MemoryCorrectInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        new = memory_correct(actor=signed_in(request.user), memory=memory, content=data.validated_data["content"])
        return Response(MemoryOutSerializer(new).data)

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Forget one of my memories",
        description="Deletes it and the older versions it replaced.",
    )
    def delete(self, request: Request, memory_id: int) -> Response:
        memory = selectors.memory_get_for_user(user=signed_in(request.user), memory_id=memory_id)
        services.memory_forget(
            user=signed_in(request.user), memory_id=memory.pk, reason="deleted by the user over the API"
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeMemorySettingsApi(APIView):
    def _answer(self, request: Request) -> Response:
        body = {
            "long_term_enabled": selectors.memory_preference_for(user=signed_in(request.user)),
            "installation_enabled": settings.LONG_TERM_MEMORY_ENABLED,
        }
        return Response(MemorySettingsSerializer(body).data)

    @extend_schema(responses=MemorySettingsSerializer, summary="Is long-term memory on for me?")
    def get(self, request: Request) -> Response:
        return self._answer(request)

    @extend_schema(
        request=MemorySettingsSerializer,
        responses=MemorySettingsSerializer,
        summary="Turn long-term memory on or off for me",
        description="Off: nothing new is remembered and nothing stored is recalled; stored memories are kept "
        "(delete them one by one, or all my data with /api/me/erase).",
    )
    def put(self, request: Request) -> Response:
        data = MemorySettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.memory_preference_set(user=signed_in(request.user), enabled=data.validated_data["long_term_enabled"])
        return self._answer(request)
