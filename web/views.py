"""Conversation pages: the list, new, rename, delete, search, the chat page.

Views are thin: they read through selectors, write through use cases, and turn domain
errors into form errors. The chat page's script follows a turn through the JSON API
(``/api/threads/<id>/messages``, ``/api/runs/<id>`` and its events, retry, cancel:
``api/runs.py``) and asks this module only for the HTML of what changed
(``chat_update``), rendered by the same templates as the page. Without the script the
page still works: sending (``chat_send``), Stop and Try again / Regenerate (``run_cancel_view``,
``run_retry_view``) are plain form posts to the same use cases, and the page refreshes
itself while a reply is written.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from agents import selectors as run_selectors
from agents.models import Run, RunStatus
from conversations.search import search_threads
from conversations.selectors import (
    ThreadNotFound,
    message_get_by_sequence,
    message_list_for_display,
    thread_get_for_user,
    thread_list_for_user,
    threads_by_id_for_user,
)
from conversations.services import thread_rename
from liamemory.api import status_of
from liamemory.errors import ApplicationError
from liamemory.roles import AuthenticatedHttpRequest
from memories.selectors import long_term_memory_allowed
from usecases import turns as run_services
from usecases.erasure import erasure_notice_take
from usecases.message_correction import statement_correct
from usecases.thread_deletion import thread_delete
from web import presenters
from web.forms import ChatUpdateForm, MessageForm, NewConversationForm, RenameForm, SearchForm, StatementCorrectForm

LIST_LIMIT = 200


def _thread_or_404(request: AuthenticatedHttpRequest, thread_id):
    try:
        return thread_get_for_user(user=request.user, thread_id=thread_id)
    except ThreadNotFound as exc:
        raise Http404("Conversation not found.") from exc


@login_required
@require_GET
def conversation_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    # The landing page after sign-in: a person whose data was erased (account kept)
    # learns here, once, what went and when, instead of finding an empty account.
    notice = erasure_notice_take(user=request.user)
    if notice:
        messages.info(request, notice.text)
    return _render_list(request, NewConversationForm())


def _render_list(request: AuthenticatedHttpRequest, form: NewConversationForm, status: int = 200) -> HttpResponse:
    threads = list(thread_list_for_user(user=request.user)[:LIST_LIMIT])
    context = {"threads": threads, "form": form}
    return render(request, "web/conversation_list.html", context, status=status)


@login_required
@require_POST
def conversation_create(request: AuthenticatedHttpRequest) -> HttpResponse:
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
def chat(request: AuthenticatedHttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    return _render_chat(request, thread, MessageForm())


def _render_chat(
    request: AuthenticatedHttpRequest,
    thread,
    form: MessageForm,
    status: int = 200,
    correction_errors: dict | None = None,
) -> HttpResponse:
    state = _turn_state(thread)
    rows = message_list_for_display(thread=thread)
    shown = _messages_shown(thread, rows)
    for view in shown:
        view.correction_error = (correction_errors or {}).get(view.sequence, "")
    context = {
        **state,
        "chat_messages": shown,
        "through": rows[-1].sequence if rows else 0,
        "form": form,
        "tool_labels": presenters.TOOL_LABELS,
        "memory_on": long_term_memory_allowed(user=request.user, thread=thread),
    }
    return render(request, "web/chat.html", context, status=status)


def _messages_shown(thread, rows: list) -> list[presenters.MessageView]:
    return presenters.messages_for_display(rows, excerpts=presenters.run_excerpts_for(thread=thread, messages=rows))


def _turn_state(thread) -> dict:
    """The thread, its latest turn when it is not simply completed (the status box), and its tokens.

    Read before the messages: a turn that ends in between then shows its replies, or
    the page follows it; it is never shown ended without them.
    """
    latest = run_selectors.run_latest_for_thread(thread=thread)
    pending = latest if latest and latest.status != RunStatus.COMPLETED else None
    return {
        "thread": thread,
        "agent_title": presenters.agent_title(thread.agent),
        "run": pending,
        "run_error": presenters.run_error_text(pending) if pending and pending.status == RunStatus.FAILED else "",
        "tokens": presenters.thread_tokens(thread),
    }


@login_required
@require_GET
def chat_update(request: AuthenticatedHttpRequest, thread_id) -> HttpResponse:
    """The chat page's messages numbered after ``after`` (through ``through``), its status box,
    tokens and title, rendered by the page's own templates for its script to put in place."""
    thread = _thread_or_404(request, thread_id)
    form = ChatUpdateForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "after (and through) must be whole numbers of at least 0.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    state = _turn_state(thread)
    after = form.cleaned_data["after"]
    rows = message_list_for_display(thread=thread, after=after, through=form.cleaned_data["through"])
    context = {**state, "chat_messages": _messages_shown(thread, rows), "through": rows[-1].sequence if rows else after}
    return render(request, "web/_chat_update.html", context)


@login_required
@require_POST
def message_correct_view(request: AuthenticatedHttpRequest, thread_id, sequence: int) -> HttpResponse:
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
def chat_send(request: AuthenticatedHttpRequest, thread_id) -> HttpResponse:
    """Send without the page's script (which posts to ``/api/threads/<id>/messages``)."""
    thread = _thread_or_404(request, thread_id)
    form = MessageForm(request.POST)
    if not form.is_valid():
        return _render_chat(request, thread, form, status=400)
    try:
        run_services.turn_submit(user=request.user, thread=thread, content=form.cleaned_data["content"])
    except ApplicationError as exc:
        form.add_error("content", exc.message)
        return _render_chat(request, thread, form, status=status_of(exc))
    return redirect("web:chat", thread_id=thread.pk)


def _run_or_404(request: AuthenticatedHttpRequest, thread, run_id) -> Run:
    try:
        run = run_selectors.run_get_for_user(user=request.user, run_id=run_id)
    except run_selectors.RunNotFound as exc:
        raise Http404("Run not found.") from exc
    if run.thread_id != thread.pk:
        raise Http404("Run not found.")
    return run


def _run_action(request: AuthenticatedHttpRequest, thread_id, run_id, action: Callable[..., object]) -> HttpResponse:
    """A run's button without the page's script: the same use case as the run API, then the chat."""
    thread = _thread_or_404(request, thread_id)
    try:
        action(run=_run_or_404(request, thread, run_id))
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("web:chat", thread_id=thread.pk)


@login_required
@require_POST
def run_cancel_view(request: AuthenticatedHttpRequest, thread_id, run_id) -> HttpResponse:
    """Stop without the page's script (which posts to ``/api/runs/<id>/cancel``): the words written stay."""
    return _run_action(request, thread_id, run_id, run_services.run_cancel)


@login_required
@require_POST
def run_retry_view(request: AuthenticatedHttpRequest, thread_id, run_id) -> HttpResponse:
    """Try again / Regenerate without the page's script (which posts to ``/api/runs/<id>/retry``)."""
    return _run_action(request, thread_id, run_id, run_services.run_retry)


@login_required
@require_POST
def conversation_rename(request: AuthenticatedHttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    form = RenameForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["title"].strip():
        messages.error(request, "A title needs at least one character (200 at most).")
        return redirect("web:chat", thread_id=thread.pk)
    thread_rename(thread=thread, title=form.cleaned_data["title"])
    messages.success(request, "Renamed.")
    return redirect("web:chat", thread_id=thread.pk)


@login_required
def conversation_delete(request: AuthenticatedHttpRequest, thread_id) -> HttpResponse:
    thread = _thread_or_404(request, thread_id)
    if request.method != "POST":
        return render(request, "web/conversation_delete.html", {"thread": thread})
    thread_delete(thread=thread, actor=request.user)
    messages.success(request, f"Deleted “{thread.title or 'Untitled conversation'}” and what was learned only from it.")
    return redirect("web:privacy" if request.POST.get("next") == "privacy" else "web:conversations")


@login_required
@require_GET
def search(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = SearchForm(request.GET) if request.GET else SearchForm()
    results = []
    if form.is_bound and form.is_valid():
        hits = search_threads(user=request.user, query=form.cleaned_data["q"], limit=30)
        threads = threads_by_id_for_user(user=request.user, ids=[h.thread_id for h in hits])
        results = [{"hit": h, "thread": threads[h.thread_id]} for h in hits if h.thread_id in threads]
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(request, "web/search.html", {"form": form, "results": results}, status=status)
