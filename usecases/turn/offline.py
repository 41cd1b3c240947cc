"""The offline model: deterministic, labelled, and driving the same graph and tools.

It is chosen for a run when no API key is configured: it is how a newcomer meets the
product, so it shows memory working. It understands plain requests in English and
Italian — remember this, what do you know about me, forget that, what did I say about …
— and answers them through real ``tool_use`` blocks. A stable personal fact said in
passing ("I work at …", "our cat is called …") is stored with ``remember_fact``, as the
real model is instructed to (``offline_facts``). Any other question is answered from
everything its context holds — memories, older excerpts, the summary's lines, the
window — quoting the line it used and saying where it comes from
(``offline_context``), in the language of the question; only a "what did I say about …"
that nothing in the context answers calls ``search_history``. Usage is estimated, as
no provider reports it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from conversations.informative import asks
from conversations.tokens import estimate_messages, estimate_text
from liamemory import language
from liamemory.llm import ModelReply, Usage
from usecases.turn.offline_context import LABEL, Line, answer, context_lines, where
from usecases.turn.offline_facts import stable_fact, stated_change, stated_correction

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

_REMEMBER = [re.compile(p, re.I | re.S) for p in language.patterns("REMEMBER_REQUEST")]
_FORGET = [re.compile(p, re.I | re.S) for p in language.patterns("FORGET_REQUEST")]
_KNOW_ME = [re.compile(p, re.I) for p in language.patterns("KNOW_ME_QUESTION")]
_SAID_ABOUT = [re.compile(p, re.I | re.S) for p in language.patterns("SAID_ABOUT_QUESTION")]


def _match(patterns: list[re.Pattern[str]], text: str) -> str | None:
    for pattern in patterns:
        m = pattern.search(text)
        if m:
            return (m.groupdict().get("x") or "").strip().rstrip("?.! ")
    return None


# A request for a value said without a question, a task that needs one ("use her name"), or
# words of recalling ("non mi ricordo il nome della pastiglia…", "show him you remember").
_ASKS_FOR = re.compile(
    rf"\b(?:{language.alternation('ASKING_FOR')}|{language.alternation('USE_A_VALUE')}"
    rf"|{language.alternation('RECALL_REQUEST')})\b",
    re.I,
)


_RECALLS = re.compile(rf"\b(?:{language.alternation('RECALL_REQUEST')})\b", re.I)


def _reply(lang: str, key: str, **fields: object) -> str:
    """The reply ``key`` in ``lang`` (``REPLIES`` of ``liamemory.language``), its fields filled."""
    return str(language.words(lang).REPLIES[key]).format(**fields)


def _quote(lines: list[Line], *, lang: str) -> str:
    first, *rest = lines
    opening = _reply(lang, "i_remember" if first.source == "memory" else "told_you")
    text = f"{opening}: “{first.text}” ({where(first, lang=lang)})"
    for line in rest:
        text += f"; {_reply(lang, 'earlier')}: “{line.text}” ({where(line, lang=lang)})"
    return text + "."


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


# A tool call the model made this turn: (tool name, input, result).
ToolCall = tuple[str, dict[str, Any], dict[str, Any]]


def _tool_results_since(messages: list[dict[str, Any]], start: int) -> list[ToolCall]:
    """(tool name, input, result) for every tool call made after the request."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
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
        lang = language.detect(request)
        lines = context_lines(system, messages, start)
        blocks = self._decide(request, done, available, lines, lang)
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

    def _decide(
        self, request: str, done: list[ToolCall], available: set[str], lines: list[Line], lang: str
    ) -> list[dict[str, Any]]:
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
                return self._say(_reply(lang, "could_not_store", error=result["error"]))
            if result.get("status") == "pending":
                return self._say(_reply(lang, "pending"))
            return self._say(_reply(lang, "will_remember", content=result["content"]))

        if forget and "recall_facts" in available:
            if not done:
                return self._tool("recall_facts", {"query": forget}, n)
            name, _args, result = done[-1]
            if name == "recall_facts":
                found = result.get("memories") or []
                if not result.get("ok") or not found:
                    return self._say(_reply(lang, "nothing_about", x=forget))
                return self._tool("forget_fact", {"memory_id": found[0]["id"]}, n)
            content = next(
                (m["content"] for nm, _a, r in done if nm == "recall_facts" for m in r.get("memories", [])), ""
            )
            if result.get("ok"):
                return self._say(_reply(lang, "forgotten", content=content))
            return self._say(result.get("error", "I could not forget that."))

        if know_me and "recall_facts" in available:
            if not done:
                return self._tool("recall_facts", {"query": ""}, n)
            found = done[-1][2].get("memories") or []
            if not found:
                return self._say(_reply(lang, "know_nothing"))
            known = "\n".join(f"- {m['content']}" for m in found)
            return self._say(_reply(lang, "what_i_know") + known)

        if said and not done:
            found = answer(said, lines)
            if found:
                return self._say(_quote(found, lang=lang))
        if said and "search_history" in available:
            if not done:
                return self._tool("search_history", {"query": said}, n)
            excerpts = done[-1][2].get("excerpts") or []
            if not excerpts:
                return self._say(_reply(lang, "nothing_found", x=said))
            quotes = "\n".join(f"- “{e['text']}” (message #{e['sequence']})" for e in excerpts[:3])
            return self._say(_reply(lang, "you_said") + quotes)

        # A fact said beside a question ("any gloves that don't smell? I'm allergic to latex") is kept;
        # a change ("padel moved to Wednesday") only if it replaces a memory, a correction ("wait no,
        # it's 41782") only if it corrects one drawn from this conversation.
        fact = stable_fact(request)
        change = None if fact else stated_change(request)
        correction = None if fact or change else stated_correction(request)
        said = fact or change or correction
        if said and "remember_fact" in available:
            condition = "only_if_it_replaces" if change else "only_if_it_corrects" if correction else None
            noted = self._noted(said, done, n, lang, condition=condition)
            if done and asks(request, openings=True) and (found := answer(request, lines)):
                # The question beside the fact is answered too, from the context as it was.
                noted[0]["text"] += " " + _quote(found, lang=lang)
            return noted
        if asks(request, openings=True):
            found = answer(request, lines)
            if found:
                return self._say(_quote(found, lang=lang))
        elif not done and _ASKS_FOR.search(request) and (found := self._asked_for(request, lines)):
            # "NUJ number one more time, filling in the press card renewal": asked without a question.
            return self._say(_quote(found, lang=lang))
        elif not done:
            # A statement that is no fact to keep (small talk, an opinion): acknowledged.
            return self._say(_reply(lang, "got_it"))
        return self._say(_reply(lang, "no_information"))

    def _asked_for(self, request: str, lines: list[Line]) -> list[Line]:
        """What a request said without a question asks for: a line holding a value, or, when it points
        back at something the person said ("keep in mind my health thing i told you about"), the
        line about it, value or not."""
        found = answer(request, lines, value_only=True)
        if not found and _RECALLS.search(request):
            found = answer(request, lines)
        return found

    def _noted(
        self, fact: str, done: list[ToolCall], n: int, lang: str, *, condition: str | None
    ) -> list[dict[str, Any]]:
        """Store a fact said in passing, then say so; a refused write (memory off, the cap, a change
        that replaces nothing) is only acknowledged. ``condition``: the tool's argument that keeps a
        change or a correction only where it retires a memory."""
        if not done:
            args: dict[str, Any] = {"content": fact, "importance": 3}
            if condition:
                args[condition] = True
            return self._tool("remember_fact", args, n)
        result = done[-1][2]
        if result.get("ok") and result.get("status") != "pending":
            return self._say(_reply(lang, "noted", content=result["content"]))
        return self._say(_reply(lang, "got_it"))
