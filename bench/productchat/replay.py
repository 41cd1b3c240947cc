"""Replay a chat through the running product (HTTP API, real turn worker, offline model).

One person per chat (user ``bench-productchat-<chat id>``, reset before the chat). Each
turn is posted to the chat's thread and followed on its event stream to the end, as a
client does; a question marked ``new_thread`` is asked in a brand-new thread of the
same person, and the chat then goes on in its own thread. Between turns the replay
waits for the background queues (embeddings, summary) to empty, as a person's typing
time would let them. What each run's context held is read from the run's
context report (``Run.context_report``) and the rows it names, in the database the stack uses.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from agents.checkpointer import delete_checkpoints
from agents.context_report import ContextReport, context_report_read
from agents.models import Run
from bench.productchat.data import Chat
from conversations.models import Message, Thread, ThreadSummary
from memories.models import Memory

USER_PREFIX = "bench-productchat-"
RUN_TIMEOUT = 120.0
SETTLE_TIMEOUT = 30.0
TERMINAL = {"completed", "failed", "cancelled", "interrupted"}


def person(chat: Chat) -> str:
    """A fresh person for ``chat`` (earlier runs' threads and memories removed); their API token."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user, _ = get_user_model().objects.get_or_create(username=f"{USER_PREFIX}{chat.id}")
    delete_checkpoints([str(t) for t in user.threads.values_list("id", flat=True)])
    user.threads.all().delete()
    Memory.objects.filter(user=user).delete()
    return Token.objects.get_or_create(user=user)[0].key


class Settler:
    """Waits until the broker's background queues are empty and nothing is left unacknowledged."""

    def __init__(self, broker_url: str) -> None:
        import redis

        self.redis = redis.Redis.from_url(broker_url)

    def pending(self) -> int:
        n = 0
        for key in self.redis.scan_iter(match="*"):
            name = key.decode(errors="replace")
            if name.startswith(("celery", "embeddings", "turns")) and self.redis.type(key) == b"list":
                n += self.redis.llen(key)
        return n + self.redis.hlen("unacked")

    def wait(self, timeout: float = SETTLE_TIMEOUT) -> bool:
        deadline = time.monotonic() + timeout
        quiet = 0
        while time.monotonic() < deadline:
            quiet = quiet + 1 if self.pending() == 0 else 0
            if quiet >= 3:
                return True
            time.sleep(0.1)
        return False


def _follow(http: httpx.Client, run_id: str) -> str:
    """The run's status once it has ended (its event stream, as the chat page follows it)."""
    status = "error"
    try:
        with http.stream(
            "GET", f"/api/runs/{run_id}/events", headers={"Accept": "text/event-stream"}, timeout=RUN_TIMEOUT
        ) as response:
            response.raise_for_status()
            event = ""
            for line in response.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "run":
                    status = json.loads(line[6:])["status"]
                    if status in TERMINAL:
                        break
                elif line.startswith("data: ") and event == "gone":
                    break
    except httpx.HTTPError:
        pass
    if status not in TERMINAL:  # the stream ended early: poll to the end
        deadline = time.monotonic() + RUN_TIMEOUT
        while time.monotonic() < deadline:
            status = http.get(f"/api/runs/{run_id}").raise_for_status().json()["status"]
            if status in TERMINAL:
                break
            time.sleep(0.2)
    return status


def _quoted_ids(run) -> dict[str, list[int]]:
    """The messages the run's context quoted: ``excerpts`` of its thread, ``other_threads``
    for those of the person's other conversations."""

    report = context_report_read(run.context_report)
    out: dict[str, list[int]] = {}
    for e in report.excerpts if report else ():
        out.setdefault("other_threads" if e.thread_id else "excerpts", []).append(e.message_id)
    return out


def _context(run) -> dict[str, Any]:
    """What a question's run had in its context: window range, summary, quoted messages, memories."""

    info = context_report_read(run.context_report) or ContextReport()
    summary = ""
    if info.summary_version:
        summary = (
            ThreadSummary.objects.filter(thread_id=run.thread_id, version=info.summary_version)
            .values_list("text", flat=True)
            .first()
            or ""
        )
    memories = [
        {"id": m.pk, "content": m.content, "source_message_id": m.source_message_id}
        for m in Memory.objects.filter(pk__in=info.memory_ids)
    ]
    return {
        "window": [
            info.window_first_sequence or 0,
            -1 if info.window_last_sequence is None else info.window_last_sequence,
        ],
        "dropped_for_budget": info.dropped_for_budget,
        "summary": summary,
        "message_ids": _quoted_ids(run),
        "memories": memories,
    }


def _rows(run, turn_index: int, kind_of: dict[int, str]) -> list[dict[str, Any]]:
    """The excerpt rows this run's context quoted (what the chat shows under its reply)."""

    rows = []
    for key, ids in _quoted_ids(run).items():
        found = {m.pk: m for m in Message.objects.filter(pk__in=ids)}
        for message_id in ids:
            m = found.get(message_id)
            if m is None:
                continue
            blocks = m.content if isinstance(m.content, list) else []
            reply_to = None
            if m.role == "assistant" and m.run_id:
                reply_to = Run.objects.filter(pk=m.run_id).values_list("request_message__text", flat=True).first() or ""
            rows.append(
                {
                    "turn": turn_index,
                    "key": key,
                    "message_id": m.pk,
                    "role": m.role,
                    "text": m.text,
                    "tool": any(isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in blocks),
                    "reply_to": reply_to,
                    "turn_kind": kind_of.get(m.pk),
                }
            )
    return rows


def replay_chat(base_url: str, chat: Chat, settler: Settler) -> dict[str, Any]:
    """Post every turn of ``chat`` as its person would; the record ``bench.productchat.score`` reads."""

    token = person(chat)
    http = httpx.Client(base_url=base_url, headers={"Authorization": f"Token {token}"}, timeout=30)
    try:
        main = http.post("/api/threads", json={"title": chat.id}).raise_for_status().json()["id"]
        turns: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        kind_of: dict[int, str] = {}
        for turn in chat.turns:
            label, thread = "main", main
            if turn.kind == "question" and turn.new_thread:
                label = f"new-{turn.index}"
                thread = (
                    http.post("/api/threads", json={"title": f"{chat.id} new {turn.index}"})
                    .raise_for_status()
                    .json()["id"]
                )
            for _ in range(50):
                answer = http.post(f"/api/threads/{thread}/messages", json={"content": turn.text})
                if answer.status_code != 409:  # the thread's previous run still going
                    break
                time.sleep(0.5)
            answer.raise_for_status()
            body = answer.json()
            message, run_id = body["message"], body["run"]["id"]
            kind_of[message["id"]] = turn.kind
            status = _follow(http, run_id)
            detail = http.get(f"/api/runs/{run_id}").raise_for_status().json()
            rec: dict[str, Any] = {
                "index": turn.index,
                "thread": label,
                "message_id": message["id"],
                "sequence": message["sequence"],
                "status": detail["status"] if detail["status"] in TERMINAL else status,
                "reply": (detail.get("reply") or {}).get("text") or "",
            }
            run = Run.objects.get(pk=run_id)
            if turn.kind == "question":
                rec["context"] = _context(run)
            rows.extend(_rows(run, turn.index, kind_of))
            turns.append(rec)
            settler.wait()
        settler.wait()
        user_threads = Thread.objects.filter(owner__username=f"{USER_PREFIX}{chat.id}")
        memories = [
            {"id": m.pk, "content": m.content, "status": m.status, "source_message_id": m.source_message_id}
            for m in Memory.objects.filter(user__username=f"{USER_PREFIX}{chat.id}").order_by("pk")
        ]
        return {
            "chat": chat.id,
            "lang": chat.lang,
            "turns": turns,
            "excerpt_rows": rows,
            "memories": memories,
            "tokens": {
                "sent": sum(t.tokens_sent for t in user_threads),
                "full": sum(t.tokens_full_resend for t in user_threads),
            },
        }
    finally:
        http.close()
