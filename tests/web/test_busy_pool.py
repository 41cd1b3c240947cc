"""The web process's connection pool exhausted (a burst): a page says so in words, and
nothing is lost: what was stored stays, and a message being sent comes back, to send again.

A real pool of one connection with a short wait; another thread holds it while the
request needs it (``tests.pool``), as the web's threads held its pool in the burst.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.contrib.auth.signals import user_logged_in
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import connection
from django.http import HttpResponse
from django.test import Client

from conversations.models import Message
from conversations.services import thread_create
from liamemory.api import SERVER_BUSY
from liamemory.middleware import bad_request
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


def test_a_sign_in_whose_session_save_meets_the_busy_pool_answers_503_not_500(alice, tiny_pool):
    """The session is saved after the view, by its middleware: a pool timeout there was
    Django's plain 500. The sign-in's view hands its connection back at the end (as a
    burst's other threads would take it) and the save waits for the held pool."""
    alice.set_password("a-long-passphrase")
    alice.save()
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "an earlier message")
    client = Client(raise_request_exception=False, enforce_csrf_checks=True)
    token = _csrf(client, "/accounts/login/")
    connection.close()
    hog = PoolHog()

    def the_pool_taken_meanwhile(**kwargs) -> None:
        connection.close()
        hog.hold()

    user_logged_in.connect(the_pool_taken_meanwhile, dispatch_uid="busy-pool-test")
    try:
        form = {"username": alice.username, "password": "a-long-passphrase", "csrfmiddlewaretoken": token}
        page = client.post("/accounts/login/", form)
    finally:
        user_logged_in.disconnect(dispatch_uid="busy-pool-test")
        hog.stop()

    text = page.content.decode()
    assert page.status_code == 503 and page["Retry-After"] == "5", (page.status_code, text[:300])
    assert "Too busy for a moment" in text and "every database connection was in use" in text
    # The form comes back to send again, with the name typed and never the password.
    assert f'name="username" value="{alice.username}"' in text and "a-long-passphrase" not in text
    # Not signed in (the session was not saved), and nothing stored was touched.
    assert client.get("/").status_code == 302
    assert _texts(str(thread.pk))[0] == "an earlier message" and len(_texts(str(thread.pk))) == 2
    # Once the pool has a connection again, signing in works.
    again = client.post("/accounts/login/", {**form, "csrfmiddlewaretoken": _csrf(client, "/accounts/login/")})
    assert again.status_code == 302 and client.get("/").status_code == 200


def test_the_api_answers_a_session_save_that_met_the_busy_pool_with_its_503(alice, tiny_pool, rf):
    """No API view saves a session, but the answer is the same one if a request's did: the
    real save's error (SessionInterrupted over the pool's timeout) through ``handler400``."""
    store = SessionStore()
    store.create()
    store["seen"] = True
    connection.close()
    hog = PoolHog()
    hog.hold()
    try:
        with pytest.raises(SessionInterrupted) as raised:
            SessionMiddleware(lambda request: None).process_response(_with_session(rf, store), HttpResponse())
    finally:
        hog.stop()
    for path in ("/api/threads", "/c/"):
        answer = bad_request(rf.post(path), raised.value)
        assert answer.status_code == 503 and answer["Retry-After"] == "5", path
    assert json.loads(bad_request(rf.post("/api/threads"), raised.value).content)["message"] == SERVER_BUSY
    assert bad_request(rf.post("/api/threads"), SessionInterrupted("a concurrent sign-out")).status_code == 400


def _with_session(rf, store):
    request = rf.post("/api/threads")
    request.session = store
    return request
