"""Reads on threads and messages. Ownership scoping lives here."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from conversations.models import Message, Thread, ThreadSummary


class ThreadNotFound(Exception):
    """A thread that does not exist or is not the caller's: the two are indistinguishable."""


def thread_get_for_user(*, user: AbstractBaseUser, thread_id: uuid.UUID | str) -> Thread:
    try:
        return Thread.objects.for_user(user).get(pk=thread_id)
    except (Thread.DoesNotExist, ValueError, TypeError) as exc:
        raise ThreadNotFound(str(thread_id)) from exc


def thread_list_for_user(*, user: AbstractBaseUser) -> QuerySet[Thread]:
    return Thread.objects.for_user(user).order_by("-last_activity_at")


def message_window(*, thread: Thread, size: int) -> list[Message]:
    """The last ``size`` rows of the thread, in order (one index scan)."""
    return Message.objects.last_n(thread, size)


def summary_current(*, thread: Thread) -> ThreadSummary | None:
    return ThreadSummary.objects.filter(thread=thread).order_by("-version").first()


def message_list(*, thread: Thread) -> QuerySet[Message]:
    """A thread's messages (the caller got ``thread`` through ``thread_get_for_user``)."""
    return Message.objects.filter(thread=thread)


def thread_titles(*, user: AbstractBaseUser, thread_ids: list) -> dict:
    return dict(Thread.objects.for_user(user).filter(pk__in=thread_ids).values_list("id", "title"))
