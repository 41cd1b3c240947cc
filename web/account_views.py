"""What I remember about you, and privacy: memories, the memory switch, export, erasure."""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import groupby

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from conversations.selectors import thread_list_for_user
from liamemory.api import status_of
from liamemory.errors import ApplicationError
from liamemory.roles import AuthenticatedHttpRequest
from memories import services as memory_services
from memories.models import Memory, MemoryKind, MemoryStatus
from memories.selectors import MemoryNotFound, long_term_enabled_for, memory_get_for_user, memory_list_for_user
from usecases.erasure import erasure_self_service
from usecases.export import person_export
from usecases.memory_correction import memory_correct
from web.forms import EraseForm, MemoryCorrectForm, MemorySwitchForm

KIND_ORDER = {kind: i for i, kind in enumerate(MemoryKind.values)}


@dataclass(frozen=True)
class MemoryShown:
    """A memory on the page, with ``older_versions``: the memories it superseded, directly
    or down the chain, newest first (what it used to say, kept as history, never recalled)."""

    memory: Memory
    older_versions: list[Memory]


def _memory_groups(user: User) -> list[dict]:
    """Active and pending memories (``MemoryShown``) grouped by kind, in the kinds' declared order."""
    every = list(memory_list_for_user(user=user))
    replaced_by: dict[int, list[Memory]] = {}
    for m in every:
        if m.status == MemoryStatus.SUPERSEDED and m.superseded_by_id:
            replaced_by.setdefault(m.superseded_by_id, []).append(m)
    rows = [m for m in every if m.status in (MemoryStatus.ACTIVE, MemoryStatus.PENDING)]
    rows.sort(key=lambda m: (KIND_ORDER.get(m.kind, 99), -m.importance, -m.pk))
    shown = []
    for m in rows:
        older: list[Memory] = []
        frontier = [m.pk]
        while frontier:
            step = [o for pk in frontier for o in replaced_by.get(pk, [])]
            older.extend(step)
            frontier = [o.pk for o in step]
        shown.append(MemoryShown(memory=m, older_versions=sorted(older, key=lambda o: o.pk, reverse=True)))
    return [
        {"kind": kind, "label": MemoryKind(kind).label, "memories": list(items)}
        for kind, items in groupby(shown, key=lambda row: row.memory.kind)
    ]


def _render_memory(
    request: AuthenticatedHttpRequest, *, form_errors: dict | None = None, status: int = 200
) -> HttpResponse:
    context = {
        "groups": _memory_groups(request.user),
        "enabled": long_term_enabled_for(user=request.user),
        "globally_off": not settings.LONG_TERM_MEMORY_ENABLED,
        "form_errors": form_errors or {},
        "max_chars": settings.MEMORY_MAX_CHARS,
    }
    return render(request, "web/memory.html", context, status=status)


@login_required
@require_GET
def memory_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _render_memory(request)


@login_required
@require_http_methods(["GET", "POST"])
def memory_delete(request: AuthenticatedHttpRequest, memory_id: int) -> HttpResponse:
    """GET asks first (a page, no script: the CSP allows none inline); POST forgets."""
    if request.method != "POST":
        try:
            memory = memory_get_for_user(user=request.user, memory_id=memory_id)
        except MemoryNotFound as exc:
            raise Http404("Memory not found.") from exc
        return render(request, "web/memory_delete.html", {"memory": memory})
    if not memory_services.memory_forget(
        user=request.user, memory_id=memory_id, reason="deleted by the user on the memory page"
    ):
        raise Http404("Memory not found.")
    messages.success(request, "Forgotten. It will not be used again.")
    return redirect("web:memory")


@login_required
@require_POST
def memory_correct_view(request: AuthenticatedHttpRequest, memory_id: int) -> HttpResponse:
    try:
        memory = memory_get_for_user(user=request.user, memory_id=memory_id)
    except MemoryNotFound as exc:
        raise Http404("Memory not found.") from exc
    form = MemoryCorrectForm(request.POST)
    if not form.is_valid():
        return _render_memory(request, form_errors={memory.pk: form.errors["content"][0]}, status=400)
    try:
        memory_correct(actor=request.user, memory=memory, content=form.cleaned_data["content"])
    except ApplicationError as exc:
        return _render_memory(request, form_errors={memory.pk: exc.message}, status=status_of(exc))
    messages.success(request, "Corrected. The old text is kept only as superseded history.")
    return redirect("web:memory")


@login_required
@require_POST
def memory_switch(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = MemorySwitchForm(request.POST)
    form.is_valid()
    enabled = bool(form.cleaned_data.get("enabled"))
    memory_services.memory_preference_set(user=request.user, enabled=enabled)
    messages.success(
        request, "Long-term memory is on." if enabled else "Long-term memory is off: nothing is read or saved."
    )
    return redirect("web:memory")


@login_required
@require_GET
def privacy_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    threads = list(thread_list_for_user(user=request.user)[:200])
    return render(request, "web/privacy.html", {"threads": threads, "erase_form": EraseForm()})


@login_required
@require_GET
def privacy_export(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The person's whole data as one JSON file (the export format, with its committed schema)."""
    document = person_export(user=request.user)
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = HttpResponse(json.dumps(document, indent=2, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="liamemory-export-{stamp}.json"'
    return response


@login_required
@require_POST
def privacy_erase(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = EraseForm(request.POST)
    if not form.is_valid():
        threads = list(thread_list_for_user(user=request.user)[:200])
        return render(request, "web/privacy.html", {"threads": threads, "erase_form": form}, status=400)
    try:
        done = erasure_self_service(user=request.user, delete_account=form.cleaned_data["delete_account"])
    except ApplicationError as exc:
        form.add_error(None, exc.message)
        threads = list(thread_list_for_user(user=request.user)[:200])
        return render(request, "web/privacy.html", {"threads": threads, "erase_form": form}, status=status_of(exc))
    receipt = done.receipt if done.status == "completed" else None
    # The erasure ended every session of this person, this one included.
    logout(request)
    context = {
        "erasure": done,
        "receipt": receipt,
        "receipt_json": json.dumps(receipt.body, indent=2, sort_keys=True) if receipt else "",
    }
    return render(request, "web/erased.html", context)
