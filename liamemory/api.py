"""API conventions shared by every app: one error format, domain errors mapped once.

Every error answers ``{"message": "...", "extra": {...}}``. Services raise domain
errors (``liamemory/errors.py``), never HTTP objects; ``STATUS_OF_ERROR`` below turns
them into 4xx answers.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from liamemory.database import pool_timed_out
from liamemory.errors import ApplicationError, Conflict, Forbidden, NotFound, TooLarge
from liamemory.jsoncheck import json_problems

logger = logging.getLogger(__name__)

__all__ = ["ApplicationError", "Conflict", "Forbidden", "NotFound", "TooLarge", "exception_handler", "status_of"]


# The one table from domain errors to HTTP answers; the most specific class wins.
STATUS_OF_ERROR: tuple[tuple[type[ApplicationError], int], ...] = (
    (NotFound, status.HTTP_404_NOT_FOUND),
    (Conflict, status.HTTP_409_CONFLICT),
    (Forbidden, status.HTTP_403_FORBIDDEN),
    (TooLarge, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE),
    (ApplicationError, status.HTTP_400_BAD_REQUEST),
)


def status_of(exc: ApplicationError) -> int:
    return next(code for cls, code in STATUS_OF_ERROR if isinstance(exc, cls))


def _first_message(detail: Any) -> str:
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    if isinstance(detail, dict) and detail:
        key, value = next(iter(detail.items()))
        inner = _first_message(value)
        return inner if key == "non_field_errors" else f"{key}: {inner}"
    return str(detail)


def _too_big_message() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"The request body is larger than {limit} bytes, the most accepted."


INTERNAL_ERROR = "Internal error; it has been logged."
DATABASE_UNAVAILABLE = "The database is unavailable right now; try again in a moment."
# The server is up, but this process's pool had no free database connection in its wait
# (``DB_POOL_TIMEOUT``): a burst, over in seconds. The request's own writes were rolled back.
SERVER_BUSY = (
    "The server is too busy to answer right now (every database connection was in use); "
    "nothing of this request was saved, and what was saved before is kept: try again in a moment."
)


def unavailable_message(exc: BaseException | None) -> str:
    """What a 503 says: the database away, or only busy (``liamemory.database.pool_timed_out``)."""
    return SERVER_BUSY if exc is not None and pool_timed_out(exc) else DATABASE_UNAVAILABLE


def database_unavailable(exc: BaseException | None = None):
    """503 in the one error format: the client may retry; nothing of the driver's message leaks."""
    from django.http import JsonResponse

    body = {"message": unavailable_message(exc), "extra": {}}
    return JsonResponse(body, status=503, headers={"Retry-After": "5"})


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, OperationalError | InterfaceError):
        logger.error("database unavailable: %s", type(exc).__name__)
        body = {"message": unavailable_message(exc), "extra": {}}
        return Response(body, status=503, headers={"Retry-After": "5"})
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return Response({"message": f"Bad request: {exc}", "extra": {}}, status=400)
    if isinstance(exc, SuspiciousOperation | BadRequest) and not isinstance(exc, RequestDataTooBig):
        return Response({"message": "Bad request.", "extra": {}}, status=400)
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response({"message": _too_big_message(), "extra": {"limit": limit}}, status=413)
    if isinstance(exc, ApplicationError):
        return Response({"message": exc.message, "extra": exc.extra}, status=status_of(exc))
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"message": _first_message(detail), "extra": {"fields": detail}}
    else:
        message = detail.get("detail", detail) if isinstance(detail, dict) else detail
        response.data = {"message": str(message), "extra": {}}
    return response


def json_bad_request(request, exception=None):
    """400 raised outside a DRF view (or before it): JSON under /api/, 413 for a body too large."""
    from django.http import JsonResponse
    from django.views.defaults import bad_request

    if not request.path.startswith("/api/"):
        return bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return JsonResponse({"message": _too_big_message(), "extra": {"limit": limit}}, status=413)
    return JsonResponse({"message": "Bad request.", "extra": {}}, status=400)


def json_server_error(request):
    """500 under /api/ in the one error format (the details are in the log, never in the answer)."""
    from django.http import JsonResponse
    from django.views.defaults import server_error

    if request.path.startswith("/api/"):
        # Django calls this inside its ``except`` block: a database outage is a 503, not our bug.
        raised = sys.exc_info()[1]
        if isinstance(raised, OperationalError | InterfaceError):
            return database_unavailable(raised)
        return JsonResponse({"message": INTERNAL_ERROR, "extra": {}}, status=500)
    return server_error(request)


def json_not_found(request, exception=None):
    """404 for URLs no route matches (e.g. a non-UUID id): JSON under /api/, HTML elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse({"message": "Not found.", "extra": {"path": request.path}}, status=404)
    return page_not_found(request, exception)


class StrictCursorPagination(CursorPagination):
    """Cursor pagination that refuses a bad page size instead of silently clamping it."""

    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isdigit() or not 1 <= int(raw) <= self.max_page_size:
            raise exceptions.ValidationError(
                {self.page_size_query_param: [f"Must be a whole number from 1 to {self.max_page_size}."]}
            )
        return int(raw)

    def decode_cursor(self, request):
        # DRF answers a bad cursor with 404, which would read as "no such object".
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound as exc:
            raise _bad_cursor() from exc

    def paginate_queryset(self, queryset, request, view=None):
        self._check_position(queryset, request, view)
        return super().paginate_queryset(queryset, request, view)

    def _check_position(self, queryset, request, view: Any) -> None:
        """A cursor is base64 the client can forge: its position must be a value of the ordering
        field (``p=abc`` on an integer answered 500 from the query), in the column's range."""
        cursor = self.decode_cursor(request)
        if cursor is None or cursor.position is None:
            return
        ordering = self.get_ordering(request, queryset, view)
        field = queryset.model._meta.get_field(ordering[0].lstrip("-"))
        if _unstorable(cursor.position):
            raise _bad_cursor()
        try:
            field.run_validators(field.to_python(cursor.position))
        except (DjangoValidationError, ValueError, TypeError, OverflowError) as exc:
            raise _bad_cursor() from exc


def _unstorable(text: str) -> bool:
    return bool(json_problems(text))


def _bad_cursor() -> exceptions.ValidationError:
    return exceptions.ValidationError(
        {StrictCursorPagination.cursor_query_param: ["Invalid cursor: use a page's next or previous link as it is."]}
    )


def cursor_parameters() -> list:
    """The query parameters of ``StrictCursorPagination``, for the OpenAPI schema."""
    from drf_spectacular.types import OpenApiTypes
    from drf_spectacular.utils import OpenApiParameter

    return [
        OpenApiParameter("cursor", OpenApiTypes.STR, description="The page to read: from a page's next or previous."),
        OpenApiParameter(
            "limit", OpenApiTypes.INT, description=f"Items per page, 1 to {StrictCursorPagination.max_page_size}."
        ),
    ]


def cursor_page(serializer_class: type, name: str) -> Any:
    """The OpenAPI shape of a ``StrictCursorPagination`` page of ``serializer_class`` items.

    Our list views are plain ``APIView``s, which drf-spectacular cannot know are paginated.
    """
    from drf_spectacular.utils import inline_serializer
    from rest_framework import serializers

    return inline_serializer(
        name=name,
        fields={
            "next": serializers.URLField(allow_null=True, help_text="The next page, or null."),
            "previous": serializers.URLField(allow_null=True, help_text="The previous page, or null."),
            "results": serializer_class(many=True),
        },
    )
