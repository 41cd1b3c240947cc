"""A person's chat through the HTTP API with the real worker: post, wait for the reply, read the excerpts."""

from rest_framework.test import APIClient

from agents.context_report import context_report_read
from agents.models import Run
from conversations.content import text_block
from conversations.models import Message, Thread
from conversations.services import messages_append
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


SMALL_TALK = [
    ("Lovely sunny morning here, off for a walk by the river.", "Enjoy the walk!"),
    ("How long do you boil an egg for a runny yolk?", "About six minutes in boiling water."),
    ("That film last night was far too long.", "Long films can drag, yes."),
]


def chat_with_small_talk(
    user,
    statements: list[str],
    *,
    exchanges: int = 30,
    noted: str = "Noted.",
) -> str:
    """A conversation of ``user``: each statement followed by ``exchanges`` of small talk (written in
    one go, not replayed), so what was said is out of the window when asked about."""
    thread_id = api_as(user).post("/api/threads", {"agent": "assistant"}, format="json").json()["id"]
    items = []
    for statement in statements:
        items.append({"role": "user", "content": [text_block(statement)]})
        items.append({"role": "assistant", "content": [text_block(noted)]})
        for i in range(exchanges):
            said, answer = SMALL_TALK[i % len(SMALL_TALK)]
            items.append({"role": "user", "content": [text_block(f"{said} ({i})")]})
            items.append({"role": "assistant", "content": [text_block(f"{answer} ({i})")]})
    messages_append(thread=Thread.objects.get(pk=thread_id), items=items)
    return thread_id
