"""The per-person admin page: everything stored about one user, level by level.

Staff only (``admin_site.admin_view``); every view is logged in ``StaffAccessLog``.
Counts are per person (exact: this is what an export or an erasure will cover), each
served by an index on the owner/user column; the page costs a fixed number of queries
however much the person has stored.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from agents.models import Run, TraceEvent
from conversations.models import Message, Thread, ThreadSummary
from liamemory.models import StaffAccess, StaffAccessLog
from liamemory.roles import is_compliance_officer, signed_in
from liamemory.staff_access import staff_access_record
from memories.models import Memory, MemoryStatus
from memories.selectors import memory_preference_for

NEWEST = 10


def _person_page(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_user_model().objects.filter(pk=user_id).first()
    if person is None:
        raise Http404("No such person.")
    threads = Thread.objects.filter(owner=person)
    memories_by_status = dict(
        Memory.objects.filter(user=person).values_list("status").annotate(n=Count("id")).values_list("status", "n")
    )
    counts = [
        ("Threads", threads.count()),
        # One person's messages: an index-only scan of (thread, sequence) per thread.
        ("Messages", Message.objects.filter(thread__owner=person).count()),
        ("Summaries", ThreadSummary.objects.filter(thread__owner=person).count()),
        ("Runs", Run.objects.filter(user=person).count()),
        ("Trace events", TraceEvent.objects.filter(run__user=person).count()),
    ]
    counts += [(f"Memories {label.lower()}", memories_by_status.get(value, 0)) for value, label in MemoryStatus.choices]
    preference = memory_preference_for(user=person)
    context = {
        **admin.site.each_context(request),
        "title": f"Everything stored about {person.get_username()}",
        "person": person,
        "counts": counts,
        "long_term_enabled": preference,
        "threads": list(threads.order_by("-last_activity_at")[:NEWEST]),
        "memories": list(Memory.objects.filter(user=person).order_by("-created_at", "-id")[:NEWEST]),
        "runs": list(Run.objects.filter(user=person).order_by("-created_at")[:NEWEST]),
        "accesses": list(StaffAccessLog.objects.filter(subject=person).order_by("-viewed_at", "-id")[:NEWEST]),
        # Exporting anyone's data is the compliance officers' (docs/design.md, "Who may do what").
        "export_url": reverse("person-export", args=[person.pk]) if is_compliance_officer(request.user) else "",
        # So is erasure: the request form opens with this person already chosen.
        "erase_url": f"{reverse('admin:governance_erasurerequest_add')}?subject={person.pk}"
        if is_compliance_officer(request.user)
        else "",
    }
    # Logged after the reads, so the page shows who looked before this view.
    staff_access_record(
        viewer=signed_in(request.user), subject_id=person.pk, what=StaffAccess.PERSON, object_ref=person.pk
    )
    return TemplateResponse(request, "admin/person.html", context)


person_page = admin.site.admin_view(_person_page)
