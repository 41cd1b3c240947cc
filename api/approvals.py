"""``/api/approvals``: staff decide the actions runs asked them to allow (the admin's queue, as JSON).

The list is the queue (undecided approvals of runs still waiting), oldest first; each
decision goes through the turn's use case (``usecases.turns.approval_decide``), which
resumes the run. Staff reads of the queue are logged against the people it shows.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents import selectors
from agents.models import Approval
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters
from liamemory.models import StaffAccess
from liamemory.permissions import IsStaff
from liamemory.roles import signed_in
from liamemory.staff_access import staff_access_record_many
from usecases.turns import approval_decide


class ApprovalOutSerializer(serializers.ModelSerializer):
    run_id = serializers.UUIDField(read_only=True)
    thread_id = serializers.UUIDField(source="run.thread_id", read_only=True)
    user_id = serializers.IntegerField(source="run.user_id", read_only=True)
    decided_by_id = serializers.IntegerField(allow_null=True, read_only=True)

    class Meta:
        model = Approval
        fields = [
            "id",
            "run_id",
            "thread_id",
            "user_id",
            "action",
            "reason",
            "amount",
            "requested_at",
            "decision",
            "decided_by_id",
            "decided_at",
            "note",
        ]


class ApprovalDecideInSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")


class ApprovalCursor(StrictCursorPagination):
    ordering = ("requested_at", "id")


class ApprovalListApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        parameters=cursor_parameters(),
        operation_id="approvals_list",
        responses=cursor_page(ApprovalOutSerializer, "ApprovalPage"),
        summary="The actions waiting for a staff decision (staff)",
        description="Oldest first, cursor-paginated: undecided approvals of runs that still wait.",
    )
    def get(self, request: Request) -> Response:
        paginator = ApprovalCursor()
        page = paginator.paginate_queryset(selectors.approvals_waiting(), request, view=self)
        subjects = {a.run.user_id for a in page}
        if subjects:
            staff_access_record_many(
                viewer=signed_in(request.user), subject_ids=subjects, what=StaffAccess.RUN, object_ref="approvals"
            )
        return paginator.get_paginated_response(ApprovalOutSerializer(page, many=True).data)


class _ApprovalDecideApi(APIView):
    permission_classes = [IsStaff]
    approved: bool

    def post(self, request: Request, approval_id: int) -> Response:
        data = ApprovalDecideInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        approval = approval_decide(
            approval=selectors.approval_get(approval_id=approval_id),
            approved=self.approved,
            actor=signed_in(request.user),
            note=data.validated_data["note"],
        )
        return Response(ApprovalOutSerializer(approval).data)


class ApprovalApproveApi(_ApprovalDecideApi):
    approved = True

    @extend_schema(
        request=ApprovalDecideInSerializer,
        responses=ApprovalOutSerializer,
        summary="Allow the action a run asked for (staff); the run resumes",
        description="409 when it was already decided, or its run was cancelled.",
    )
    def post(self, request: Request, approval_id: int) -> Response:
        return super().post(request, approval_id)


class ApprovalRejectApi(_ApprovalDecideApi):
    approved = False

    @extend_schema(
        request=ApprovalDecideInSerializer,
        responses=ApprovalOutSerializer,
        summary="Refuse the action a run asked for (staff); the run resumes and says so",
        description="409 when it was already decided, or its run was cancelled.",
    )
    def post(self, request: Request, approval_id: int) -> Response:
        return super().post(request, approval_id)
