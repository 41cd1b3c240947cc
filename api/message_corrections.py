"""Correcting a statement in a conversation's history: the owner's endpoint and the staff's.

Both answer the same: the correction note appended to the thread, and the memories
drawn from the wrong statement that were superseded (``usecases.message_correction``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.memory_serializers import MessageCorrectInSerializer, MessageCorrectOutSerializer
from conversations.models import Thread
from conversations.selectors import (
    ThreadNotFound,
    message_get_by_sequence,
    thread_get_for_staff,
    thread_get_for_user,
)
from liamemory.errors import NotFound
from liamemory.models import StaffAccess
from liamemory.permissions import IsStaff
from liamemory.roles import signed_in
from liamemory.staff_access import staff_access_record
from usecases.message_correction import statement_correct

DESCRIPTION = (
    "Marks the statement at this sequence as wrong and gives the right value. A correction note (a system "
    "message: what was said is wrong, the right value, ignore the earlier statement) is appended with the next "
    "sequence and references it; the statement itself stays. The note is kept in the agent's context wherever "
    "the statement is, and the summary uses it instead of the wrong value. Memories drawn from the statement "
    "are superseded by ones with the right value. 400: empty or too long right_value, or a system/tool message. "
    "409: the statement was corrected already (one correction per statement; the memory it produced can be "
    "corrected)."
)


def _correct(request: Request, thread: Thread, sequence: int, *, by_staff: bool) -> Response:
    message = message_get_by_sequence(thread=thread, sequence=sequence)
    if message is None:
        raise NotFound("Message not found.", extra={"sequence": sequence})
    data = MessageCorrectInSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    actor = signed_in(request.user)
    outcome = statement_correct(actor=actor, message=message, by_staff=by_staff, **data.validated_data)
    replaced = [{"superseded_id": o.pk, "superseded_content": o.content, "memory": n} for o, n in outcome.memories]
    body = MessageCorrectOutSerializer({"note": outcome.note, "memories": replaced}).data
    return Response(body, status=status.HTTP_201_CREATED)


class MessageCorrectApi(APIView):
    @extend_schema(
        request=MessageCorrectInSerializer,
        responses={201: MessageCorrectOutSerializer},
        summary="Correct a statement in my conversation",
        description=DESCRIPTION,
    )
    def post(self, request: Request, thread_id, sequence: int) -> Response:
        try:
            thread = thread_get_for_user(user=signed_in(request.user), thread_id=thread_id)
        except ThreadNotFound as exc:
            raise NotFound("Conversation not found.") from exc
        return _correct(request, thread, sequence, by_staff=False)


class StaffMessageCorrectApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        request=MessageCorrectInSerializer,
        responses={201: MessageCorrectOutSerializer},
        summary="Correct a statement in anyone's conversation (staff)",
        description=DESCRIPTION + " The note says staff corrected it; the access is logged.",
    )
    def post(self, request: Request, thread_id, sequence: int) -> Response:
        try:
            thread = thread_get_for_staff(thread_id=thread_id)
        except ThreadNotFound as exc:
            raise NotFound("Conversation not found.") from exc
        staff_access_record(
            viewer=signed_in(request.user),
            subject_id=thread.owner_id,
            what=StaffAccess.MESSAGE,
            object_ref=f"{thread.pk}#{sequence}",
        )
        return _correct(request, thread, sequence, by_staff=True)
