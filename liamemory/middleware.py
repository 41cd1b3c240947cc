"""``/api/`` answers in its one JSON error format whatever happens, DEBUG included."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

from liamemory.api import INTERNAL_ERROR, database_unavailable

logger = logging.getLogger("django.request")

_DJANGO_ANSWERS_4XX = (Http404, PermissionDenied, BadRequest, SuspiciousOperation)
_PLAIN = {400: "Bad request.", 403: "Forbidden.", 404: "Not found.", 405: "Method not allowed.", 500: INTERNAL_ERROR}


class ApiJsonErrorsMiddleware:
    """First in ``MIDDLEWARE``. Django's DEBUG pages (a traceback and a dump of the settings)
    and its HTML error pages are for the web pages; an API client gets
    ``{"message", "extra"}`` and never a detail of the server."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not _is_api(request) or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        # An HTML error page under /api/: a DEBUG page, or a middleware's own answer.
        status = response.status_code
        message = _PLAIN.get(status, response.reason_phrase or "Error.")
        answer = JsonResponse({"message": message, "extra": {}}, status=status)
        for header in ("WWW-Authenticate", "Allow", "Retry-After"):
            if header in response:
                answer[header] = response[header]
        return answer

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not _is_api(request) or isinstance(exception, _DJANGO_ANSWERS_4XX):
            # Django answers these 4xx itself; ``__call__`` makes a DEBUG page JSON.
            return None
        if isinstance(exception, OperationalError | InterfaceError):
            logger.error("database unavailable at %s: %s", request.path, type(exception).__name__)
            return database_unavailable()
        logger.error("Internal Server Error: %s", request.path, exc_info=exception)
        return JsonResponse({"message": INTERNAL_ERROR, "extra": {}}, status=500)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")
