"""Ask the offline model every question of a replayed chat again, on the context its run had.

    .venv/bin/python -m bench.productchat.reask w15 w16-01            # a writer's chats, or chat ids
    .venv/bin/python -m bench.productchat.reask w15 --misses          # and print the ones it misses
    .venv/bin/python -m bench.productchat.reask w15 --excerpts        # the thread's excerpts built again too

A replay (``python -m bench.productchat``) leaves each question's run in the
database with its context report: which summary version, memories, excerpts and window
went into the prompt. This rebuilds that prompt from those rows (the memories as they
are now, an excerpt longer than the search's snippet cut as the search cuts it) and asks
the offline model of today's code, so a change to how the model answers is measured in
seconds instead of a replay of an hour. ``--excerpts`` also builds the thread's own excerpts
again with today's code (on the run's window and summary; the person's other conversations'
excerpts stay as the run had them, as those conversations went on after it), and says whether
the fact's newest statement reached the context then and now. What the model stores, and so what later
contexts hold, needs a full replay. Use the same ``DATABASE_URL`` as the replay.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from django.conf import settings

from agents.context_report import ContextReport, context_report_read
from agents.models import Run
from bench.productchat.data import load_split
from bench.productchat.replay import USER_PREFIX
from bench.productchat.score import context_source, holds, statements_before
from conversations.models import Message, MessageRole, Thread, ThreadSummary
from conversations.search import _excerpt
from liamemory.search_terms import query_terms
from memories.models import Memory
from usecases.turn import tools as agent_tools
from usecases.turn.context import Excerpt, _system_blocks, relevant_excerpts, rows_to_api_messages
from usecases.turn.offline import OfflineModel
from usecases.turn.registry import get_agent
from usecases.turn.window import cut_to_whole_turns


def rebuild(
    run: Any, *, fresh_excerpts: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The system blocks, messages and tools the run's first model call saw (from its context report);
    ``fresh_excerpts``: the thread's own excerpts as today's code chooses them (``excerpts_now``)."""

    report = context_report_read(run.context_report) or ContextReport()
    agent = get_agent(run.agent)
    summary = None
    if report.summary_version:
        summary = ThreadSummary.objects.filter(thread_id=run.thread_id, version=report.summary_version).first()
    found = {m.pk: m for m in Memory.objects.filter(pk__in=report.memory_ids)}
    memories = [found[i] for i in report.memory_ids if i in found]
    rows = {m.pk: m for m in Message.objects.filter(pk__in=[e.message_id for e in report.excerpts])}
    titles = dict(Thread.objects.filter(pk__in={r.thread_id for r in rows.values()}).values_list("pk", "title"))
    terms = query_terms(run.request_message.text)
    excerpts = [
        Excerpt(
            message_id=m.pk,
            sequence=m.sequence,
            role=m.role,
            created_at=m.created_at,
            text=" ".join(_excerpt(m.text, terms).split()),
            tokens=0,
            thread_id=m.thread_id if e.thread_id else None,
            thread_title=titles.get(m.thread_id) or "",
        )
        for e in report.excerpts
        if (m := rows.get(e.message_id))
    ]
    if fresh_excerpts:
        excerpts = excerpts_now(run, report, summary, excerpts)
    window = list(
        Message.objects.filter(
            thread_id=run.thread_id,
            sequence__gte=report.window_first_sequence or 0,
            sequence__lte=report.window_last_sequence or run.request_message.sequence,
        ).order_by("sequence")
    )
    messages = cut_to_whole_turns(rows_to_api_messages(window))
    tools = agent_tools.definitions(agent.tools, kinds=agent.memory_kinds)
    return _system_blocks(agent, summary, memories, excerpts), messages, tools


def excerpts_now(run: Any, report: ContextReport, summary: Any, recorded: list[Excerpt]) -> list[Excerpt]:
    """The thread's own excerpts for the run's request as today's code chooses them; the other
    conversations' ones as recorded, where today's code would look there (no excerpt of its own)."""

    own = relevant_excerpts(
        thread=run.thread,
        query=run.request_message.text,
        before_sequence=report.window_first_sequence or run.request_message.sequence,
        summary_text=summary.text if summary else "",
        budget=settings.MEMORY_EXCERPT_TOKENS,
    )
    return own or [e for e in recorded if e.thread_id is not None]


def ask(run: Any, *, fresh_excerpts: bool = False) -> str:
    """The offline model's reply to the run's request on its rebuilt context (a stored fact is taken as stored)."""

    system, messages, tools = rebuild(run, fresh_excerpts=fresh_excerpts)
    model = OfflineModel()
    for _step in range(4):
        reply = model.complete(system=system, messages=messages, tools=tools, max_tokens=1024)
        calls = [b for b in reply.content if b["type"] == "tool_use"]
        if not calls:
            return "".join(b.get("text", "") for b in reply.content if b["type"] == "text")
        results = []
        for call in calls:
            if call["name"] == "remember_fact":
                result = {"ok": True, "status": "active", "content": call["input"]["content"], "memory_id": 0}
            else:  # a search or a recall: what the replay's run got is not kept; say so
                return f"[tool {call['name']}]"
            results.append({"type": "tool_result", "tool_use_id": call["id"], "content": json.dumps(result)})
        messages = [*messages, {"role": "assistant", "content": reply.content}, {"role": "user", "content": results}]
    return ""


def _turn_messages(chat: Any) -> dict[int, Any]:
    """Each turn of ``chat`` and the person's message of it, as the replay left them in the database."""

    owner = f"{USER_PREFIX}{chat.id}"
    main = list(
        Message.objects.filter(thread__owner__username=owner, thread__title=chat.id, role=MessageRole.USER)
        .exclude(text="")
        .order_by("sequence")
    )
    turns = [t for t in chat.turns if not (t.kind == "question" and t.new_thread)]
    out: dict[int, Any] = {turn.index: message for turn, message in zip(turns, main, strict=False)}
    for q in chat.questions:
        if q.new_thread:
            out[q.index] = (
                Message.objects.filter(
                    thread__owner__username=owner, thread__title=f"{chat.id} new {q.index}", role=MessageRole.USER
                )
                .order_by("sequence")
                .first()
            )
    return out


def _reached(run: Any, target: Any, value: str, *, fresh: bool) -> bool:
    """Whether the context (as recorded, or with today's excerpts: ``fresh``) held ``target``, as the score reads it."""

    report = context_report_read(run.context_report) or ContextReport()
    summary = None
    if report.summary_version:
        summary = ThreadSummary.objects.filter(thread_id=run.thread_id, version=report.summary_version).first()
    # Each quoted message and whether it is of another conversation.
    excerpts = [(e.message_id, e.thread_id is not None) for e in report.excerpts]
    if fresh:
        rows = {m.pk: m for m in Message.objects.filter(pk__in=[e.message_id for e in report.excerpts])}
        recorded = [
            Excerpt(m.pk, m.sequence, m.role, m.created_at, "", 0, thread_id=m.thread_id if e.thread_id else None)
            for e in report.excerpts
            if (m := rows.get(e.message_id))
        ]
        excerpts = [(e.message_id, e.thread_id is not None) for e in excerpts_now(run, report, summary, recorded)]
    memories = Memory.objects.filter(pk__in=report.memory_ids)
    context = {
        "window": [report.window_first_sequence or 0, report.window_last_sequence or -1],
        "summary": summary.text if summary else "",
        "message_ids": {
            "excerpts": [i for i, other in excerpts if not other],
            "other_threads": [i for i, other in excerpts if other],
        },
        "memories": [{"content": m.content, "source_message_id": m.source_message_id} for m in memories],
    }
    here = "main" if target.thread_id == run.thread_id else "other"
    found = {"message_id": target.pk, "sequence": target.sequence, "thread": "main", "text": target.text}
    return bool(context_source(context, question_thread=here, target=found, value=value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chats", nargs="+", help="chat ids, or a writer (w15) for all of theirs")
    parser.add_argument(
        "--misses", action="store_true", help="print each question the reply misses or answers with an older value too"
    )
    parser.add_argument(
        "--excerpts", action="store_true", help="build the thread's own excerpts again with today's code"
    )
    args = parser.parse_args(argv)

    chats = [c for split in ("dev",) for c in load_split(split) if c.id in args.chats or c.writer in args.chats]
    # Per writer and thread (same / new): questions, replies right now, the replay's, with an older
    # value, reached as recorded, reached now.
    totals: dict[tuple[str, str], list[int]] = {}
    for chat in chats:
        said_in = _turn_messages(chat)
        for q in chat.questions:
            message = said_in.get(q.index)
            run = Run.objects.filter(request_message=message).order_by("created_at").first() if message else None
            if message is None or run is None or not run.context_report:
                continue
            reply = ask(run, fresh_excerpts=args.excerpts)
            replayed = Run.objects.filter(thread_id=run.thread_id, request_message=message)
            was_text = "".join(m.text for m in message.thread.messages.filter(run__in=replayed, role="assistant"))
            said = statements_before(chat, q.index)[q.fact_id]
            ok = any(holds(reply, e) for e in q.expected)
            was = any(holds(was_text, e) for e in q.expected)
            old = [s.value for s in said[:-1] if not any(holds(n, s.value) or holds(s.value, n) for n in q.expected)]
            key = "new" if q.new_thread else "same"
            older = any(holds(reply, v) for v in old)
            target = said_in.get(said[-1].index)
            reached = [
                bool(target) and _reached(run, target, said[-1].value, fresh=fresh) for fresh in (False, args.excerpts)
            ]
            row = totals.setdefault((chat.writer, key), [0] * 6)
            for i, x in enumerate((1, ok, was, older, *reached)):
                row[i] += int(x)
            if args.misses and (not ok or older or not reached[1]):
                replayed_ok = "ok" if was else "miss"
                verdict = ("right" if ok else "miss") + (", an older value" if older else "")
                verdict += "" if reached[1] else ", not reached"
                print(f"--- {chat.id} #{q.index} {key} {verdict}: expected {q.expected} old {old}", end="")
                print(f" (replay {replayed_ok})")
                print(f"  Q: {q.text}")
                for s in said:
                    print(f"  said #{s.index} ({s.kind}): {s.text}")
                print(f"  A: {reply[:400]}")
    print("writer thread: reached (as recorded -> now) · reply holds the value (the replay's -> now) · an older value")
    for (writer, key), (n, now, then, with_older, reached_then, reached_now) in sorted(
        totals.items(), key=lambda x: (int(x[0][0].lstrip("w") or 0), x[0][1] != "same")
    ):
        print(
            f"{writer} {key}: reached {reached_then} -> {reached_now}/{n}"
            f" · reply {then} -> {now}/{n} · old {with_older}"
        )
    for key in ("same", "new"):
        n, now, then, with_older, reached_then, reached_now = (
            sum(v[i] for (_, k), v in totals.items() if k == key) for i in range(6)
        )
        print(f"all {key}: reached {reached_then} -> {reached_now}/{n} · reply {then} -> {now}/{n} · old {with_older}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
