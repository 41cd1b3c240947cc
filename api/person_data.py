"""Export and import of a person's data over the API.

The owner exports their own data; a compliance officer exports anyone's (docs/design.md,
"Who may do what"), and that read is logged like any staff view of a person's data.
Staff and compliance officers import conversations into a named account.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from liamemory.errors import NotFound, TooLarge
from liamemory.models import StaffAccess
from liamemory.parsers import StrictJSONParser
from liamemory.permissions import IsComplianceOfficer, IsStaffOrCompliance
from liamemory.roles import signed_in
from liamemory.staff_access import staff_access_record
from usecases.erasure import erasure_notice_take
from usecases.export import person_export
from usecases.importer import export_import

EXPORT_RESPONSE = OpenApiResponse(
    response=OpenApiTypes.OBJECT,
    description='A "liamemory.export" version 1 document, sent as an attachment; '
    "its JSON Schema is docs/export.schema.json in the repository.",
)


def _download(user: User) -> Response:
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    filename = f"liamemory-export-{user.pk}-{stamp}.json"
    return Response(person_export(user=user), headers={"Content-Disposition": f'attachment; filename="{filename}"'})


class MeNoticeOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["erasure"])
    message = serializers.CharField()
    at = serializers.DateTimeField(allow_null=True)


class MeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    notices = MeNoticeOutput(many=True, help_text="Told once: the next call no longer lists them.")


class MeApi(APIView):
    """Who is signed in, and what they must be told: an API client's landing page."""

    @extend_schema(responses=MeOutput, summary="Me, and what I must be told")
    def get(self, request: Request) -> Response:
        user = signed_in(request.user)
        # A person whose data a compliance officer erased, account kept, learns it here
        # (once, as on the web's landing page), not from an empty list of conversations.
        erased = erasure_notice_take(user=user)
        notices = [{"kind": "erasure", "message": erased.text, "at": erased.erased_at}] if erased else []
        return Response(MeOutput({"id": user.pk, "username": user.get_username(), "notices": notices}).data)


class MeExportApi(APIView):
    renderer_classes = [JSONRenderer]

    @extend_schema(responses={200: EXPORT_RESPONSE}, summary="Export all my data")
    def get(self, request: Request) -> Response:
        return _download(signed_in(request.user))


class PersonExportApi(APIView):
    renderer_classes = [JSONRenderer]
    permission_classes = [IsComplianceOfficer]

    @extend_schema(responses={200: EXPORT_RESPONSE}, summary="Export one person's data (compliance officers)")
    def get(self, request: Request, user_id: int) -> Response:
        person = get_user_model().objects.filter(pk=user_id).first()
        if person is None:
            raise NotFound("No such person.", extra={"user_id": user_id})
        staff_access_record(
            viewer=signed_in(request.user), subject_id=person.pk, what=StaffAccess.PERSON, object_ref="export"
        )
        return _download(person)


class ImportFileInput(serializers.Serializer):
    file = serializers.FileField(help_text="A liamemory.export JSON document.")


class ImportResultOutput(serializers.Serializer):
    dry_run = serializers.BooleanField()
    threads_created = serializers.IntegerField()
    threads_skipped = serializers.IntegerField()
    messages_created = serializers.IntegerField()
    messages_skipped = serializers.IntegerField()
    summaries_created = serializers.IntegerField()
    summaries_skipped = serializers.IntegerField()


class ImportQuery(serializers.Serializer):
    dry_run = serializers.BooleanField(default=False, help_text="Check and count, then roll back.")


def _uploaded_document(upload) -> dict:
    limit = settings.IMPORT_MAX_BYTES
    if upload.size > limit:
        raise TooLarge(f"The file is {upload.size} bytes; the most accepted is {limit}.", extra={"limit": limit})
    try:
        return json.loads(upload.read())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParseError(f"The file is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise ParseError("The file is nested too deeply to be an export document.") from exc


class PersonImportApi(APIView):
    """The document is the JSON body, or a ``file`` in a multipart form (for large files)."""

    permission_classes = [IsStaffOrCompliance]
    parser_classes = [StrictJSONParser, MultiPartParser]

    @extend_schema(
        parameters=[ImportQuery],
        request={"application/json": OpenApiTypes.OBJECT, "multipart/form-data": ImportFileInput},
        responses={200: ImportResultOutput, 201: ImportResultOutput},
        summary="Import conversations into a person's account (staff, compliance officers)",
        description="Threads, messages and summaries of a liamemory.export document (docs/export.schema.json). "
        "Idempotent by thread id and message sequence; a thread id owned by someone else answers 409; "
        "a bad document answers 400 naming the JSON path of each problem, and nothing is imported. "
        "201 when something was created, 200 when everything already existed.",
    )
    def post(self, request: Request, user_id: int) -> Response:
        query = ImportQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        owner = get_user_model().objects.filter(pk=user_id).first()
        if owner is None:
            raise NotFound("No such person.", extra={"user_id": user_id})
        upload = request.FILES.get("file")
        document: Any  # any JSON value: export_import checks it against the schema
        if upload is not None:
            document = _uploaded_document(upload)
        elif request.content_type.startswith("multipart/"):
            raise ParseError("Send the document as the JSON body, or as a file field named 'file'.")
        else:
            document = request.data
        dry_run = query.validated_data["dry_run"]
        result = export_import(document=document, owner=owner, dry_run=dry_run)
        code = status.HTTP_201_CREATED if result.created and not dry_run else status.HTTP_200_OK
        return Response(ImportResultOutput({"dry_run": dry_run, **result.as_dict()}).data, status=code)
