"""Scoring of replayed chats: plain functions over plain records (no database, no stack).

The replay (``bench.productchat.replay``) turns each chat into a record of what the
product did; everything here reads only that record and the chat's labels, so the
scorer is tested on hand-made records (``tests/bench/test_productchat.py``).

A chat record::

    {"chat": "w4-01", "lang": "en",
     "turns": [{"index": 0, "thread": "main" | "new-<index>", "message_id": 17, "sequence": 1,
                "status": "completed", "reply": "…",
                # question turns only: what the run's context held
                "context": {"window": [first_seq, last_seq], "summary": "…",
                            "message_ids": {"excerpts": [..], <any other key quoting messages>: [..]},
                            "memories": [{"id", "content", "source_message_id"}]}}, …],
     "excerpt_rows": [{"turn": 12, "key": "excerpts", "message_id": 40, "role": "assistant",
                       "text": "…", "tool": false, "reply_to": "the user message it answered",
                       "turn_kind": "question" | None}, …],
     "memories": [{"id", "content", "status", "source_message_id"}],   # at the end of the chat
     "tokens": {"sent": 1234, "full": 5678}}
"""

from __future__ import annotations

import re
from typing import Any

from bench.productchat.data import STATEMENTS, Chat, Turn

_WORD = re.compile(r"[^\W\d_]{4,}", re.UNICODE)
# Words too common to say that two texts are about the same thing (English, Italian).
_STOP_WORDS = """
    that this with have from your what about just they their them then than there were been when will would
    could should which while also into only some very much more most like really know think want need here
    dont didnt cant okay yeah sure thanks thank well still even because going after before again other
    questo questa quello quella della delle dello degli sono hanno come cosa dove quando anche ancora perché
    perche allora molto poco tutto tutti fare fatto essere avere però pero così cosi solo sempre nella nelle
    offline model
"""
_STOP = set(_STOP_WORDS.split())

# A reply that carries nothing: a refusal, "I don't know", nothing found (English, Italian).
_NOTHING = re.compile(
    r"\b(?:i\s+don'?t\s+(?:have|know)|i\s+do\s+not\s+(?:have|know)|i\s+couldn'?t\s+find|i\s+could\s+not\s+find"
    r"|i\s+have\s+nothing|i\s+can'?t\s+(?:help|answer|find)|no\s+information|not\s+sure"
    r"|non\s+(?:ho|trovo|so)\b|nessuna\s+informazione|non\s+lo\s+so)",
    re.I,
)
_TOOL_TEXT = re.compile(r"^\s*\[[a-z_]+\]\s*[{\[]|\"ok\"\s*:\s*(?:true|false)|\"memory_id\"\s*:", re.I | re.M)


def words(text: str) -> set[str]:
    """Content words (4+ letters, common ones left out), lower-cased."""
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text or "")) if w not in _STOP}


def holds(text: str, value: str) -> bool:
    return bool(value) and value.lower() in (text or "").lower()


# --- facts and their latest statement --------------------------------------------


def statements_before(chat: Chat, index: int) -> dict[str, list[Turn]]:
    """For every fact, its statements (fact, remember, corrections) before turn ``index``, in order."""
    out: dict[str, list[Turn]] = {}
    for turn in chat.turns[:index]:
        if turn.kind in STATEMENTS:
            out.setdefault(turn.fact_id, []).append(turn)
    return out


def summary_carries(summary: str, statement: str, value: str) -> bool:
    """Whether a line of the summary holds the statement's value and comes from it.

    The line must hold the value and share a content word with the statement besides
    the value's own words (a bare "Key facts: 9:15; B-9902" says nothing of what they are).
    """
    if not summary or not value:
        return False
    about = words(statement) - words(value)
    return any(holds(line, value) and bool(words(line) & about) for line in summary.splitlines())


def context_source(context: dict[str, Any], *, question_thread: str, target: dict[str, Any], value: str) -> str:
    """Where the run's context held the target statement: window, excerpt, summary, memory, other_thread or ''.

    ``other_thread``: quoted under any other key of the report (the replay files the
    excerpts of the person's other conversations there).
    """
    if not context:
        return ""
    message_id = target.get("message_id")
    if target.get("thread") == question_thread:
        first, last = (context.get("window") or [0, -1])[:2]
        if first <= (target.get("sequence") or -1) <= last:
            return "window"
    ids = context.get("message_ids") or {}
    if message_id in (ids.get("excerpts") or []):
        return "excerpt"
    if target.get("thread") == question_thread and summary_carries(
        context.get("summary") or "", target.get("text", ""), value
    ):
        return "summary"
    for memory in context.get("memories") or []:
        if memory.get("source_message_id") == message_id or holds(memory.get("content", ""), value):
            return "memory"
    for key, listed in ids.items():
        if key != "excerpts" and message_id in (listed or []):
            return "other_thread"
    return ""


def score_questions(chat: Chat, record: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per question: did the newest statement of its fact reach the context, did the reply hold it."""
    by_index = {t["index"]: t for t in record["turns"]}
    rows = []
    for q in chat.questions:
        said = statements_before(chat, q.index).get(q.fact_id, [])
        latest = said[-1]
        done = by_index.get(q.index, {})
        target_rec = by_index.get(latest.index, {})
        target = {**target_rec, "text": latest.text}
        source = context_source(
            done.get("context") or {}, question_thread=done.get("thread", "main"), target=target, value=latest.value
        )
        reply = done.get("reply") or ""
        correct = any(holds(reply, e) for e in q.expected)
        newest = [latest.value, *q.expected]
        old = [s.value for s in said[:-1] if not any(holds(n, s.value) or holds(s.value, n) for n in newest)]
        rows.append(
            {
                "chat": chat.id,
                "lang": chat.lang,
                "turn": q.index,
                "fact_id": q.fact_id,
                "new_thread": q.new_thread,
                "corrected": len(said) > 1,
                "turns_since": q.index - latest.index,
                "status": done.get("status", "missing"),
                "source": source,
                "reached": bool(source),
                "correct": correct,
                "old_value_in_reply": any(holds(reply, v) for v in old),
            }
        )
    return rows


# --- excerpt rows shown ------------------------------------------------------------


def classify_row(row: dict[str, Any]) -> str:
    """``tool`` (a tool call or result), ``nothing`` (a refusal, "I don't know", the question again) or ``content``."""
    text = row.get("text") or ""
    if row.get("tool") or row.get("role") == "tool" or _TOOL_TEXT.search(text):
        return "tool"
    if row.get("role") == "user":
        return "nothing" if row.get("turn_kind") == "question" else "content"
    if _NOTHING.search(text):
        return "nothing"
    own = words(text)
    if not own or (row.get("reply_to") is not None and own <= words(row["reply_to"])):
        return "nothing"
    return "content"


# --- memories ----------------------------------------------------------------------


def match_memories(chat: Chat, record: dict[str, Any]) -> list[dict[str, Any]]:
    """Each stored memory with the labelled turn it comes from (by its source message, else by a value it holds)."""
    turn_of = {t["message_id"]: t["index"] for t in record["turns"] if t.get("message_id")}
    statements = [t for t in chat.turns if t.kind in STATEMENTS]
    out = []
    for memory in record["memories"]:
        index = turn_of.get(memory.get("source_message_id"))
        turn = chat.turns[index] if index is not None else None
        if turn is None or turn.kind not in STATEMENTS:
            # The latest statement whose value the memory holds (a longer value first).
            holding = [t for t in statements if holds(memory.get("content", ""), t.value)]
            if holding:
                longest = max(len(t.value) for t in holding)
                turn = [t for t in holding if len(t.value) == longest][-1]
        out.append(
            {
                **memory,
                "turn": turn.index if turn else None,
                "kind": turn.kind if turn else None,
                "fact_id": turn.fact_id if turn else None,
                "labelled_store": bool(turn and turn.kind in STATEMENTS and turn.store),
                "holds_value": bool(turn and holds(memory.get("content", ""), turn.value)),
            }
        )
    return out


def score_memories(chat: Chat, record: dict[str, Any]) -> dict[str, Any]:
    """Stored memories against the turns labelled ``store``; older values of a changed fact left active."""
    matched = match_memories(chat, record)
    stored = [m for m in matched if m.get("status") != "rejected"]
    labelled = [t for t in chat.turns if t.kind in STATEMENTS and t.store]
    remembered = {m["turn"] for m in stored if m["labelled_store"]}
    final: dict[str, Turn] = {}
    for turn in chat.turns:
        if turn.kind in STATEMENTS:
            final[turn.fact_id] = turn
    stale = []
    for m in stored:
        if m.get("status") != "active" or m["fact_id"] is None or m["kind"] not in STATEMENTS:
            continue
        newest = final[m["fact_id"]]
        if m["turn"] != newest.index and not holds(m.get("content", ""), newest.value):
            stale.append(m)
    return {
        "stored": len(stored),
        "stored_true": sum(1 for m in stored if m["labelled_store"]),
        "stored_holding_value": sum(1 for m in stored if m["labelled_store"] and m["holds_value"]),
        "by_status": _count(m.get("status", "?") for m in stored),
        "labelled": len(labelled),
        "labelled_stored": sum(1 for t in labelled if t.index in remembered),
        "labelled_by_kind": {
            kind: [len(part), sum(1 for t in part if t.index in remembered)]
            for kind in sorted(STATEMENTS)
            for part in [[t for t in labelled if t.kind == kind]]
        },
        "stale_active": len(stale),
        "stale": [{"content": m.get("content", ""), "fact_id": m["fact_id"]} for m in stale],
        "false": [
            {"content": m.get("content", ""), "turn": m["turn"], "kind": m["kind"]}
            for m in stored
            if not m["labelled_store"]
        ],
    }


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


# --- one chat, one split ------------------------------------------------------------


ROW_USES = ("under_questions", "about_fact", "elsewhere", "repeats")


def row_uses(chat: Chat, record: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, int]:
    """Where the rows were shown and what they held beyond their class.

    ``under_questions``: rows shown under a question about a fact; ``about_fact``: of those,
    statements of the asked fact (any of its statements, or a row holding a value of
    it); ``elsewhere``: rows under any other turn; ``repeats``: a row whose words are all
    in another row of the same reply (a copy, or a reply quoting the other).
    """
    message_turn = {t["message_id"]: t["index"] for t in record["turns"] if t.get("message_id")}
    out = dict.fromkeys(ROW_USES, 0)
    by_turn: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_turn.setdefault(row["turn"], []).append(row)
    for index, shown in by_turn.items():
        turn = chat.turns[index]
        if turn.kind == "question":
            said = statements_before(chat, index).get(turn.fact_id, [])
            out["under_questions"] += len(shown)
            out["about_fact"] += sum(
                1
                for r in shown
                if any(message_turn.get(r["message_id"]) == s.index or holds(r["text"], s.value) for s in said)
            )
        else:
            out["elsewhere"] += len(shown)
        own = [words(r["text"]) for r in shown]
        out["repeats"] += sum(
            1
            for i, w in enumerate(own)
            if w and any(j != i and w <= other and (w != other or j < i) for j, other in enumerate(own))
        )
    return out


def score_chat(chat: Chat, record: dict[str, Any]) -> dict[str, Any]:
    rows = [{**r, "class": classify_row(r)} for r in record.get("excerpt_rows") or []]
    return {
        "chat": chat.id,
        "lang": chat.lang,
        "turns": len(chat.turns),
        "questions": score_questions(chat, record),
        "excerpt_rows": _count(r["class"] for r in rows),
        "excerpt_uses": row_uses(chat, record, rows),
        "excerpt_examples": {c: [r["text"][:120] for r in rows if r["class"] == c][:3] for c in ("tool", "nothing")},
        "memories": score_memories(chat, record),
        "tokens": dict(record.get("tokens") or {"sent": 0, "full": 0}),
        "failed_turns": sum(1 for t in record["turns"] if t.get("status") != "completed"),
    }


def _share(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def summarize(chats: list[dict[str, Any]]) -> dict[str, Any]:
    """The split's figures from its scored chats."""
    questions = [q for c in chats for q in c["questions"]]
    out: dict[str, Any] = {"chats": len(chats), "turns": sum(c["turns"] for c in chats)}
    for label, subset in (
        ("same_thread", [q for q in questions if not q["new_thread"]]),
        ("new_thread", [q for q in questions if q["new_thread"]]),
    ):
        out[label] = {
            "questions": len(subset),
            "reached": sum(q["reached"] for q in subset),
            "reached_share": _share(sum(q["reached"] for q in subset), len(subset)),
            "correct": sum(q["correct"] for q in subset),
            "correct_share": _share(sum(q["correct"] for q in subset), len(subset)),
            "old_value_in_reply": sum(q["old_value_in_reply"] for q in subset),
            "sources": _count(q["source"] or "none" for q in subset),
        }
    out["by_lang"] = {
        lang: {
            "questions": len(part),
            "reached": sum(q["reached"] for q in part),
            "correct": sum(q["correct"] for q in part),
        }
        for lang in sorted({q["lang"] for q in questions})
        for part in [[q for q in questions if q["lang"] == lang]]
    }
    rows: dict[str, int] = {}
    for c in chats:
        for k, v in c["excerpt_rows"].items():
            rows[k] = rows.get(k, 0) + v
    total = sum(rows.values())
    uses = {k: sum(c["excerpt_uses"][k] for c in chats) for k in ROW_USES}
    out["excerpt_rows"] = {
        "shown": total,
        "tool": rows.get("tool", 0),
        "nothing": rows.get("nothing", 0),
        "tool_share": _share(rows.get("tool", 0), total),
        "nothing_share": _share(rows.get("nothing", 0), total),
        **uses,
    }
    mem = [c["memories"] for c in chats]
    stored, true_ = sum(m["stored"] for m in mem), sum(m["stored_true"] for m in mem)
    labelled, recalled = sum(m["labelled"] for m in mem), sum(m["labelled_stored"] for m in mem)
    out["memories"] = {
        "stored": stored,
        "stored_labelled_store": true_,
        "precision": _share(true_, stored),
        "labelled": labelled,
        "labelled_stored": recalled,
        "recall": _share(recalled, labelled),
        "stale_active": sum(m["stale_active"] for m in mem),
        "labelled_by_kind": {
            kind: [sum(m["labelled_by_kind"][kind][i] for m in mem) for i in (0, 1)] for kind in sorted(STATEMENTS)
        },
    }
    sent, full = sum(c["tokens"]["sent"] for c in chats), sum(c["tokens"]["full"] for c in chats)
    out["tokens"] = {"sent": sent, "full_resend": full, "ratio": round(sent / full, 4) if full else None}
    out["failed_turns"] = sum(c["failed_turns"] for c in chats)
    return out
