"""A person's chat through the HTTP API with the real worker: post, wait for the reply, read the excerpts."""

from rest_framework.test import APIClient

from agents.context_report import context_report_read
from agents.models import Run
from conversations.models import Message
from tests.utils import wait_for


def api_as(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def ask(user, thread_id: str, text: str) -> tuple[str, Run]:
    """Post ``text`` and wait for the worker's reply; the reply and the run."""
    client = api_as(user)
    body = client.post(f"/api/threads/{thread_id}/messages", {"content": text}, format="json").json()
    done = wait_for(
        lambda: (r := client.get(body["run"]["url"]).json())["status"] not in ("queued", "running") and r,
        what="the run to finish",
    )
    assert done["status"] == "completed", done
    return done["reply"]["text"], Run.objects.get(pk=done["id"])


def quoted(run: Run) -> set[str]:
    """The texts of the excerpts the run's context used."""
    report = context_report_read(run.context_report)
    assert report is not None
    return set(Message.objects.filter(pk__in=[e.message_id for e in report.excerpts]).values_list("text", flat=True))
