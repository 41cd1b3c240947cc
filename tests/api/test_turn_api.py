"""The turn API end to end: post → 202 → a real worker completes the run → reply + traces."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import serializers
from rest_framework.test import APIClient

from agents.models import Run, TraceEvent
from agents.run_lifecycle import run_claim, run_stream_append
from api.turn_serializers import MessageOutSerializer, RunOutSerializer, RunRefSerializer, TurnOutSerializer
from conversations.models import Message
from conversations.services import message_correct, thread_create
from memories.models import Memory
from tests.usecases.turn.helpers import run_turn
from tests.utils import wait_for
from usecases.turn.context import build_context
from usecases.turn.registry import get_agent
from usecases.turn.runner import run_execute
from usecases.turn.tasks import execute_run, reap_stale_runs
from usecases.turns import turn_submit


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _finished(client, run_url):
    body = client.get(run_url).json()
    return body if body["status"] not in ("queued", "running") else None


@pytest.mark.worker
def test_post_message_gets_offline_reply_from_worker(worker, alice):
    client = api(alice)
    thread = client.post("/api/threads", {"agent": "assistant"}, format="json").json()
    response = client.post(f"/api/threads/{thread['id']}/messages", {"content": "hello, who are you?"}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert body["message"]["text"] == "hello, who are you?" and body["message"]["sequence"] == 1
    assert body["run"]["status"] == "queued"

    done = wait_for(lambda: _finished(client, body["run"]["url"]), what="the run to finish")
    assert done["status"] == "completed", done
    assert done["reply"]["text"].startswith("(offline model)")
    assert done["reply"]["agent"] == "assistant" and done["model"] == "offline"
    kinds = set(TraceEvent.objects.filter(run_id=done["id"]).values_list("kind", flat=True))
    assert {"retrieval", "context", "model_call"} <= kinds
    history = client.get(f"/api/threads/{thread['id']}/messages").json()["results"]
    assert [m["role"] for m in history] == ["user", "assistant"]


@pytest.mark.worker
def test_two_deliveries_of_one_run_write_one_reply(worker, alice):
    thread = thread_create(owner=alice)
    response = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "hi"}, format="json")
    run_id = response.json()["run"]["id"]
    execute_run.delay(run_id)  # a redelivery on top of the on-commit enqueue
    wait_for(lambda: Run.objects.get(pk=run_id).status == "completed", what="the run")
    execute_run.delay(run_id)
    wait_for(lambda: worker.log().count(f"run {run_id} was not queued") >= 2, what="both extra deliveries")
    assert Message.objects.filter(thread=thread, role="assistant").count() == 1


@pytest.mark.worker
def test_run_left_running_by_a_dead_worker_is_reaped_and_completed(worker, alice, settings):
    thread = thread_create(owner=alice)

    # Simulate a worker that claimed the run and died: the row says running, long ago.
    _msg, run = turn_submit(user=alice, thread=thread, content="are you there?")
    Run.objects.filter(pk=run.pk).update(
        status="running", attempts=1, started_at=timezone.now() - settings.RUN_STALE_AFTER - timedelta(seconds=5)
    )
    reap_stale_runs.delay()
    wait_for(lambda: Run.objects.get(pk=run.pk).status == "completed", what="the reaped run to complete")
    run.refresh_from_db()
    assert run.attempts == 2
    assert Message.objects.filter(thread=thread, role="assistant").count() == 1


@pytest.mark.django_db
class TestBadInput:
    def _thread(self, user):
        return thread_create(owner=user)

    def _nothing_stored(self, thread):
        assert not Message.objects.filter(thread=thread).exists()
        assert not Run.objects.filter(thread=thread).exists()

    def test_empty_message(self, alice):
        thread = self._thread(alice)
        r = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "   "}, format="json")
        assert r.status_code == 400 and r.json()["message"] == "The message is empty."
        self._nothing_stored(thread)

    def test_missing_field(self, alice):
        thread = self._thread(alice)
        r = api(alice).post(f"/api/threads/{thread.id}/messages", {}, format="json")
        assert r.status_code == 400 and "content" in r.json()["message"]
        self._nothing_stored(thread)

    def test_too_long(self, alice, settings):
        thread = self._thread(alice)
        r = api(alice).post(
            f"/api/threads/{thread.id}/messages", {"content": "x" * (settings.MESSAGE_MAX_CHARS + 1)}, format="json"
        )
        assert r.status_code == 400 and "too long" in r.json()["message"]
        self._nothing_stored(thread)

    def test_invalid_json(self, alice):
        thread = self._thread(alice)
        r = api(alice).post(f"/api/threads/{thread.id}/messages", "{not json", content_type="application/json")
        assert r.status_code == 400 and "JSON" in r.json()["message"]
        self._nothing_stored(thread)

    def test_other_users_thread_is_404_like_missing(self, alice, bob):
        thread = self._thread(alice)
        mine = api(bob).post(f"/api/threads/{thread.id}/messages", {"content": "hi"}, format="json")
        missing = api(bob).post(
            "/api/threads/00000000-0000-4000-8000-000000000000/messages", {"content": "hi"}, format="json"
        )
        assert mine.status_code == missing.status_code == 404
        assert mine.json() == missing.json()
        assert api(bob).get(f"/api/threads/{thread.id}/messages").status_code == 404
        self._nothing_stored(thread)

    def test_post_while_run_in_flight_is_409(self, alice):
        thread = self._thread(alice)
        first = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "one"}, format="json")
        assert first.status_code == 202
        second = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "two"}, format="json")
        assert second.status_code == 409 and "still being written" in second.json()["message"]
        assert Message.objects.filter(thread=thread).count() == 1

    def test_retry_of_completed_run_is_409(self, alice):

        thread = self._thread(alice)
        run = run_turn(alice, thread, "hello")
        assert run.status == "completed"
        r = api(alice).post(f"/api/runs/{run.id}/retry")
        assert r.status_code == 409 and "failed or cancelled" in r.json()["message"]
        assert Run.objects.filter(thread=thread).count() == 1

    def test_other_users_run_is_404(self, alice, bob):

        run = run_turn(alice, self._thread(alice), "hello")
        for path in (f"/api/runs/{run.id}", f"/api/runs/{run.id}/retry", f"/api/runs/{run.id}/cancel"):
            method = api(bob).get if path.endswith(str(run.id)) else api(bob).post
            assert method(path).status_code == 404
        run.refresh_from_db()
        assert run.status == "completed"

    def test_cancel_queued_run_then_worker_does_nothing(self, alice):

        thread = self._thread(alice)
        body = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "hello"}, format="json").json()
        r = api(alice).post(f"/api/runs/{body['run']['id']}/cancel")
        assert r.status_code == 200 and r.json()["status"] == "cancelled"
        run_execute(run_id=body["run"]["id"])
        assert not Message.objects.filter(thread=thread, role="assistant").exists()
        assert json.loads(json.dumps(r.json()))["error"] is None


@pytest.mark.django_db
def test_stop_keeps_the_words_already_written_and_the_next_turn_reads_them_marked(alice, bob):

    thread = thread_create(owner=alice)
    body = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "tell me a story"}, format="json").json()
    run_id = body["run"]["id"]
    assert run_claim(run_id=run_id)
    assert run_stream_append(run_id=run_id, text="Once upon a time, a fox ")
    assert api(bob).post(f"/api/runs/{run_id}/cancel").status_code == 404

    stopped = api(alice).post(f"/api/runs/{run_id}/cancel")

    assert stopped.status_code == 200 and stopped.json()["status"] == "cancelled"
    reply = stopped.json()["reply"]
    assert reply["stopped"] is True and reply["text"].startswith("Once upon a time, a fox")
    assert api(alice).get(f"/api/runs/{run_id}").json()["reply"]["id"] == reply["id"]
    assert not run_stream_append(run_id=run_id, text="who")  # the worker, still writing, adds nothing
    assert Run.objects.get(pk=run_id).partial_text == ""
    listed = api(alice).get(f"/api/threads/{thread.id}/messages").json()["results"]
    assert [(m["role"], m["stopped"]) for m in listed] == [("user", False), ("assistant", True)]

    message, _ = turn_submit(user=alice, thread=thread, content="go on")
    context = build_context(thread=thread, agent=get_agent(thread.agent), user=alice, request_message=message)
    told = json.dumps(context.messages)
    assert "Once upon a time, a fox" in told and "Stopped by the user before the reply was finished" in told


@pytest.mark.django_db
def test_stopping_before_any_word_stores_no_reply(alice):
    thread = thread_create(owner=alice)
    body = api(alice).post(f"/api/threads/{thread.id}/messages", {"content": "hello"}, format="json").json()
    stopped = api(alice).post(f"/api/runs/{body['run']['id']}/cancel").json()
    assert stopped["status"] == "cancelled" and stopped["reply"] is None
    assert list(Message.objects.filter(thread=thread).values_list("role", flat=True)) == ["user"]


@pytest.mark.django_db
def test_non_uuid_ids_answer_json_404(alice):
    for path in ("/api/threads/123/messages", "/api/runs/not-a-uuid", "/api/threads/zzz"):
        r = api(alice).get(path)
        assert r.status_code == 404 and r.json()["message"] == "Not found."


@pytest.mark.django_db
def test_unknown_agent_is_refused(alice):
    r = api(alice).post("/api/threads", {"agent": "wizard"}, format="json")
    assert r.status_code == 400 and "agent" in r.json()["message"]


@pytest.mark.worker
def test_worker_logs_never_contain_message_or_memory_text(worker, alice):
    canary = "zebracanary-91734"
    thread = thread_create(owner=alice)
    client = api(alice)
    body = client.post(
        f"/api/threads/{thread.id}/messages", {"content": f"remember that my locker code is {canary}"}, format="json"
    ).json()
    wait_for(lambda: _finished(client, body["run"]["url"]), what="the run to finish")
    assert canary in client.get(body["run"]["url"]).json()["reply"]["text"]
    assert "agents.execute_run" in worker.log()  # the log speaks of the task, by id only
    assert canary not in worker.log()


@pytest.mark.django_db
def test_owner_deletes_a_thread_and_the_memories_drawn_only_from_it(alice, bob):

    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my order is A-7781")
    assert Memory.objects.filter(user=alice).count() == 1
    assert api(bob).delete(f"/api/threads/{thread.id}").status_code == 404
    assert api(alice).delete(f"/api/threads/{thread.id}").status_code == 204
    assert not Message.objects.filter(thread_id=thread.id).exists()
    assert not Memory.objects.filter(user=alice).exists()
    assert api(alice).get(f"/api/threads/{thread.id}").status_code == 404


@pytest.mark.django_db
def test_api_docs_load_no_outside_asset(alice, client):
    client.force_login(alice)
    page = client.get("/api/docs/").content.decode()
    assert "cdn" not in page.lower() and "/static/drf_spectacular_sidecar/" in page
    assert client.get("/api/schema/").status_code == 200


@pytest.mark.django_db
def test_polling_an_unchanged_run_answers_304_with_its_etag(alice, client):

    client.force_login(alice)
    thread = thread_create(owner=alice)
    _message, run = turn_submit(user=alice, thread=thread, content="hello")
    first = client.get(f"/api/runs/{run.pk}")
    etag = first["ETag"]
    assert first.status_code == 200 and etag
    again = client.get(f"/api/runs/{run.pk}", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag and not again.content
    run_claim(run_id=str(run.pk))
    run_stream_append(run_id=str(run.pk), text="Hel")
    moved = client.get(f"/api/runs/{run.pk}", HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved.json()["status"] == "running" and moved["ETag"] != etag


def _final_event(client: APIClient, run_id: str) -> dict:
    response = client.get(f"/api/runs/{run_id}/events", HTTP_ACCEPT="text/event-stream")
    blocks = b"".join(response.streaming_content).decode().split("\n\n")
    (final,) = [b for b in blocks if b.startswith("id: ") and "event: run" in b]
    return json.loads(final.split("data: ", 1)[1])


@pytest.mark.django_db
def test_a_turn_posts_and_ends_its_stream_in_fewer_round_trips_and_a_corrected_reply_still_says_so(
    alice, django_assert_num_queries
):
    """Issue #25: the message a turn has just written needs no query to say nothing corrects it,
    and the stream's last event reads the reply with its ``corrected`` flag in one query."""
    client = api(alice)
    thread = thread_create(owner=alice)
    # The thread, no run waiting, then the write (a savepoint here, a transaction when served):
    # the thread locked, the message, the thread's counters and title, the run, its first transition.
    with django_assert_num_queries(10):
        body = client.post(f"/api/threads/{thread.id}/messages", {"content": "hello"}, format="json").json()
    assert body["message"]["corrected"] is False and body["message"]["text"] == "hello"
    run_execute(run_id=body["run"]["id"])
    # The run, its state and new text, the run again with the reply and whether a note corrects it.
    with django_assert_num_queries(4):
        final = _final_event(client, body["run"]["id"])
    assert final["status"] == "completed" and final["reply"]["corrected"] is False

    message_correct(message=Message.objects.get(pk=final["reply"]["id"]), right_value="hi")
    assert _final_event(client, body["run"]["id"])["reply"]["corrected"] is True
    assert client.get(f"/api/runs/{body['run']['id']}").json()["reply"]["corrected"] is True


@pytest.mark.django_db
def test_the_answers_written_by_hand_are_what_their_declared_fields_render(alice):
    """The message and run answers (``api.turn_serializers.message_out``, ``run_out``) have
    exactly the schema's fields, each stored value rendered as DRF's field renders it."""
    client = api(alice)
    thread = thread_create(owner=alice)
    body = client.post(f"/api/threads/{thread.id}/messages", {"content": "hello"}, format="json").json()
    run_execute(run_id=body["run"]["id"])
    reply = Message.objects.get(thread=thread, role="assistant")
    note = message_correct(message=reply, right_value="hi")
    run = Run.objects.get(pk=body["run"]["id"])

    def stored_values_as_drf_renders_them(serializer, instance, answer):
        assert list(answer) == list(serializer.fields)
        for name, field in serializer.fields.items():
            if isinstance(field, serializers.SerializerMethodField):
                continue
            value = field.get_attribute(instance)
            assert answer[name] == (None if value is None else field.to_representation(value)), name

    for message in (Message.objects.get(pk=body["message"]["id"]), reply, note):
        answer = MessageOutSerializer(message).data
        stored_values_as_drf_renders_them(MessageOutSerializer(), message, answer)
    assert MessageOutSerializer(note).data["correction"]["right_value"] == "hi"
    assert MessageOutSerializer(reply).data["corrected"] is True
    answer = RunOutSerializer(run, context={"reply": reply}).data
    stored_values_as_drf_renders_them(RunOutSerializer(), run, answer)
    assert answer["reply"]["id"] == reply.id and answer["url"] == f"/api/runs/{run.id}"
    stored_values_as_drf_renders_them(RunRefSerializer(), run, RunRefSerializer(run).data)
    turn = TurnOutSerializer({"message": reply, "run": run}).data
    assert list(turn) == ["message", "run"] and turn["run"] == RunRefSerializer(run).data
