"""The conversation pages through Django's test client: owner, stranger, CSRF, bad input."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from agents.models import Run
from agents.run_lifecycle import run_claim, run_fail, run_stream_append
from conversations.content import text_block
from conversations.models import Message, Thread
from conversations.services import messages_append, thread_create
from tests.conversations.test_search import _exchange_with_tools
from tests.usecases.turn.helpers import run_turn
from usecases.turn.runner import run_execute
from usecases.turns import run_cancel, turn_submit

pytestmark = pytest.mark.django_db


def test_pages_need_sign_in(client):
    for url in ["/", "/memory/", "/privacy/", "/search?q=x"]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_sign_in_and_out_with_a_password(client, alice):
    page = client.get("/accounts/login/")
    assert page.status_code == 200 and b"Sign in" in page.content
    assert "default-src 'self'" in page["Content-Security-Policy"]
    bad = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert bad.status_code == 200 and b"form-error" in bad.content
    ok = client.post("/accounts/login/", {"username": "alice", "password": "pw-for-tests-only"})
    assert ok.status_code == 302 and ok["Location"] == "/"
    assert client.get("/").status_code == 200
    out = client.post("/accounts/logout/")
    assert out.status_code == 302 and client.get("/").status_code == 302


def test_list_shows_my_conversations_newest_first_never_bobs(as_alice, alice, bob):
    older = thread_create(owner=alice, title="Older chat")
    newer = thread_create(owner=alice, title="Newer chat")
    thread_create(owner=bob, title="Bob private chat")
    turn_submit(user=alice, thread=newer, content="hi")
    page = as_alice.get("/").content.decode()
    assert page.index("Newer chat") < page.index("Older chat")
    assert "Bob private chat" not in page
    assert f"/c/{older.pk}/" in page and "just now" in page


def test_new_conversation_with_agent_and_incognito(as_alice, alice):
    response = as_alice.post("/c/new", {"agent": "relationship", "incognito": "on"})
    thread = Thread.objects.get(owner=alice)
    assert response.status_code == 302 and response["Location"] == f"/c/{thread.pk}/"
    assert thread.agent == "relationship" and thread.incognito
    page = as_alice.get(response["Location"]).content.decode()
    assert "Relationship agent" in page and "incognito" in page


def test_new_conversation_reuses_my_newest_empty_one(as_alice, as_bob, alice):
    first = as_alice.post("/c/new", {"agent": "assistant"})
    again = as_alice.post("/c/new", {"agent": "assistant"})
    assert first["Location"] == again["Location"]
    assert Thread.objects.filter(owner=alice).count() == 1
    # Another agent, incognito, or another person: a thread of its own.
    as_alice.post("/c/new", {"agent": "relationship"})
    as_alice.post("/c/new", {"agent": "assistant", "incognito": "on"})
    as_bob.post("/c/new", {"agent": "assistant"})
    assert Thread.objects.filter(owner=alice).count() == 3
    # Once something is said in it, the next "New conversation" is a new thread.
    thread = Thread.objects.get(owner=alice, agent="assistant", incognito=False)
    turn_submit(user=alice, thread=thread, content="hello")
    assert as_alice.post("/c/new", {"agent": "assistant"})["Location"] != first["Location"]
    assert Thread.objects.filter(owner=alice).count() == 4


def test_new_conversation_with_unknown_agent_is_a_form_error(as_alice, alice):
    response = as_alice.post("/c/new", {"agent": "nope"})
    assert response.status_code == 400 and b"Select a valid choice" in response.content
    assert not Thread.objects.filter(owner=alice).exists()


def test_every_form_needs_the_csrf_token(alice):
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    thread = thread_create(owner=alice)
    for url, data in [
        ("/c/new", {"agent": "assistant"}),
        (f"/c/{thread.pk}/send", {"content": "hi"}),
        (f"/c/{thread.pk}/rename", {"title": "x"}),
        (f"/c/{thread.pk}/delete", {}),
        ("/memory/switch", {}),
        ("/privacy/erase", {"confirm": "on"}),
    ]:
        assert c.post(url, data).status_code == 403, url
    assert Thread.objects.filter(pk=thread.pk).exists() and not Message.objects.exists()
    page = c.get(f"/c/{thread.pk}/").content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 3


def test_chat_page_shows_history_agent_and_tokens(as_alice, alice):
    thread = thread_create(owner=alice)
    run = run_turn(alice, thread, "remember that my order is A-7781")
    assert run.status == "completed"
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert "remember that my order is A-7781" in page
    assert "General assistant" in page and "saved to memory" in page
    assert page.count('class="msg msg-assistant"') == 1  # the tool step lends its note to the reply
    assert "Tokens sent by this conversation" in page and "Resending the full history" in page
    assert "script-src 'self'" in as_alice.get(f"/c/{thread.pk}/")["Content-Security-Policy"]


def test_a_refused_memory_write_is_not_shown_as_saved(as_alice, alice):
    thread = thread_create(owner=alice, incognito=True)
    run = run_turn(alice, thread, "remember that my cat is Miso")
    assert run.status == "completed" and not alice.memories.exists()
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    page = re.search(r'<section class="messages".*?</section>', page, re.S)[0]
    assert "saved to memory" not in page.replace("not saved to memory", "")
    assert "not saved to memory" in page
    update = as_alice.get(f"/c/{thread.pk}/update", {"after": 1}).content.decode()
    assert "not saved to memory" in update and "saved to memory" not in update.replace("not saved to memory", "")


def test_the_token_footer_says_when_memory_cost_more_than_resending(as_alice, alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "hello")
    Thread.objects.filter(pk=thread.pk).update(tokens_sent=1250, tokens_full_resend=1000)
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert "% saved" not in page and "cost 25% more than resending" in page
    assert "cost 25% more than resending" in as_alice.get(f"/c/{thread.pk}/update", {"after": 9}).content.decode()
    Thread.objects.filter(pk=thread.pk).update(tokens_sent=600, tokens_full_resend=1000)
    assert "(40% saved)" in as_alice.get(f"/c/{thread.pk}/").content.decode()


def test_bob_gets_404_for_alices_conversation_and_runs(as_bob, alice):
    thread = thread_create(owner=alice, title="Alice secret")
    _, run = turn_submit(user=alice, thread=thread, content="my secret")
    for method, url in [
        ("get", f"/c/{thread.pk}/"),
        ("post", f"/c/{thread.pk}/send"),
        ("post", f"/c/{thread.pk}/rename"),
        ("get", f"/c/{thread.pk}/delete"),
        ("post", f"/c/{thread.pk}/delete"),
        ("get", f"/c/{thread.pk}/update?after=0"),
        ("get", f"/api/runs/{run.pk}"),
        ("get", f"/api/runs/{run.pk}/events"),
        ("post", f"/api/runs/{run.pk}/cancel"),
        ("post", f"/api/runs/{run.pk}/retry"),
        ("post", f"/c/{thread.pk}/runs/{run.pk}/cancel"),
        ("post", f"/c/{thread.pk}/runs/{run.pk}/retry"),
    ]:
        response = getattr(as_bob, method)(url, {"content": "x", "title": "x"} if method == "post" else None)
        assert response.status_code == 404, url
        assert b"Alice secret" not in response.content and b"my secret" not in response.content
    assert Thread.objects.filter(pk=thread.pk, title="Alice secret").exists()
    assert Run.objects.get(pk=run.pk).status == "queued"
    assert b"Not found" in as_bob.get(f"/c/{thread.pk}/").content


def _page_client(user) -> Client:
    """A browser's session: signed in, with CSRF checks on."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _token_from(client: Client, page_url: str) -> str:
    page = client.get(page_url).content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]


def test_the_page_sends_and_follows_a_turn_through_the_api_with_its_session(alice):
    """What app.js does: the run API with the session cookie and the page's CSRF token."""
    thread = thread_create(owner=alice)
    browser = _page_client(alice)
    token = _token_from(browser, f"/c/{thread.pk}/")
    url = f"/api/threads/{thread.pk}/messages"
    body = {"content": "Plan the trip to Lisbon in May"}
    assert browser.post(url, body, content_type="application/json").status_code == 403  # no token, no turn
    assert not Message.objects.filter(thread=thread).exists()

    sent = browser.post(url, body, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert sent.status_code == 202
    run_url, message = sent.json()["run"]["url"], sent.json()["message"]
    assert run_url == f"/api/runs/{sent.json()['run']['id']}" and message["sequence"] == 1
    # The message as the page shows it, with its "Correct" control, and the title it gave.
    update = browser.get(f"/c/{thread.pk}/update", {"after": 0, "through": 1}).content.decode()
    assert f'id="msg-{message["id"]}"' in update and f'action="/c/{thread.pk}/m/1/correct"' in update
    assert 'data-title="Plan the trip to Lisbon in May"' in update and "is thinking" in update

    run_execute(run_id=sent.json()["run"]["id"])
    state = browser.get(run_url).json()
    assert state["status"] == "completed" and "(offline model)" in state["reply"]["text"]
    update = browser.get(f"/c/{thread.pk}/update", {"after": 1}).content.decode()
    assert f'id="msg-{state["reply"]["id"]}"' in update and f'id="msg-{message["id"]}"' not in update
    assert "Tokens sent by this conversation" in update and 'data-status=""' in update


def test_the_page_stops_and_regenerates_through_the_api(alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="long question")
    browser = _page_client(alice)
    token = _token_from(browser, f"/c/{thread.pk}/")
    assert f'data-url="/api/runs/{run.pk}/cancel"' in browser.get(f"/c/{thread.pk}/").content.decode()
    assert browser.post(f"/api/runs/{run.pk}/cancel").status_code == 403
    stopped = browser.post(f"/api/runs/{run.pk}/cancel", HTTP_X_CSRFTOKEN=token)
    assert stopped.status_code == 200 and stopped.json()["status"] == "cancelled"
    page = browser.get(f"/c/{thread.pk}/").content.decode()
    assert "Regenerate" in page and f'data-url="/api/runs/{run.pk}/retry"' in page
    again = browser.post(f"/api/runs/{run.pk}/cancel", HTTP_X_CSRFTOKEN=token)
    assert again.status_code == 409 and "already ended" in again.json()["message"]
    regenerated = browser.post(f"/api/runs/{run.pk}/retry", HTTP_X_CSRFTOKEN=token)
    assert regenerated.status_code == 202 and regenerated.json()["status"] == "queued"


def test_the_page_has_no_run_api_of_its_own(as_alice, alice):
    _, run = turn_submit(user=alice, thread=thread_create(owner=alice), content="hello")
    for method, url in [
        ("get", f"/runs/{run.pk}"),
        ("get", f"/runs/{run.pk}/events"),
        ("post", f"/runs/{run.pk}/retry"),
        ("post", f"/runs/{run.pk}/cancel"),
    ]:
        assert getattr(as_alice, method)(url).status_code == 404, url
    js = b"".join(as_alice.get("/static/web/app.js").streaming_content).decode()
    assert "/api/runs/" in js and "run.url" in js


@pytest.mark.parametrize("params", [{}, {"after": "x"}, {"after": -1}, {"after": 0, "through": "y"}])
def test_a_bad_update_request_is_a_400(as_alice, alice, params):
    thread = thread_create(owner=alice)
    assert as_alice.get(f"/c/{thread.pk}/update", params).status_code == 400


def test_send_without_javascript_redirects_back(as_alice, alice):
    thread = thread_create(owner=alice)
    response = as_alice.post(f"/c/{thread.pk}/send", {"content": "hello"})
    assert response.status_code == 302 and response["Location"] == f"/c/{thread.pk}/"


@pytest.mark.parametrize(("content", "fragment"), [("   ", "Write something first"), ("x" * 32_001, "at most")])
def test_bad_message_is_a_form_error_and_nothing_is_stored(as_alice, alice, content, fragment):
    thread = thread_create(owner=alice)
    page = as_alice.post(f"/c/{thread.pk}/send", {"content": content})
    assert page.status_code == 400 and fragment in page.content.decode()
    assert not Message.objects.filter(thread=thread).exists()


def test_second_message_while_a_reply_is_pending_is_refused_with_the_reason(as_alice, alice):
    thread = thread_create(owner=alice)
    turn_submit(user=alice, thread=thread, content="first")
    url = f"/api/threads/{thread.pk}/messages"
    response = as_alice.post(url, {"content": "second"}, content_type="application/json")
    assert response.status_code == 409 and "still being written" in response.json()["message"]
    page = as_alice.post(f"/c/{thread.pk}/send", {"content": "second, again"})
    assert page.status_code == 409 and "second, again" in page.content.decode()  # the text stays in the form


def test_failed_run_shows_a_friendly_error_and_retry_starts_a_new_run(as_alice, alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="are you there?")
    Run.objects.filter(pk=run.pk).update(status="running")
    run_fail(run_id=str(run.pk), code="rate_limited", message="429 from provider")
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert "busy with too many requests" in page and "Try again" in page and "are you there?" in page
    assert "429 from provider" not in page
    update = as_alice.get(f"/c/{thread.pk}/update", {"after": 1}).content.decode()
    assert "busy with too many requests" in update and f'data-url="/api/runs/{run.pk}/retry"' in update

    retried = as_alice.post(f"/api/runs/{run.pk}/retry")
    assert retried.status_code == 202 and retried.json()["status"] == "queued"
    new = Run.objects.get(pk=retried.json()["id"])
    assert new.retry_of_id == run.pk and new.request_message_id == run.request_message_id


def test_a_stopped_reply_stays_on_the_page_marked_as_stopped(as_alice, alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="tell me a story")
    run_claim(run_id=run.pk)
    run_stream_append(run_id=run.pk, text="Once upon a **time**, a fox")
    run_cancel(run=run)
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    reply = re.search(r'<article class="msg msg-assistant msg-stopped" id="msg-\d+">(.*?)</article>', page, re.DOTALL)
    assert reply and "Once upon a <strong>time</strong>, a fox" in reply[1]
    assert "Stopped: the reply was not finished" in reply[1] and "Stopped by the user" not in page
    assert "Regenerate" in page


def test_stop_and_regenerate_without_javascript_are_form_posts_to_the_same_use_cases(alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="tell me a story")
    run_claim(run_id=run.pk)
    run_stream_append(run_id=run.pk, text="Once upon a time")
    browser = _page_client(alice)
    page = browser.get(f"/c/{thread.pk}/").content.decode()
    stop = f'action="/c/{thread.pk}/runs/{run.pk}/cancel"'
    assert stop in page and '<meta http-equiv="refresh"' in page  # refreshes itself while the reply is written
    assert "Once upon a time" in page  # the words so far, for a page without script
    assert browser.get(f"/c/{thread.pk}/runs/{run.pk}/cancel").status_code == 405
    assert browser.post(f"/c/{thread.pk}/runs/{run.pk}/cancel").status_code == 403  # no token, no stop
    token = _token_from(browser, f"/c/{thread.pk}/")

    stopped = browser.post(f"/c/{thread.pk}/runs/{run.pk}/cancel", {"csrfmiddlewaretoken": token})
    assert stopped.status_code == 302 and stopped["Location"] == f"/c/{thread.pk}/"
    reply = Message.objects.get(thread=thread, role="assistant")
    assert reply.text.startswith("Once upon a time") and Run.objects.get(pk=run.pk).status == "cancelled"
    page = browser.get(f"/c/{thread.pk}/").content.decode()
    assert "msg-stopped" in page and f'action="/c/{thread.pk}/runs/{run.pk}/retry"' in page
    assert '<meta http-equiv="refresh"' not in page
    again = browser.post(f"/c/{thread.pk}/runs/{run.pk}/cancel", {"csrfmiddlewaretoken": token}, follow=True)
    assert "This run has already ended (cancelled)." in again.content.decode()

    regenerated = browser.post(f"/c/{thread.pk}/runs/{run.pk}/retry", {"csrfmiddlewaretoken": token})
    assert regenerated.status_code == 302
    new = Run.objects.get(retry_of=run)
    assert new.status == "queued" and new.request_message_id == run.request_message_id
    assert f'action="/c/{thread.pk}/runs/{new.pk}/cancel"' in browser.get(f"/c/{thread.pk}/").content.decode()


def test_a_run_is_stopped_only_from_its_own_conversation(as_alice, alice):
    mine, other = thread_create(owner=alice), thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=mine, content="hello")
    assert as_alice.post(f"/c/{other.pk}/runs/{run.pk}/cancel").status_code == 404
    assert as_alice.post(f"/c/{other.pk}/runs/{run.pk}/retry").status_code == 404
    assert Run.objects.get(pk=run.pk).status == "queued"


def test_a_failed_run_is_tried_again_without_javascript(as_alice, alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="are you there?")
    Run.objects.filter(pk=run.pk).update(status="running")
    run_fail(run_id=str(run.pk), code="rate_limited", message="429 from provider")
    assert f'action="/c/{thread.pk}/runs/{run.pk}/retry"' in as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert as_alice.post(f"/c/{thread.pk}/runs/{run.pk}/retry").status_code == 302
    assert Run.objects.get(retry_of=run).status == "queued"


def test_interrupted_run_says_it_waits_for_approval(as_alice, alice):
    thread = thread_create(owner=alice)
    _, run = turn_submit(user=alice, thread=thread, content="give a discount of 900")
    Run.objects.filter(pk=run.pk).update(status="interrupted")
    assert "Waiting for approval" in as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert "Waiting for approval" in as_alice.get(f"/c/{thread.pk}/update", {"after": 1}).content.decode()
    # The person may withdraw the request meanwhile, with or without the page's script.
    assert f'action="/c/{thread.pk}/runs/{run.pk}/cancel"' in as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert as_alice.post(f"/c/{thread.pk}/runs/{run.pk}/cancel").status_code == 302
    assert Run.objects.get(pk=run.pk).status == "cancelled"


def test_rename_and_bad_rename(as_alice, alice):
    thread = thread_create(owner=alice, title="Old")
    assert as_alice.post(f"/c/{thread.pk}/rename", {"title": "  New name "}).status_code == 302
    thread.refresh_from_db()
    assert thread.title == "New name"
    response = as_alice.post(f"/c/{thread.pk}/rename", {"title": "   "}, follow=True)
    thread.refresh_from_db()
    assert thread.title == "New name" and "at least one character" in response.content.decode()


def test_delete_asks_first_then_deletes(as_alice, alice):
    thread = thread_create(owner=alice, title="To go")
    run_turn(alice, thread, "remember that my cat is called Miso")
    confirm = as_alice.get(f"/c/{thread.pk}/delete")
    assert confirm.status_code == 200 and "Delete for good" in confirm.content.decode()
    assert Thread.objects.filter(pk=thread.pk).exists()
    done = as_alice.post(f"/c/{thread.pk}/delete", {"next": "privacy"})
    assert done.status_code == 302 and done["Location"] == "/privacy/"
    assert not Thread.objects.filter(pk=thread.pk).exists()
    assert not alice.memories.exists()  # its only source went


def test_search_finds_my_messages_only(as_alice, as_bob, alice, bob):
    mine = thread_create(owner=alice, title="Trip")
    turn_submit(user=alice, thread=mine, content="the flight to Reykjavik leaves at 7")
    theirs = thread_create(owner=bob, title="Bob trip")
    turn_submit(user=bob, thread=theirs, content="my Reykjavik hotel is the Borg")
    page = as_alice.get("/search", {"q": "Reykjavik"}).content.decode()
    assert "flight to" in page and f"/c/{mine.pk}/#msg-" in page
    assert "Borg" not in page and "Bob trip" not in page
    assert "Nothing found" in as_alice.get("/search", {"q": "Zanzibar"}).content.decode()
    assert as_alice.get("/search", {"q": ""}).status_code == 400


def test_search_lists_what_people_wrote_never_tool_steps_and_has_a_floor(as_alice, alice):

    thread = thread_create(owner=alice, title="Locker")
    _exchange_with_tools(thread)
    for q in ["recall_facts", "query", "facts"]:
        page = as_alice.get("/search", {"q": q}).content.decode()
        assert "Nothing found" in page or ("[recall_facts]" not in page and "tool_use_id" not in page), q
    assert "Nothing found" in as_alice.get("/search", {"q": "recall_facts"}).content.decode()
    assert "Nothing found" in as_alice.get("/search", {"q": "xylophone"}).content.decode()
    assert "locker code is 4412" in as_alice.get("/search", {"q": "locker"}).content.decode()
    api = as_alice.get("/api/search", {"q": "recall_facts"}).json()
    assert api["results"] == []
    api = as_alice.get(f"/api/threads/{thread.pk}/search", {"q": "locker"}).json()
    assert api["results"]


def test_a_search_hit_opens_below_the_sticky_top_bar(client):
    css = b"".join(client.get("/static/web/app.css").streaming_content).decode()
    assert "position: sticky; top: 0" in css
    assert re.search(r"\.msg \{[^}]*scroll-margin-top: [1-9]", css)


def test_static_files_are_served(client):
    css = client.get("/static/web/app.css")
    assert css.status_code == 200
    js = client.get("/static/web/app.js")
    assert js.status_code == 200 and b"requestSubmit" in b"".join(js.streaming_content)


def test_api_admin_and_healthz_still_routed(as_alice):
    assert as_alice.get("/healthz").status_code in (200, 503)
    assert as_alice.get("/api/threads").status_code == 200
    assert as_alice.get("/admin/").status_code == 302
    assert as_alice.get("/api/nothing-here").json()["message"] == "Not found."


def test_automatic_title_is_cut_at_a_word_and_a_rename_wins(alice):
    long = thread_create(owner=alice)
    turn_submit(
        user=alice,
        thread=long,
        content="Please help me plan a   long\nweekend in the Dolomites with two kids and a dog",
    )
    long.refresh_from_db()
    assert long.title == "Please help me plan a long weekend in the Dolomites with…"
    named = thread_create(owner=alice, title="My own title")
    turn_submit(user=alice, thread=named, content="hello")
    named.refresh_from_db()
    assert named.title == "My own title"


def test_list_and_chat_pages_use_a_fixed_number_of_queries(as_alice, alice, django_assert_max_num_queries):

    for i in range(30):
        thread_create(owner=alice, title=f"chat {i}")
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": f"m{i}"}]}
            for i in range(60)
        ],
    )
    with django_assert_max_num_queries(8):
        assert as_alice.get("/").status_code == 200
    with django_assert_max_num_queries(10):
        assert as_alice.get(f"/c/{thread.pk}/").status_code == 200
    with django_assert_max_num_queries(10):
        assert as_alice.get(f"/c/{thread.pk}/update", {"after": 0}).status_code == 200


def test_a_reply_lists_the_earlier_messages_its_context_quoted(as_alice, alice, settings):

    settings.MEMORY_WINDOW = 6
    thread = thread_create(owner=alice)
    messages_append(
        thread=thread,
        items=[
            {"role": "user", "content": [text_block("My locker code at the gym is 4471.")]},
            {"role": "assistant", "content": [text_block("Noted.")]},
            *[
                {"role": "user" if i % 2 == 0 else "assistant", "content": [text_block(f"small talk {i}")]}
                for i in range(20)
            ],
        ],
    )
    first = Message.objects.get(thread=thread, sequence=1)
    _, run = turn_submit(user=alice, thread=thread, content="What is my locker code?")
    run_execute(run_id=str(run.pk))

    # The statement first; its neighbour ("Noted.") may come with it.
    update = as_alice.get(f"/c/{thread.pk}/update", {"after": 23}).content.decode()
    quoted = re.findall(r'<li><a href="#msg-(\d+)">#(\d+)</a> <span class="when">([^<]+)</span> “([^”]*)”</li>', update)
    assert quoted[0] == (str(first.pk), "1", first.created_at.date().isoformat(), first.text)
    page = as_alice.get(f"/c/{thread.pk}/").content.decode()
    assert f"used {len(quoted)} earlier message" in page and f'href="#msg-{first.pk}"' in page
    assert "“My locker code at the gym is 4471.”</li>" in page
    # A reply whose context quoted nothing lists nothing.
    thread2 = thread_create(owner=alice)
    run_turn(alice, thread2, "hello there")
    assert "earlier message" not in as_alice.get(f"/c/{thread2.pk}/").content.decode()
