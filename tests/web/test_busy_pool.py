"""The web process's connection pool exhausted (a burst): a page says so in words, and
nothing is lost: what was stored stays, and a message being sent comes back, to send again.

A real pool of one connection with a short wait; another thread holds it while the
request needs it (``tests.pool``), as the web's threads held its pool in the burst.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test import Client

from conversations.models import Message
from conversations.services import thread_create
from tests.pool import PoolHog
from tests.usecases.turn.helpers import run_turn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("runs_not_enqueued")]

TYPED = 'My flight lands at 7 <b>"tomorrow"</b>;\nremember it & thanks'


def _signed_in(alice) -> tuple[Client, str]:
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "an earlier message")
    client = Client(raise_request_exception=False, enforce_csrf_checks=True)
    client.force_login(alice)
    return client, str(thread.pk)


def _csrf(client: Client, page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(page).content.decode()).group(1)


def test_a_message_sent_while_the_pool_is_busy_comes_back_to_send_again(alice, tiny_pool):
    client, thread_id = _signed_in(alice)
    token = _csrf(client, f"/c/{thread_id}/")
    connection.close()  # the test's own requests keep theirs (Django's test client)
    hog = PoolHog()
    hog.hold()
    page = client.post(f"/c/{thread_id}/send", {"content": TYPED, "csrfmiddlewaretoken": token})
    hog.stop()

    text = page.content.decode()
    assert page.status_code == 503 and page["Retry-After"] == "5"
    assert "Too busy for a moment" in text and "every database connection was in use" in text
    assert "nothing of this request was saved" in text and "conversations" in text
    # What was typed, in a form that sends it to the same place again (with a fresh token).
    form = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', text, re.S)
    assert form and form.group(1) == f"/c/{thread_id}/send"
    typed = unescape(re.search(r'<textarea[^>]*name="content"[^>]*>(.*?)</textarea>', form.group(2), re.S).group(1))
    assert typed == TYPED and "<b>" not in form.group(2)
    resent_token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(2)).group(1)
    # Nothing stored was lost, and nothing half-sent was stored.
    assert _texts(thread_id)[0] == "an earlier message" and len(_texts(thread_id)) == 2

    # Once the pool has a connection again, "Send it again" sends it, once.
    resent = client.post(f"/c/{thread_id}/send", {"content": typed, "csrfmiddlewaretoken": resent_token})
    assert resent.status_code == 302 and resent["Location"] == f"/c/{thread_id}/"
    assert _texts(thread_id)[2:] == [TYPED]


def _texts(thread_id: str) -> list[str]:
    return [m.text for m in Message.objects.filter(thread_id=thread_id).order_by("sequence")]


def test_a_page_asked_for_while_the_pool_is_busy_says_so_and_tries_again(alice, tiny_pool):
    client, thread_id = _signed_in(alice)
    connection.close()  # the test's own requests keep theirs (Django's test client)
    hog = PoolHog()
    hog.hold()
    page = client.get(f"/c/{thread_id}/")
    hog.stop()
    text = page.content.decode()
    assert page.status_code == 503 and "Too busy for a moment" in text
    assert '<meta http-equiv="refresh" content="5">' in text and f'href="/c/{thread_id}/"' in text
    assert '<form method="post" action=' not in text  # a page asked for has nothing to send again
    assert client.get(f"/c/{thread_id}/").status_code == 200


def test_the_api_says_the_server_is_busy_and_the_composer_keeps_the_text(alice, tiny_pool):
    client, thread_id = _signed_in(alice)
    connection.close()  # the test's own requests keep theirs (Django's test client)
    hog = PoolHog()
    hog.hold()
    response = client.post(f"/api/threads/{thread_id}/messages", {"content": TYPED}, content_type="application/json")
    hog.stop()
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["message"].startswith("The server is too busy to answer right now")
    assert len(_texts(thread_id)) == 2
