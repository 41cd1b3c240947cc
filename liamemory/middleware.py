"""``/api/`` answers in its one JSON error format whatever happens, DEBUG included."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation, TooManyFieldsSent
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.html import format_html

from liamemory.api import (
    INTERNAL_ERROR,
    database_unavailable,
    json_bad_request,
    json_server_error,
    unavailable_message,
)
from liamemory.database import database_error_behind, pool_timed_out

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
        if isinstance(exception, OperationalError | InterfaceError):
            # A database outage or a busy pool: a 503 the client may retry, not a 500.
            return _unavailable(request, exception)
        if not _is_api(request) or isinstance(exception, _DJANGO_ANSWERS_4XX):
            # Django answers these 4xx itself; ``__call__`` makes a DEBUG page JSON.
            return None
        logger.error("Internal Server Error: %s", request.path, exc_info=exception)
        return JsonResponse({"message": INTERNAL_ERROR, "extra": {}}, status=500)


# Form fields never written back into a page (a sign-in that met the busy pool).
_NOT_SENT_BACK = ("csrfmiddlewaretoken", "password")
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
# Seconds a client is asked to wait (``Retry-After``); the page reloads itself after them.
_RETRY_AFTER = 5


def unavailable_page(request: HttpRequest, exception: BaseException) -> HttpResponse:
    """The 503 page: what happened in words (the database away, or only busy), that what
    was saved is kept, and nothing typed lost: a form's fields come back, to send again.

    Rendered without the request's context processors (the signed-in user is read from
    the database the request could not reach), so the page itself needs no connection.
    A page asked for (GET) tries again by itself after ``Retry-After``.
    """
    sent: list[tuple[str, str]] = []
    if request.method == "POST" and request.content_type in _FORMS:
        sent = [
            (name, value)
            for name, values in request.POST.lists()
            if not any(word in name.lower() for word in _NOT_SENT_BACK)
            for value in values
        ]
    context = {
        "busy": pool_timed_out(exception),
        "message": unavailable_message(exception),
        "sent": sent,
        "action": request.get_full_path(),
        "again": request.method == "GET",
        "retry_after": _RETRY_AFTER,
        "csrf_token": get_token(request),
    }
    page = render_to_string("503.html", context)
    return HttpResponse(page, status=503, headers={"Retry-After": str(_RETRY_AFTER)})


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``. The session's save after the view (a sign-in's) meeting a busy pool or
    an outage is Django's ``SessionInterrupted`` ("the session was deleted"): it is answered
    as a database error, the 503, not as bad input. Anything else: ``json_bad_request``."""
    error = database_error_behind(exception)
    if error is not None:
        return _unavailable(request, error)
    return json_bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a database error raised after the view (by a middleware) is the 503
    too. Django calls this inside its ``except`` block, so the error is the one handled."""
    error = database_error_behind(sys.exc_info()[1])
    if error is not None:
        return _unavailable(request, error)
    return json_server_error(request)


def _unavailable(request: HttpRequest, error: BaseException) -> HttpResponse:
    """What ``process_exception`` answers a view's database error: the page, or JSON under /api/."""
    logger.error("database unavailable at %s: %s", request.path, type(error).__name__)
    return database_unavailable(error) if _is_api(request) else unavailable_page(request, error)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


class FieldLimitMiddleware:
    """Second in ``MIDDLEWARE``: a query string (or a small form body) with more fields than
    ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` is refused here, with a plain 400.

    Django raises while the view (or CSRF) reads the fields; under DEBUG its error page
    then reads them again to show them, raises inside the error handling, and the answer
    is a 500. Parsed here first, nothing later reads them unparsed. A body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` and multipart uploads are left to the views (413,
    the import's own file handling).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.GET  # noqa: B018 (parsing is the check)
            if _small_form_post(request):
                request.POST  # noqa: B018
        except TooManyFieldsSent:
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            message = f"Too many fields in the request; at most {limit} are accepted."
            if _is_api(request):
                return JsonResponse({"message": message, "extra": {"limit": limit}}, status=400)
            return HttpResponseBadRequest(format_html("<!doctype html><title>Bad request</title><p>{}</p>", message))
        return self.get_response(request)


def _small_form_post(request: HttpRequest) -> bool:
    if request.method != "POST" or request.content_type != "application/x-www-form-urlencoded":
        return False
    try:
        length = int(request.META.get("CONTENT_LENGTH") or -1)
    except ValueError:
        return False
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return length >= 0 and (limit is None or length <= limit)
