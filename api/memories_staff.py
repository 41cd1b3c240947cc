"""``/api/memories``: staff inspect and correct every user's memories.

Reads: staff and compliance officers (a compliance officer can export anyone anyway).
Writes: staff, through memories/services.py, so every change is audited with who made
it. Erasing (no content left in the audit) is the compliance officers' alone and lives
with the other erasures (``api/erasure.py``). Staff reads of one memory are logged
like the admin's.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.memory_serializers import (
    MemoryCorrectInSerializer,
    MemoryCreateInSerializer,
    MemoryRejectInSerializer,
    MemoryUpdateInSerializer,
    RememberOutSerializer,
    StaffMemoryFilterSerializer,
    StaffMemoryOutSerializer,
)
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters
from liamemory.errors import NotFound
from liamemory.models import StaffAccess
from liamemory.permissions import IsStaff
from liamemory.roles import is_compliance_officer, is_staff, signed_in
from liamemory.staff_access import staff_access_record, staff_access_record_many
from memories import selectors, services
from memories.models import WriterType
from usecases.memory_correction import memory_correct

SEARCH_LIMIT = 50


class ReadsForStaffAndCompliance(BasePermission):
    """GET for staff and compliance officers; every other method for staff."""

    message = "Only staff can change memories."

    def has_permission(self, request, view) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return is_staff(request.user) or is_compliance_officer(request.user)
        return is_staff(request.user)


class StaffMemoryCursor(StrictCursorPagination):
    ordering = ("-created_at", "-id")


def _log_views(request: Request, memories: list) -> None:
    """Staff views of a person's data are logged: one row per person the page showed."""
    subjects = {m.user_id for m in memories}
    if subjects:
        staff_access_record_many(
            viewer=signed_in(request.user), subject_ids=subjects, what=StaffAccess.MEMORY, object_ref="list"
        )


def _memory(memory_id: int):
    return selectors.memory_get_for_staff(memory_id=memory_id)


class MemoryListCreateApi(APIView):
    permission_classes = [ReadsForStaffAndCompliance]

    @extend_schema(
        parameters=[StaffMemoryFilterSerializer, *cursor_parameters()],
        operation_id="memories_list",
        responses=cursor_page(StaffMemoryOutSerializer, "StaffMemoryPage"),
        summary="Every user's memories (staff, compliance officers)",
        description=f"Newest first, cursor-paginated. With q: the {SEARCH_LIMIT} (or limit) most similar by "
        "trigram word similarity, most similar first, with an ordinal rank and no further page.",
    )
    def get(self, request: Request) -> Response:
        filters = StaffMemoryFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        rows = selectors.memory_list_for_staff(**filters.validated_data)
        paginator = StaffMemoryCursor()
        if not filters.validated_data.get("q"):
            page = paginator.paginate_queryset(rows, request, view=self)
            _log_views(request, page)
            return paginator.get_paginated_response(StaffMemoryOutSerializer(page, many=True).data)
        limit = paginator.get_page_size(request) if "limit" in request.query_params else SEARCH_LIMIT
        hits = list(rows[:limit])
        _log_views(request, hits)
        ranks = {m.pk: i for i, m in enumerate(hits, start=1)}
        data = StaffMemoryOutSerializer(hits, many=True, context={"ranks": ranks}).data
        return Response({"next": None, "previous": None, "results": data})

    @extend_schema(
        request=MemoryCreateInSerializer,
        responses={201: RememberOutSerializer},
        summary="Add a memory for a user (staff)",
        description="Through the same rules as agents' writes (length, cap, near-duplicates update, "
        "contradictions supersede, the user's switch); a refusal answers 400 with how to fix it.",
    )
    def post(self, request: Request) -> Response:
        from django.contrib.auth import get_user_model

        data = MemoryCreateInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        user = get_user_model().objects.filter(pk=fields.pop("user_id")).first()
        if user is None:
            raise NotFound("No such user.")
        outcome = services.memory_remember(
            user=user,
            writer_type=WriterType.STAFF,
            writer_name=request.user.get_username(),
            actor=signed_in(request.user),
            **fields,
        )
        body = {"action": outcome.action, "previous_id": outcome.previous_id, "memory": outcome.memory}
        return Response(RememberOutSerializer(body).data, status=status.HTTP_201_CREATED)


class MemoryDetailApi(APIView):
    permission_classes = [ReadsForStaffAndCompliance]

    @extend_schema(responses=StaffMemoryOutSerializer, summary="One memory (staff, compliance officers; logged)")
    def get(self, request: Request, memory_id: int) -> Response:
        memory = _memory(memory_id)
        staff_access_record(
            viewer=signed_in(request.user), subject_id=memory.user_id, what=StaffAccess.MEMORY, object_ref=memory.pk
        )
        return Response(StaffMemoryOutSerializer(memory).data)

    @extend_schema(
        request=MemoryUpdateInSerializer,
        responses=StaffMemoryOutSerializer,
        summary="Edit a memory in place (staff; audited before and after)",
    )
    def patch(self, request: Request, memory_id: int) -> Response:
        memory = _memory(memory_id)
        data = MemoryUpdateInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        memory = services.memory_update(actor=signed_in(request.user), memory=memory, **data.validated_data)
        return Response(StaffMemoryOutSerializer(memory).data)

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Delete a memory (staff)",
        description="The audit keeps who deleted it and the text it had; erasing that too is /erase.",
    )
    def delete(self, request: Request, memory_id: int) -> Response:
        services.memory_delete(actor=signed_in(request.user), memory=_memory(memory_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemoryApproveApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(request=None, responses=StaffMemoryOutSerializer, summary="Approve a pending memory (staff)")
    def post(self, request: Request, memory_id: int) -> Response:
        memory = services.memory_approve(actor=signed_in(request.user), memory=_memory(memory_id))
        return Response(StaffMemoryOutSerializer(memory).data)


class MemoryRejectApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        request=MemoryRejectInSerializer, responses=StaffMemoryOutSerializer, summary="Reject a pending memory (staff)"
    )
    def post(self, request: Request, memory_id: int) -> Response:
        memory = _memory(memory_id)
        data = MemoryRejectInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reason = data.validated_data["reason"]
        memory = services.memory_reject(actor=signed_in(request.user), memory=memory, reason=reason)
        return Response(StaffMemoryOutSerializer(memory).data)


class MemoryCorrectApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        request=MemoryCorrectInSerializer,
        responses={201: StaffMemoryOutSerializer},
        summary="Supersede a memory with a corrected text (staff)",
    )
    def post(self, request: Request, memory_id: int) -> Response:
        memory = _memory(memory_id)
        data = MemoryCorrectInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        new = memory_correct(actor=signed_in(request.user), memory=memory, content=data.validated_data["content"])
        return Response(StaffMemoryOutSerializer(new).data, status=status.HTTP_201_CREATED)
