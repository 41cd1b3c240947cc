"""Conversation pages: the list, new, rename, delete, search, the chat page and its runs.

Views are thin: they read through selectors, write through services, and turn domain
errors into form errors (pages) or ``{"message": ...}`` answers (the chat's fetch calls).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from agents import selectors as run_selectors
from agents.models import RunStatus
from agents.sse import event_stream_response, sse, stream_events
from conversations.search import search_threads
from conversations.selectors import (
    ThreadNotFound,
    message_get_by_sequence,
    message_list_for_display,
    thread_get_for_user,
    thread_list_for_user,
    threads_by_id_for_user,
)
from conversations.selectors import run_messages as conversation_run_messages
from conversations.services import thread_rename
from liamemory.api import status_of
from liamemory.errors import ApplicationError, NotFound
from memories.selectors import long_term_enabled_for
from usecases import turns as run_services
from usecases.message_correction import statement_correct
from usecases.thread_deletion import thread_delete
from web import presenters
from web.forms import MessageForm, NewConversationForm, RenameForm, SearchForm, StatementCorrectForm

LIST_LIMIT = 200


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _thread_or_404(request: HttpRequest, thread_id):
    try:
        return thread_get_for_user(user=request.user, thread_id=thread_id)
    except ThreadNotFound as exc:
        raise Http404("Conversation not found.") from exc


def _run_or_404(request: HttpRequest, run_id):
    try:
        return run_selectors.run_get_for_user(user=request.user, run_id=run_id)
    except NotFound as exc:
        raise Http404("Not found.") from exc


def _run_state(run) -> dict:
    thread = _thread_for_run(run)
    return presenters.run_state(run, replies=conversation_run_messages(run_id=run.pk), thread=thread)


def _thread_for_run(run):
    # Fresh from the database: the worker has just moved the thread's token totals.
    return thread_get_for_user(user=run.user, thread_id=run.thread_id)


@login_required
@require_GET
def conversation_list(request: HttpRequest) -> HttpResponse:
    return _render_list(request, NewConversationForm())


def _render_list(request: HttpRequest, form: NewConversationForm, status: int = 200) -> HttpResponse:
    threads = list(thread_list_for_user(user=request.user)[:LIST_LIMIT])
    context = {"threads": threads, "form": form}
    return render(request, "web/conversation_list.html", context, status=status)


@login_required
@require_POST
def conversation_create(request: HttpRequest) -> HttpResponse:
    form = NewConversationForm(request.POST)
    if not form.is_valid():
        return _render_list(request, form, status=400)
    try:
        thread = run_services.thread_start_or_reuse_empty(
            owner=request.user, agent=form.cleaned_data["agent"], incognito=form.cleaned_data["incognito"]
        )
    except ApplicationError as exc:
        form.add_error(None, exc.message)
        return _render_list(request, form, status=400)
    return redirect("web:chat", thread_id=thread.pk)


@login_required
@require_GET
def chat(request: HttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    return _render_chat(request, thread, MessageForm())


def _render_chat(
    request: HttpRequest, thread, form: MessageForm, status: int = 200, correction_errors: dict | None = None
) -> HttpResponse:
    latest = run_selectors.run_latest_for_thread(thread=thread)
    pending = latest if latest and latest.status != RunStatus.COMPLETED else None
    rows = message_list_for_display(thread=thread)
    shown = presenters.messages_for_display(rows, excerpts=presenters.run_excerpts_for(thread=thread, messages=rows))
    for view in shown:
        view.correction_error = (correction_errors or {}).get(view.sequence, "")
    context = {
        "thread": thread,
        "agent_title": presenters.agent_title(thread.agent),
        "chat_messages": shown,
        "form": form,
        "run": pending,
        "run_error": presenters.run_error_text(pending) if pending and pending.status == RunStatus.FAILED else "",
        "tokens": presenters.thread_tokens(thread),
        "memory_on": long_term_enabled_for(user=request.user) and not thread.incognito,
    }
    return render(request, "web/chat.html", context, status=status)


@login_required
@require_POST
def message_correct_view(request: HttpRequest, thread_id, sequence: int) -> HttpResponse:
    """ "Correct" on a message: a correction note after it, memories drawn from it superseded."""
    thread = _thread_or_404(request, thread_id)
    message = message_get_by_sequence(thread=thread, sequence=sequence)
    if message is None:
        raise Http404("Message not found.")
    form = StatementCorrectForm(request.POST)
    if not form.is_valid():
        error = next(iter(form.errors.values()))[0]
        return _render_chat(request, thread, MessageForm(), status=400, correction_errors={sequence: error})
    try:
        outcome = statement_correct(actor=request.user, message=message, **form.cleaned_data)
    except ApplicationError as exc:
        status = status_of(exc)
        return _render_chat(request, thread, MessageForm(), status=status, correction_errors={sequence: exc.message})
    messages.success(request, "Corrected: the assistant will use the right value from now on.")
    return redirect(f"{reverse('web:chat', kwargs={'thread_id': thread.pk})}#msg-{outcome.corrected.pk}")


@login_required
@require_POST
def chat_send(request: HttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    form = MessageForm(request.POST)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"message": form.errors["content"][0]}, status=400)
        return _render_chat(request, thread, form, status=400)
    try:
        message, run = run_services.turn_submit(user=request.user, thread=thread, content=form.cleaned_data["content"])
    except ApplicationError as exc:
        if _wants_json(request):
            return JsonResponse({"message": exc.message}, status=status_of(exc))
        form.add_error("content", exc.message)
        return _render_chat(request, thread, form, status=status_of(exc))
    if _wants_json(request):
        view = presenters.message_view(message)
        body = {
            "message": {"id": view.id, "html": str(view.html)},
            "run": presenters.run_state(run, replies=[], thread=thread),
            "title": thread.title,
        }
        return JsonResponse(body, status=202)
    return redirect("web:chat", thread_id=thread.pk)


@login_required
@require_GET
def run_status(request: HttpRequest, run_id) -> HttpResponse:
    """The page's poll; unchanged since the last one, it is one small read and a 304."""
    try:
        etag = run_selectors.run_etag(user=request.user, run_id=run_id)
    except NotFound as exc:
        raise Http404("Not found.") from exc
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        response = JsonResponse(_run_state(_run_or_404(request, run_id)))
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"
    return response


@login_required
@require_GET
def run_events(request: HttpRequest, run_id) -> HttpResponse:
    """The reply as it is written (server-sent events), then the run's state as the poll gives it."""
    run = _run_or_404(request, run_id)
    cursor = request.GET.get("cursor") or request.headers.get("Last-Event-ID")
    try:
        events = stream_events(run.pk, cursor, _final_state, presenters.tool_step)
    except ApplicationError as exc:
        return HttpResponse(exc.message, status=400, content_type="text/plain; charset=utf-8")
    return event_stream_response(events)


def _final_state(run_id, cursor: str) -> str:
    run = run_selectors.run_get_by_id(run_id=run_id)
    if run is None:
        return sse("gone", {}, cursor)
    return sse("state", _run_state(run), cursor)


def _run_action(request: HttpRequest, run_id, action, *, status: int) -> HttpResponse:
    """Retry or cancel: JSON for the chat's fetch calls, a redirect with a message otherwise."""
    run = _run_or_404(request, run_id)
    try:
        result = action(run=run)
    except ApplicationError as exc:
        if _wants_json(request):
            return JsonResponse({"message": exc.message}, status=status_of(exc))
        messages.error(request, exc.message)
        return redirect("web:chat", thread_id=run.thread_id)
    if _wants_json(request):
        return JsonResponse(_run_state(result), status=status)
    return redirect("web:chat", thread_id=run.thread_id)


@login_required
@require_POST
def run_retry(request: HttpRequest, run_id) -> HttpResponse:
    return _run_action(request, run_id, run_services.run_retry, status=202)


@login_required
@require_POST
def run_cancel(request: HttpRequest, run_id) -> HttpResponse:
    return _run_action(request, run_id, run_services.run_cancel, status=200)


@login_required
@require_POST
def conversation_rename(request: HttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    form = RenameForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["title"].strip():
        messages.error(request, "A title needs at least one character (200 at most).")
        return redirect("web:chat", thread_id=thread.pk)
    thread_rename(thread=thread, title=form.cleaned_data["title"])
    messages.success(request, "Renamed.")
    return redirect("web:chat", thread_id=thread.pk)


@login_required
def conversation_delete(request: HttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    if request.method != "POST":
        return render(request, "web/conversation_delete.html", {"thread": thread})
    thread_delete(thread=thread, actor=request.user)
    messages.success(request, f"Deleted “{thread.title or 'Untitled conversation'}” and what was learned only from it.")
    return redirect("web:privacy" if request.POST.get("next") == "privacy" else "web:conversations")


@login_required
@require_GET
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET) if request.GET else SearchForm()
    results = []
    if form.is_bound and form.is_valid():
        hits = search_threads(user=request.user, query=form.cleaned_data["q"], limit=30)
        threads = threads_by_id_for_user(user=request.user, ids=[h.thread_id for h in hits])
        results = [{"hit": h, "thread": threads[h.thread_id]} for h in hits if h.thread_id in threads]
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(request, "web/search.html", {"form": form, "results": results}, status=status)
