"""Erasure and legal-hold API: compliance officers for anyone, a person for themselves.

One view per operation, each with its own input and output serializers. Views call
services and selectors; domain errors become the API's one error format.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from governance.models import ErasureReceipt, ErasureRequest, LegalHold
from liamemory.permissions import IsComplianceOfficer
from liamemory.roles import signed_in
from memories.selectors import memory_get_for_staff
from usecases import erasure
from usecases.erasure_execution import memory_erase
from usecases.erasure_selectors import erasure_request_list, legal_hold_list


class ReceiptOutput(serializers.ModelSerializer):
    class Meta:
        model = ErasureReceipt
        fields = ("sha256", "created_at", "body")


class ErasureRequestOutput(serializers.ModelSerializer):
    receipt = serializers.SerializerMethodField()

    class Meta:
        model = ErasureRequest
        fields = (
            "id",
            "subject_id",
            "subject_ref",
            "requested_by_id",
            "self_service",
            "reason",
            "ticket",
            "delete_account",
            "status",
            "dry_run_counts",
            "executed_counts",
            "error_message",
            "created_at",
            "started_at",
            "finished_at",
            "receipt",
        )

    def get_receipt(self, obj: ErasureRequest) -> dict | None:
        try:
            return ReceiptOutput(obj.receipt).data
        except ErasureReceipt.DoesNotExist:
            return None


class ErasureRequestListCreateApi(APIView):
    permission_classes = [IsComplianceOfficer]

    class CreateInput(serializers.Serializer):
        subject_id = serializers.IntegerField()
        reason = serializers.CharField(required=False, allow_blank=True, default="")
        ticket = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=64, help_text="Kept after the erasure."
        )
        delete_account = serializers.BooleanField(required=False, default=False)

    @extend_schema(responses=ErasureRequestOutput(many=True))
    def get(self, request: Request) -> Response:
        rows = erasure_request_list()[:200]
        return Response(ErasureRequestOutput(rows, many=True).data)

    @extend_schema(
        request=CreateInput,
        responses={201: ErasureRequestOutput, 200: ErasureRequestOutput},
        description="201 with a new request; 200 with the person's unfinished one, which this joins "
        "(a failed one becomes pending again: execute it to resume).",
    )
    def post(self, request: Request) -> Response:
        data = self.CreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        subject = get_object_or_404(get_user_model(), pk=data.validated_data["subject_id"])
        filed, new = erasure.erasure_request_file(
            subject=subject,
            requested_by=signed_in(request.user),
            reason=data.validated_data["reason"],
            ticket=data.validated_data["ticket"],
            delete_account=data.validated_data["delete_account"],
        )
        code = status.HTTP_201_CREATED if new else status.HTTP_200_OK
        return Response(ErasureRequestOutput(filed).data, status=code)


class ErasureRequestDetailApi(APIView):
    permission_classes = [IsComplianceOfficer]

    @extend_schema(responses=ErasureRequestOutput)
    def get(self, request: Request, pk) -> Response:
        return Response(ErasureRequestOutput(get_object_or_404(ErasureRequest, pk=pk)).data)


class ErasureDryRunApi(APIView):
    permission_classes = [IsComplianceOfficer]

    class Output(serializers.Serializer):
        request_id = serializers.UUIDField()
        counts = serializers.DictField(child=serializers.IntegerField())

    @extend_schema(request=None, responses=Output)
    def post(self, request: Request, pk) -> Response:
        target = get_object_or_404(ErasureRequest, pk=pk)
        counts = erasure.erasure_dry_run(request=target)
        return Response(self.Output({"request_id": target.pk, "counts": counts}).data)


class ErasureExecuteApi(APIView):
    permission_classes = [IsComplianceOfficer]

    @extend_schema(request=None, responses={202: ErasureRequestOutput})
    def post(self, request: Request, pk) -> Response:
        target = get_object_or_404(ErasureRequest, pk=pk)
        if target.status != "completed":
            erasure.erasure_enqueue(request=target)
        return Response(ErasureRequestOutput(target).data, status=status.HTTP_202_ACCEPTED)


class ErasureReceiptApi(APIView):
    """Read only: receipts have no PUT, PATCH or DELETE anywhere."""

    permission_classes = [IsComplianceOfficer]

    @extend_schema(responses=ReceiptOutput)
    def get(self, request: Request, pk) -> Response:
        receipt = get_object_or_404(ErasureReceipt, request_id=pk)
        return Response(ReceiptOutput(receipt).data)


class LegalHoldOutput(serializers.ModelSerializer):
    class Meta:
        model = LegalHold
        fields = ("id", "user_id", "reason", "placed_by_id", "placed_at", "lifted_at")


class LegalHoldListPlaceApi(APIView):
    permission_classes = [IsComplianceOfficer]

    class PlaceInput(serializers.Serializer):
        user_id = serializers.IntegerField()
        reason = serializers.CharField()

    @extend_schema(responses=LegalHoldOutput(many=True))
    def get(self, request: Request) -> Response:
        rows = legal_hold_list()[:200]
        return Response(LegalHoldOutput(rows, many=True).data)

    @extend_schema(request=PlaceInput, responses={201: LegalHoldOutput})
    def post(self, request: Request) -> Response:
        data = self.PlaceInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_object_or_404(get_user_model(), pk=data.validated_data["user_id"])
        hold = erasure.legal_hold_place(user=user, reason=data.validated_data["reason"], actor=signed_in(request.user))
        return Response(LegalHoldOutput(hold).data, status=status.HTTP_201_CREATED)


class LegalHoldLiftApi(APIView):
    permission_classes = [IsComplianceOfficer]

    @extend_schema(request=None, responses=LegalHoldOutput)
    def post(self, request: Request, pk: int) -> Response:
        hold = erasure.legal_hold_lift(hold=get_object_or_404(LegalHold, pk=pk), actor=signed_in(request.user))
        return Response(LegalHoldOutput(hold).data)


class MeEraseApi(APIView):
    """ "Delete all my data": erases the caller now and answers with the receipt."""

    class Input(serializers.Serializer):
        # JSON ``true`` itself: a destructive flag is not inferred from "yes", "1" or "on".
        confirm = serializers.JSONField(help_text="Must be the JSON value true.")
        delete_account = serializers.BooleanField(required=False, default=False)

        def validate_confirm(self, value: object) -> bool:
            if value is not True:
                raise serializers.ValidationError('Send {"confirm": true} to delete all your data.')
            return value

    @extend_schema(request=Input, responses={200: ErasureRequestOutput, 202: ErasureRequestOutput})
    def post(self, request: Request) -> Response:
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        done = erasure.erasure_self_service(
            user=signed_in(request.user), delete_account=data.validated_data["delete_account"]
        )
        code = status.HTTP_200_OK if done.status == "completed" else status.HTTP_202_ACCEPTED
        return Response(ErasureRequestOutput(done).data, status=code)


class MemoryEraseApi(APIView):
    permission_classes = [IsComplianceOfficer]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Erase a memory, its older versions and its audit content (compliance officers)",
    )
    def post(self, request: Request, memory_id: int) -> Response:
        memory_erase(memory=memory_get_for_staff(memory_id=memory_id), actor=signed_in(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)
