"""Export (a person's data as one JSON document) over the API.

The owner exports their own data; a compliance officer exports anyone's (DESIGN.md,
"Who may do what"), and that read is logged like any staff view of a person's data.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from governance.api import IsComplianceOfficer
from governance.export import person_export
from liamemory.api import NotFound
from memories.models import StaffAccess
from memories.services import staff_access_record

EXPORT_RESPONSE = OpenApiResponse(
    response=OpenApiTypes.OBJECT,
    description='A "liamemory.export" version 1 document, sent as an attachment; '
    "its JSON Schema is docs/export.schema.json in the repository.",
)


def _download(user: AbstractBaseUser) -> Response:
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    filename = f"liamemory-export-{user.pk}-{stamp}.json"
    return Response(person_export(user=user), headers={"Content-Disposition": f'attachment; filename="{filename}"'})


class MeExportApi(APIView):
    renderer_classes = [JSONRenderer]

    @extend_schema(responses={200: EXPORT_RESPONSE}, summary="Export all my data")
    def get(self, request: Request) -> Response:
        return _download(request.user)


class PersonExportApi(APIView):
    renderer_classes = [JSONRenderer]
    permission_classes = [IsComplianceOfficer]

    @extend_schema(responses={200: EXPORT_RESPONSE}, summary="Export one person's data (compliance officers)")
    def get(self, request: Request, user_id: int) -> Response:
        person = get_user_model().objects.filter(pk=user_id).first()
        if person is None:
            raise NotFound("No such person.", extra={"user_id": user_id})
        staff_access_record(viewer=request.user, subject_id=person.pk, what=StaffAccess.PERSON, object_ref="export")
        return _download(person)
