"""factory_boy factories for the project's models."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from agents.models import Run
from conversations.models import Message, MessageRole, Thread
from memories.models import Memory


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.test")
    password = factory.django.Password("pw-for-tests-only")


class ThreadFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Thread

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Conversation {n}")


class MessageFactory(factory.django.DjangoModelFactory):
    """Builds a raw message row. Product code appends through services instead."""

    class Meta:
        model = Message

    thread = factory.SubFactory(ThreadFactory)
    sequence = factory.Sequence(lambda n: n + 1)
    role = MessageRole.USER
    text = factory.Sequence(lambda n: f"message number {n}")
    content = factory.LazyAttribute(lambda m: [{"type": "text", "text": m.text}])


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Run

    thread = factory.SubFactory(ThreadFactory)
    user = factory.LazyAttribute(lambda r: r.thread.owner)
    agent = "assistant"


class MemoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Memory

    user = factory.SubFactory(UserFactory)
    content = factory.Sequence(lambda n: f"remembered fact {n}")
