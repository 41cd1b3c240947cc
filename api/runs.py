"""The turn API: post a message, follow its run, retry or cancel it.

Each view validates input, calls one service or selector, and serializes the answer.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from agents import selectors
from agents.models import Run, RunStatus
from api.sse import event_stream_response, sse, stream_events
from api.turn_serializers import MessageOutSerializer, RunOutSerializer, TurnInSerializer, TurnOutSerializer
from conversations.models import Message
from conversations.selectors import message_list, run_reply_message, thread_get_for_user
from liamemory.api import StrictCursorPagination, cursor_page, cursor_parameters
from usecases import turns as services


class MessageCursor(StrictCursorPagination):
    ordering = "sequence"


def _thread(request, thread_id):
    return thread_get_for_user(user=request.user, thread_id=thread_id)


class ThreadMessagesApi(APIView):
    def get_throttles(self):
        if self.request.method == "POST":
            self.throttle_scope = "turns"
            return [ScopedRateThrottle()]
        return []

    @extend_schema(
        operation_id="threads_messages_list",
        parameters=cursor_parameters(),
        responses=cursor_page(MessageOutSerializer, "MessagePage"),
        summary="List a conversation's messages, oldest first (cursor pages; limit 1-200)",
    )
    def get(self, request, thread_id):
        thread = _thread(request, thread_id)
        paginator = MessageCursor()
        page = paginator.paginate_queryset(message_list(thread=thread), request, view=self)
        return paginator.get_paginated_response(MessageOutSerializer(page, many=True).data)

    @extend_schema(request=TurnInSerializer, responses={202: TurnOutSerializer}, summary="Post a user message")
    def post(self, request, thread_id):
        thread = _thread(request, thread_id)
        data = TurnInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        message, run = services.turn_submit(user=request.user, thread=thread, content=data.validated_data["content"])
        body = TurnOutSerializer({"message": message, "run": run}, context={"just_written": True}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


def _reply(run: Run) -> Message | None:
    """The final assistant message a completed run wrote, or what a stopped one had written."""
    return run_reply_message(run_id=run.pk) if run.status in (RunStatus.COMPLETED, RunStatus.CANCELLED) else None


class RunDetailApi(APIView):
    @extend_schema(responses=RunOutSerializer, summary="A run: status, reply when completed, error when failed")
    def get(self, request, run_id):
        # A poll while nothing changed is one small read and a 304 (send the ETag back as If-None-Match).
        try:
            etag = selectors.run_etag(user=request.user, run_id=run_id)
        except (ValueError, TypeError) as exc:
            raise selectors.RunNotFound(run_id) from exc
        if request.headers.get("If-None-Match") == etag:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        run = selectors.run_get_for_user(user=request.user, run_id=run_id)
        reply = _reply(run)
        return Response(RunOutSerializer(run, context={"reply": reply}).data, headers={"ETag": etag})


class EventStreamRenderer(BaseRenderer):
    """Lets a client ask for ``text/event-stream``; an error before the stream starts is one ``error`` event."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        return sse("error", data or {}).encode()


# One server-sent event as a client parses it; ``data`` is a line of JSON.
SSE_EVENT_SCHEMA = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["delta", "tool", "restart", "run", "gone", "error"]},
        "data": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}


class RunEventsApi(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "cursor",
                OpenApiTypes.STR,
                description="Resume after this event id (as the Last-Event-ID header does).",
            )
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                SSE_EVENT_SCHEMA,
                description=(
                    "Server-sent events: `delta` {text} as the reply is written, `tool` {name} as a tool step "
                    "starts, `restart` when the run went back to the queue and writes its reply again from the "
                    "start (drop what was shown), then one `run` event (the run as GET /api/runs/<id> gives it) "
                    "and the end of the stream. Event ids are cursors ('characters.steps.attempt')."
                ),
            )
        },
        summary="Follow a run while its reply is written (server-sent events)",
    )
    def get(self, request, run_id):
        selectors.run_check_owner(user=request.user, run_id=run_id)
        cursor = request.query_params.get("cursor") or request.headers.get("Last-Event-ID")
        return event_stream_response(stream_events(run_id, cursor, self._final))

    @staticmethod
    def _final(run_id, cursor: str) -> str:
        run = selectors.run_get_by_id(run_id=run_id)
        if run is None:
            return sse("gone", {}, cursor)
        reply = _reply(run)
        return sse("run", RunOutSerializer(run, context={"reply": reply}).data, cursor)


class RunRetryApi(APIView):
    throttle_scope = "turns"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(request=None, responses={202: RunOutSerializer}, summary="Retry a failed or cancelled run")
    def post(self, request, run_id):
        run = selectors.run_get_for_user(user=request.user, run_id=run_id)
        new = services.run_retry(run=run)
        return Response(RunOutSerializer(new).data, status=status.HTTP_202_ACCEPTED)


class RunCancelApi(APIView):
    @extend_schema(
        request=None,
        responses=RunOutSerializer,
        summary="Cancel a queued, running or waiting run",
        description="What the reply had written so far is kept as the run's reply, marked `stopped`.",
    )
    def post(self, request, run_id):
        run = services.run_cancel(run=selectors.run_get_for_user(user=request.user, run_id=run_id))
        return Response(RunOutSerializer(run, context={"reply": _reply(run)}).data)
