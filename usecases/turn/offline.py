"""The offline model: deterministic, labelled, and driving the same graph and tools.

It is chosen for a run when no API key is configured. It understands plain requests
in English and Italian — remember this, what do you know about me, forget that, what
did I say about … — and answers them through real ``tool_use`` blocks. Any other
question is answered from the memories and search results in its context when they
match, quoting them. "What did I say about …" is answered from the older excerpts of the
thread that context assembly put in the system prompt, quoted with their message number
and date; only when none matches does it call ``search_history``. Usage is estimated,
as no provider reports it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from conversations.tokens import estimate_messages, estimate_text
from liamemory import embeddings
from liamemory.llm import ModelReply, Usage
from usecases.turn.offline_words import content_words, fold

LABEL = "(offline model)"
_WORDS = re.compile(r"\S+\s*|\s+")


def _stream_words(blocks: list[dict[str, Any]], on_text: Callable[[str], None]) -> None:
    """The reply's text in word chunks, as a provider streams it (``OFFLINE_WORD_DELAY_SECONDS`` apart)."""
    delay = settings.OFFLINE_WORD_DELAY_SECONDS
    first = True
    for block in blocks:
        if block["type"] != "text":
            continue
        for word in _WORDS.findall(block.get("text") or ""):
            if delay and not first:
                time.sleep(delay)
            on_text(word)
            first = False


NAME = "offline"

_REMEMBER = [
    re.compile(r"^(?:please\s+|pls\s+)?(?:remember|note|keep in mind)\s+(?:that\s+)?(?P<x>.+)$", re.I | re.S),
    re.compile(r"^(?:per favore\s+)?(?:ricorda(?:ti)?|memorizza|tieni a mente)\s+(?:che\s+)?(?P<x>.+)$", re.I | re.S),
]
_FORGET = [
    re.compile(r"^(?:please\s+)?forget\s+(?:about\s+|that\s+)?(?P<x>.+)$", re.I | re.S),
    re.compile(r"^(?:per favore\s+)?(?:dimentica(?:ti)?|scordati)\s+(?:di\s+|che\s+)?(?P<x>.+)$", re.I | re.S),
]
_KNOW_ME = [
    re.compile(r"\bwhat\s+do\s+you\s+(?:know|remember)\s+about\s+me\b", re.I),
    re.compile(r"\bcosa\s+(?:sai|ricordi)\s+(?:di|su)\s+me\b", re.I),
]
_SAID_ABOUT = [
    re.compile(
        r"\bwhat\s+did\s+i\s+(?:say|tell\s+you|write|mention)\s+(?:about|regarding|on)\s+(?P<x>.+)$", re.I | re.S
    ),
    re.compile(
        r"\bcosa\s+(?:ti\s+)?(?:ho|avevo)\s+(?:detto|scritto)\s+"
        r"(?:su|sul|sulla|sui|sulle|di|del|della|a proposito di)\s+(?P<x>.+)$",
        re.I | re.S,
    ),
]


def _match(patterns: list[re.Pattern], text: str) -> str | None:
    for pattern in patterns:
        m = pattern.search(text)
        if m:
            return (m.groupdict().get("x") or "").strip().rstrip("?.! ")
    return None


def _is_italian(text: str) -> bool:
    words = set(fold(text).split())
    return len(words & {"cosa", "che", "mio", "mia", "ricorda", "ricordati", "dimentica", "sai", "ho", "di", "il"}) >= 1


def _request_text(messages: list[dict[str, Any]]) -> tuple[int, str]:
    """Index and text of the user's current request (the last user text, reminders left out)."""
    for index in range(len(messages) - 1, -1, -1):
        msg = messages[index]
        blocks = msg["content"] if isinstance(msg["content"], list) else [{"type": "text", "text": msg["content"]}]
        if msg["role"] != "user" or any(b.get("type") == "tool_result" for b in blocks):
            continue
        texts = [
            b["text"]
            for b in blocks
            if b.get("type") == "text" and not b["text"].startswith(("Reminder of your constraints", "[Note from"))
        ]
        return index, "\n".join(texts).strip()
    return -1, ""


def _tool_results_since(messages: list[dict[str, Any]], start: int) -> list[tuple[str, dict, dict]]:
    """(tool name, input, result) for every tool call made after the request."""
    calls: dict[str, tuple[str, dict]] = {}
    out = []
    for msg in messages[start + 1 :]:
        for block in msg["content"] if isinstance(msg["content"], list) else []:
            if block.get("type") == "tool_use":
                calls[block["id"]] = (block["name"], block.get("input", {}))
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                raw = block.get("content")
                text = raw if isinstance(raw, str) else "".join(b.get("text", "") for b in raw or [])
                try:
                    result = json.loads(text)
                except ValueError:
                    result = {"ok": False, "error": text}
                name, args = calls[block["tool_use_id"]]
                out.append((name, args, result))
    return out


def _memory_lines(system: list[dict[str, Any]]) -> list[str]:
    text = "\n".join(b.get("text", "") for b in system)
    return [m.group(1) for m in re.finditer(r"^- \[[a-z_]+ #\d+\] (.+)$", text, re.M)]


# The line shape of ``usecases.turn.context.EXCERPT_LINE``.
_EXCERPT_LINE = re.compile(r"^- \[#(?P<seq>\d+), (?P<date>[\d-]+), (?P<role>\w+)\] “(?P<text>.*)”$", re.M)


def _excerpts(system: list[dict[str, Any]]) -> dict[str, str]:
    """The older excerpts in the context: text -> "message #N, date"."""
    text = "\n".join(b.get("text", "") for b in system)
    return {m["text"]: f"message #{m['seq']}, {m['date']}" for m in _EXCERPT_LINE.finditer(text)}


def _quote_excerpts(question: str, excerpts: dict[str, str], it: bool) -> str:
    """The excerpts that share words with ``question``, quoted with where they come from."""
    quotes = "\n".join(f"- “{t}” ({excerpts[t]})" for t in _best_overlap(question, list(excerpts)))
    if not quotes:
        return ""
    return ("Prima in questa conversazione:\n" if it else "Earlier in this conversation:\n") + quotes


def _best_overlap(question: str, candidates: list[str]) -> list[str]:
    wanted = content_words(question)
    scored = []
    for cand in candidates:
        have = content_words(cand)
        hits = sum(1 for w in wanted if any(h.startswith(w[:5]) or w.startswith(h[:5]) for h in have if len(h) > 2))
        if hits:
            scored.append((hits, cand))
    scored.sort(key=lambda p: -p[0])
    return [c for _, c in scored[:3]]


# How far above what unrelated statements score a memory must be to answer a question
# that shares no word with it (the margin memory recall uses, ``retrieval_memories``).
_MEANING_MARGIN = 0.05


def _closest_in_meaning(question: str, candidates: list[str]) -> list[str]:
    """The candidate that means what ``question`` asks about, across languages.

    "Qual è il mio numero d'ordine?" shares no word with "my order number is A-7781";
    the multilingual embedding sees that they are about the same thing.
    """
    if not candidates or not embeddings.enabled():
        return []
    query = embeddings.query_vector(question)
    sims = embeddings.passage_vectors(candidates) @ query
    best = int(sims.argmax())
    if sims[best] < embeddings.unrelated_similarity(query) + _MEANING_MARGIN:
        return []
    return [candidates[best]]


class OfflineModel:
    name = NAME

    def __init__(self) -> None:
        self._counter = 0

    def complete(
        self,
        *,
        system: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        available = {t["name"] for t in tools}
        start, request = _request_text(messages)
        done = _tool_results_since(messages, start)
        it = _is_italian(request)
        blocks = self._decide(request, done, available, system, it)
        usage = Usage(
            input_tokens=sum(estimate_text(b.get("text", "")) for b in system) + estimate_messages(messages),
            output_tokens=estimate_messages([{"content": blocks}]),
        )
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        if on_text:
            _stream_words(blocks, on_text)
        return ModelReply(content=blocks, stop_reason=stop, model=NAME, usage=usage)

    def _tool(self, name: str, args: dict[str, Any], n: int) -> list[dict[str, Any]]:
        return [{"type": "tool_use", "id": f"toolu_offline_{n:02d}_{name}", "name": name, "input": args}]

    def _say(self, text: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": f"{LABEL} {text}"}]

    def _decide(self, request: str, done: list, available: set[str], system: list, it: bool) -> list[dict[str, Any]]:
        n = len(done)
        remember = _match(_REMEMBER, request)
        forget = _match(_FORGET, request)
        said = _match(_SAID_ABOUT, request)
        know_me = any(p.search(request) for p in _KNOW_ME)

        if remember and "remember_fact" in available:
            if not done:
                return self._tool("remember_fact", {"content": remember[:180], "importance": 3}, n)
            result = done[-1][2]
            if not result.get("ok"):
                return self._say(("Non ho potuto salvarlo: " if it else "I could not store that: ") + result["error"])
            if result.get("status") == "pending":
                return self._say(
                    "L'ho annotato; lo userò dopo la revisione dello staff."
                    if it
                    else "I've noted it; staff will review it before I use it."
                )
            return self._say(f"Ricorderò: {result['content']}." if it else f"I'll remember that: {result['content']}.")

        if forget and "recall_facts" in available:
            if not done:
                return self._tool("recall_facts", {"query": forget}, n)
            name, _args, result = done[-1]
            if name == "recall_facts":
                found = result.get("memories") or []
                if not result.get("ok") or not found:
                    return self._say(
                        f"Non ho nulla su “{forget}”." if it else f"I have nothing stored about “{forget}”."
                    )
                return self._tool("forget_fact", {"memory_id": found[0]["id"]}, n)
            content = next(
                (m["content"] for nm, _a, r in done if nm == "recall_facts" for m in r.get("memories", [])), ""
            )
            if result.get("ok"):
                return self._say(
                    f"Fatto, ho dimenticato: “{content}”." if it else f"Done, I've forgotten: “{content}”."
                )
            return self._say(result.get("error", "I could not forget that."))

        if know_me and "recall_facts" in available:
            if not done:
                return self._tool("recall_facts", {"query": ""}, n)
            found = done[-1][2].get("memories") or []
            if not found:
                return self._say("Non so ancora nulla di te." if it else "I don't know anything about you yet.")
            lines = "\n".join(f"- {m['content']}" for m in found)
            return self._say(("Ecco cosa so di te:\n" if it else "Here is what I know about you:\n") + lines)

        if said and not done:
            quoted = _quote_excerpts(said, _excerpts(system), it)
            if quoted:
                return self._say(quoted)
        if said and "search_history" in available:
            if not done:
                return self._tool("search_history", {"query": said}, n)
            excerpts = done[-1][2].get("excerpts") or []
            if not excerpts:
                return self._say(
                    f"Non trovo nulla su “{said}” nei messaggi precedenti."
                    if it
                    else f"I couldn't find anything about “{said}” earlier in this conversation."
                )
            quotes = "\n".join(f"- “{e['text']}” (message #{e['sequence']})" for e in excerpts[:3])
            return self._say(("Avevi scritto:\n" if it else "Earlier you said:\n") + quotes)

        memories = _memory_lines(system)
        matches = _best_overlap(request, memories) or _closest_in_meaning(request, memories)
        if matches:
            quoted = "; ".join(f"“{m}”" for m in matches)
            return self._say(f"Da quanto ricordo: {quoted}." if it else f"From what I remember: {quoted}.")
        quoted = _quote_excerpts(request, _excerpts(system), it)
        if quoted:
            return self._say(quoted)
        if it:
            return self._say("Non ho informazioni su questo. Posso ricordare qualcosa per te: scrivi «ricorda che …».")
        return self._say("I don't have information about that. I can keep notes for you: say “remember that …”.")
