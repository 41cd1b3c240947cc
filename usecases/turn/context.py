"""Context assembly: what one model call sees. One function, easy to read and test.

Order (docs/design.md, "A chat turn"): the stable part first — common identity, the agent's
instructions, tool definitions — marked for the provider's prompt cache; after it what
changes every turn: the rolling summary and the user's relevant long-term memories,
with the rule that what the user says now wins, and the older excerpts of the thread
relevant to the message (quoted with their date, speaker and sequence); then the window
of recent messages cut at whole turns and trimmed to the token budget; the agent's
critical constraints are re-asserted at the very end. Volatile data (today's date) only
ever comes from tools.

Excerpts: a message that asks about something (a question, a request to recall, an
identifier) gets the best ``search_history`` hits older than the window, each with the
turns said right after and before it (the exchange it belongs to), within
``MEMORY_EXCERPT_TOKENS``; the rest gets none. The gate is on the message, not on the
hits: measured on LoCoMo and the generated chats, no floor on a hit's strengths (word
share, cosine margin) keeps the answers of real questions while stopping what small
talk pulls in (bench/README.md, "Context evidence recall").
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User

from agents.context_report import ContextReport, ExcerptRef
from conversations.informative import asks
from conversations.models import Message, MessageRole, Thread, ThreadSummary
from conversations.search import (
    HistoryHit,
    cosine_floor,
    hits_beside,
    informative_hits,
    search_history,
    search_other_threads,
)
from conversations.selectors import summary_and_window
from conversations.tokens import estimate_message, estimate_messages, estimate_text, history_budget
from liamemory import embeddings, language
from liamemory.search_terms import MAX_QUERY_CHARS
from memories.models import Memory
from memories.recall import search_memories
from memories.selectors import (
    forgotten_source_messages,
    long_term_memory_allowed,
    memory_preference_sql,
    memory_preference_value,
    newest_memories,
    pinned_memories,
)
from usecases.turn import tools as agent_tools
from usecases.turn.registry import COMMON_IDENTITY, AgentSpec
from usecases.turn.window import cut_to_whole_turns, drop_oldest_turn

SUMMARY_HEADING = "Summary of the conversation so far:"
MEMORY_HEADING = "What you already know about this user (long-term memory):"
OVERRIDE_LINE = "If the user's current messages contradict anything remembered above, what the user says now wins."
EXCERPT_HEADING = "Earlier in this conversation (verbatim excerpts older than the recent messages):"
EXCERPT_LINE = "- [#{sequence}, {date}, {role}] “{text}”"
OTHER_HEADING = "From the user's other conversations (verbatim excerpts, with each conversation's title and date):"
OTHER_LINE = "- [“{title}”, {date}, {role}] “{text}”"
UNTITLED = "untitled conversation"
EXCERPT_CANDIDATES = 10
# Hits read to find ``EXCERPT_CANDIDATES`` that carry information.
EXCERPT_POOL = 50
# A turn beside a relevant hit: the next row, or the reply after a tool call and its result.
NEIGHBOUR_REACH = 3

# What makes a message ask about something said before, in English and Italian: a
# request to recall, or a question (a question mark or an interrogative opening) about
# someone or something specific. Small talk ("how are you?", "thanks!") asks for
# nothing specific: no name, no identifier, no first-person subject.
_RECALL = re.compile(rf"\b(?:{language.alternation('RECALL_REQUEST')}|{language.alternation('USE_A_VALUE')})\b", re.I)
# Someone the question is about: the user ("I", "my", "io", "mio", "ho"), a past act
# ("did"), or a name (a capitalised word that does not open a sentence).
_PERSONAL = re.compile(rf"{language.any_word('FIRST_PERSON')}|{language.any_word('PAST_AUXILIARIES')}", re.I)
_NOT_A_NAME = "|".join(rf"{re.escape(w)}\b|{re.escape(w)}'" for w in sorted(language.union("CAPITALISED_WORDS")))
_NAME = re.compile(rf"(?<!^)\b{f'(?!{_NOT_A_NAME})' if _NOT_A_NAME else ''}[A-Z][\w'-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# One definite thing named: "the abstract", "il cantiere", "l'indirizzo".
_DEFINITE = re.compile(rf"{language.any_word('DEFINITE_ARTICLES')}\s*\w", re.I)
# A value asked for as it stands now or once more: "what day's padel now?", "quanto chiedo adesso?".
_ASKED_AGAIN = re.compile(language.any_word("ASKED_AGAIN"), re.I)
# A value asked for without a question ("bike lock code pls", "mi serve la matricola per il modulo",
# "a mum is asking what the cap is"), and what makes it one thing: "my", "the", a name.
_ASKING_FOR = re.compile(rf"\b(?:{language.alternation('ASKING_FOR')})\b", re.I)
_POSSESSIVE = re.compile(language.any_word("POSSESSIVES"), re.I)
# A definite article but Italian's plural "i", which is also the English "I" ("i need a buddy" names nothing).
_THE = re.compile(rf"(?!i\b){_DEFINITE.pattern}", re.I)
# A question that names its thing by a pronoun, or asks in this many words at most ("quale era??").
_REFERS_BACK = re.compile(language.any_word("REFERRING_PRONOUNS"), re.I)
_FEW_WORDS = 3
# An order code, an amount, a date, a year: a token of three characters or more with a digit.
_IDENTIFIER = re.compile(r"(?=[\w€$£./-]*\d)[\w€$£][\w€$£./-]{2,}")


@dataclass(frozen=True)
class Excerpt:
    message_id: int
    sequence: int
    role: str
    created_at: datetime
    text: str
    tokens: int
    # Set for an excerpt of the person's other conversations: which one, by its title.
    thread_id: uuid.UUID | None = None
    thread_title: str = ""

    def line(self) -> str:
        date = self.created_at.date().isoformat()
        if self.thread_id is not None:
            return OTHER_LINE.format(title=self.thread_title, date=date, role=self.role, text=self.text)
        return EXCERPT_LINE.format(sequence=self.sequence, date=date, role=self.role, text=self.text)


@dataclass
class Context:
    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    # What went into it, as the run records it (``Run.context_report``).
    report: ContextReport


def relevant_memories(
    *, user: User, agent: AgentSpec, query: str, allowed: bool, limit: int = 8, new_conversation: bool = False
) -> list[Memory]:
    """Pinned kinds first, then the memories most similar to the message (none when ``allowed``,
    the turn's memory switch, is off).

    ``new_conversation``: the message opens a conversation. When it asks about something, the
    free places are filled with the person's newest other memories: a new conversation holds
    nothing else, and recall's floor, there so that small talk pulls in no memory, left out
    the answer to "which city did I tell you I live in?" ("renting a flat in Bristol") for 5
    of the 8 new-conversation questions of the development chats whose fact was not in the context.
    """
    if not allowed:
        return []
    pinned = pinned_memories(user=user, kinds=agent.pinned_kinds, limit=limit) if agent.pinned_kinds else []
    seen = {m.id for m in pinned}
    hits = [h.memory for h in search_memories(user=user, query=query, limit=limit) if h.memory.id not in seen]
    chosen = (pinned + hits)[: max(limit, len(pinned))]
    if new_conversation and len(chosen) < limit and asks_about_a_thing(query):
        chosen += newest_memories(
            user=user, kinds=agent.memory_kinds, exclude=[m.id for m in chosen], limit=limit - len(chosen)
        )
    return chosen


def asks_about_something(text: str) -> bool:
    """Whether ``text`` asks about something specific enough to look for in the thread.

    A request to recall always does; a question does when it is about someone or
    something specific (the user, a past act, a name, an identifier). "How are you
    today?" does not, nor does a statement ("For the record: order A-1234 costs €120").
    """
    text = (text or "").strip()
    if _RECALL.search(text):
        return True
    for sentence in _SENTENCE_END.split(text):
        specific = _PERSONAL.search(sentence) or _NAME.search(sentence) or _IDENTIFIER.search(sentence)
        if specific and asks(sentence, openings=True):
            return True
    return False


def asks_about_a_thing(text: str) -> bool:
    """``asks_about_something``, or a question about one definite thing or for a value again ("when's
    the tasting?", "what day's padel now?", "Come si chiama la cagnetta?"): what the excerpts of the
    thread and of the person's other conversations look for.

    On the development chats of six writers (w20, w21, w25, w26, w30, w31) 89 of 382 questions
    about the person's own facts named no person, name or identifier; this reads 70 of them, and
    small talk opens it about as rarely (34 of 1,159 turns against 32). General questions open it
    more often (388 of 629 against 247): what they find must still be relevant in itself.

    A request for one of the person's values said without a question ("bike lock code pls", "ridammi
    la partita IVA", "Davide chiede quanto avevamo deciso di spendere") asks too, when it names one
    thing ("my", "the", a name, an identifier): on the development chats of fifteen writers (w4–w41)
    it reads 19 more questions of seven writers, and opens on 31 of the 7,125 other turns (4 of
    2,753 small talk: "I need help with my thesis today").
    """
    if asks_about_something(text):
        return True
    sentences = _SENTENCE_END.split((text or "").strip())
    return any(
        (asks(s, openings=True) and (_DEFINITE.search(s) or _ASKED_AGAIN.search(s)))
        or (_ASKING_FOR.search(s) and _names_one_thing(s))
        or (i > 0 and _asks_back(s) and _names_one_thing(sentences[i - 1]))
        for i, s in enumerate(sentences)
    )


def _names_one_thing(sentence: str) -> bool:
    """ "the", "my", a name or an identifier: what makes a request about one thing."""
    return bool(_THE.search(sentence) or _POSSESSIVE.search(sentence) or _NAME.search(sentence)) or bool(
        _IDENTIFIER.search(sentence)
    )


def _asks_back(sentence: str) -> bool:
    """A question about what the sentence before it named: by a pronoun ("What was it?", "What's it
    called?", "quale era??"), or in a few words with none (Italian drops them).

    The person's thing is in the sentence before, said as theirs ("The council roading fella rang and
    wants my service request number. What was it?"): on the development chats such questions were
    7 of the 9 of w52 (older people new to assistants) that opened no excerpt, and 2 of other writers'.
    """
    return asks(sentence, openings=True) and (
        bool(_REFERS_BACK.search(sentence)) or len(sentence.split()) <= _FEW_WORDS
    )


def _normalised(text: str) -> str:
    """``text`` as ``_covered_by`` compares it: its words lower-cased, one space between them."""
    return " ".join(text.split()).lower()


def _covered_by(summary: str, text: str) -> bool:
    """Whether the summary (``_normalised`` once for all the hits: it was a tenth of the build's own
    CPU, made again for each hit) already quotes ``text`` (the extractive summary copies sentences)."""
    body = _normalised(text)
    return len(body) >= 20 and body in summary


def relevant_excerpts(
    *, thread: Thread, query: str, before_sequence: int, summary_text: str = "", budget: int
) -> list[Excerpt]:
    """The thread's messages older than ``before_sequence`` most relevant to ``query``.

    Nothing unless the message asks about something (``asks_about_a_thing``). Then the
    best ``search_history`` hits that carry information (``conversations.search.informative_hits``:
    no refusals, no restatements, no two copies of one thing), in rank order, the first
    ``EXCERPT_CANDIDATES`` of them at most; of those, the ones relevant in themselves
    (``_relevant``), each followed by the turn said right after it and the one right
    before (``conversations.search.hits_beside``: "Did you go?" is answered by the next
    message, "Yes, to the pottery class" needs the question before it), the same filter
    applied to those; of these, the ones the summary does not already quote and that fit
    ``budget`` tokens, in that order. A hit the summary quotes keeps its slot: the rank
    below it does not move up, nor do the turns beside it come in, so when the answer is in
    the summary no filler takes its place. Returned oldest first, as a conversation reads.

    Taking a hit's exchange before the next hit, rather than every hit in rank order,
    brought LoCoMo conv-26's context evidence recall from 80.1 to 89.8 % at 700 tokens
    (90.3 % at 800, where it levels off); spreading the excerpts over more sessions
    instead (no two within two turns) lowered it to 62-77 % (bench/README.md).
    """
    if budget <= 0 or before_sequence <= 1 or not asks_about_a_thing(query):
        return []
    hits = search_history(thread=thread, query=query, before_sequence=before_sequence, limit=EXCERPT_POOL, kinds=True)
    hits = informative_hits(hits, query=query, limit=EXCERPT_CANDIDATES)
    summary = _normalised(summary_text)
    # A hit the summary quotes keeps its slot, and the turns beside it go with it.
    hits = _relevant([h for h in hits if not (summary and _covered_by(summary, h.excerpt))])
    beside = hits_beside(hits, thread=thread, query=query, before_sequence=before_sequence, reach=NEIGHBOUR_REACH)
    exchanges = informative_hits([row for hit in hits for row in (hit, *beside[hit.message_id])], query=query)
    chosen: list[Excerpt] = []
    spent = 0
    for hit in exchanges:
        if summary and _covered_by(summary, hit.excerpt):
            continue
        if any(e.message_id == hit.message_id for e in chosen):
            continue
        excerpt = Excerpt(
            message_id=hit.message_id,
            sequence=hit.sequence,
            role=hit.role,
            created_at=hit.created_at,
            text=" ".join(hit.excerpt.split()),
            tokens=0,
        )
        tokens = estimate_text(excerpt.line()) + 1
        if spent + tokens > budget:
            continue
        spent += tokens
        chosen.append(replace(excerpt, tokens=tokens))
    return sorted(chosen, key=lambda e: e.sequence)


def _relevant(hits: list[HistoryHit]) -> list[HistoryHit]:
    """The hits that are about the query themselves, and the turns beside them.

    A hit holds one of the query's words, or its meaning is clearly closer to the query
    than unrelated statements are (the floor of the person's own search); a hit that only
    its neighbours' words brought in stays when it sits beside one that passed ("Did you
    go?" / "Yes, to the pottery class"). What passes neither is what was left once the
    relevant messages were taken: no excerpt is better than filler.
    """
    strong = {
        h.message_id
        for h in hits
        if h.word_share > 0 or (h.cosine_margin is not None and h.cosine_margin >= cosine_floor(h))
    }
    anchors = [h.sequence for h in hits if h.message_id in strong]
    return [h for h in hits if h.message_id in strong or any(abs(h.sequence - a) <= NEIGHBOUR_REACH for a in anchors)]


def other_conversation_excerpts(*, user: User, thread: Thread, query: str, budget: int) -> list[Excerpt]:
    """What the person said in their other conversations about ``query``, within ``budget`` tokens.

    The caller asks only where long-term memory is allowed (never from an incognito
    thread, nor for a person who turned memory off); the search never reads an incognito
    conversation nor another person's (``conversations.search.search_other_threads``),
    and a message whose memory the person had forgotten is left out.
    Nothing unless the message asks about something (``asks_about_a_thing``). Returned oldest first.
    """
    if budget <= 0 or not asks_about_a_thing(query):
        return []
    hits = search_other_threads(user=user, thread=thread, query=query, limit=EXCERPT_CANDIDATES)
    if hits:  # what was forgotten is read only when there is something to leave out
        forgotten = forgotten_source_messages(user=user)
        hits = [h for h in hits if h.message_id not in forgotten]
    titles = dict(Thread.objects.filter(pk__in={h.thread_id for h in hits}).values_list("pk", "title"))
    chosen: list[Excerpt] = []
    spent = 0
    for hit in hits:
        excerpt = Excerpt(
            message_id=hit.message_id,
            sequence=hit.sequence,
            role=hit.role,
            created_at=hit.created_at,
            text=" ".join(hit.excerpt.split()),
            tokens=0,
            thread_id=hit.thread_id,
            thread_title=(titles.get(hit.thread_id) or UNTITLED).replace("”", '"'),
        )
        tokens = estimate_text(excerpt.line()) + 1
        if spent + tokens > budget:
            continue
        spent += tokens
        chosen.append(replace(excerpt, tokens=tokens))
    return sorted(chosen, key=lambda e: e.created_at)


def rows_to_api_messages(rows: list[Message]) -> list[dict[str, Any]]:
    """Message rows in the Anthropic wire shape; ``tool`` rows travel as user tool_result blocks.

    Consecutive messages of one wire role are merged, as the API expects alternation.
    """
    out: list[dict[str, Any]] = []
    for row in rows:
        if row.role == MessageRole.SYSTEM:
            role, blocks = "user", [{"type": "text", "text": f"[Note from the system: {row.text}]"}]
        elif row.role == MessageRole.TOOL:
            role, blocks = "user", list(row.content)
        else:
            role, blocks = row.role, list(row.content)
        if out and out[-1]["role"] == role:
            out[-1]["content"] = out[-1]["content"] + blocks
        else:
            out.append({"role": role, "content": blocks})
    return out


def with_late_corrections(rows: list[Message], *, notes: dict[int, list[Message]]) -> list[Message]:
    """Keep a correction note with the statement it corrects, right after it.

    A note always comes after its statement, so one in the window range is already in
    ``rows``. Only a note written after the message this run answers (a retry or a
    regenerate of an older turn) is missing: ``notes``, read with the window
    (``summary_and_window``'s ``notes_after``), puts it right after its statement.
    """
    if not notes:
        return rows
    out: list[Message] = []
    for row in rows:
        out.append(row)
        out.extend(notes.get(row.pk, []))
    return out


def _system_blocks(
    agent: AgentSpec, summary: ThreadSummary | None, memories: list[Memory], excerpts: list[Excerpt]
) -> list[dict[str, Any]]:
    stable = f"{COMMON_IDENTITY}\n\n{agent.instructions}"
    blocks: list[dict[str, Any]] = [{"type": "text", "text": stable, "cache_control": {"type": "ephemeral"}}]
    dynamic = []
    if summary:
        dynamic.append(f"{SUMMARY_HEADING}\n{summary.text}")
    if memories:
        lines = "\n".join(f"- [{m.kind} #{m.id}] {m.content}" for m in memories)
        dynamic.append(f"{MEMORY_HEADING}\n{lines}\n{OVERRIDE_LINE}")
    own = [e for e in excerpts if e.thread_id is None]
    if own:
        dynamic.append(EXCERPT_HEADING + "\n" + "\n".join(e.line() for e in own))
    others = [e for e in excerpts if e.thread_id is not None]
    if others:
        dynamic.append(OTHER_HEADING + "\n" + "\n".join(e.line() for e in others))
    if dynamic:
        blocks.append({"type": "text", "text": "\n\n".join(dynamic)})
    return blocks


def _excerpt_ref(excerpt: Excerpt) -> ExcerptRef:
    thread_id = str(excerpt.thread_id) if excerpt.thread_id is not None else None
    return ExcerptRef(message_id=excerpt.message_id, sequence=excerpt.sequence, thread_id=thread_id)


def _reassert(messages: list[dict[str, Any]], agent: AgentSpec) -> None:
    if not agent.constraints or not messages:
        return
    reminder = "Reminder of your constraints: " + " ".join(agent.constraints)
    messages[-1] = {**messages[-1], "content": [*messages[-1]["content"], {"type": "text", "text": reminder}]}


def cap_window_tokens(rows: list[Message], *, cap: int, keep_turns: int = 2) -> list[Message]:
    """The newest whole turns of ``rows`` that fit in ``cap`` tokens; the last ``keep_turns`` always stay.

    A turn starts at a user message, so a tool call and its result are never parted.
    What is left out is older than the window: the excerpts and ``search_history`` reach it.
    """
    if cap <= 0 or sum(r.token_estimate for r in rows) <= cap:
        return rows
    starts = [i for i, r in enumerate(rows) if r.role == MessageRole.USER]
    if len(starts) <= keep_turns:
        return rows
    for start in starts[:-keep_turns]:
        if sum(r.token_estimate for r in rows[start:]) <= cap:
            return rows[start:]
    return rows[starts[-keep_turns] :]


def build_context(
    *, thread: Thread, agent: AgentSpec, user: User, request_message: Message, memory_allowed: bool | None = None
) -> Context:
    """The model's input for ``request_message``.

    ``memory_allowed``: the turn's memory switch, decided once by the runner
    (``runner._runtime``); callers outside a turn (benchmarks, tests) leave it out and
    it is decided here from the same rule.
    """
    if not thread.incognito and request_message.text and embeddings.enabled():
        # The message's query vector is made in another thread while the summary and the
        # window are read; memory recall then takes it from the cache.
        embeddings.query_vector_soon(request_message.text[:MAX_QUERY_CHARS])
    # The memory switch, when the caller did not decide it, and a retry's late correction
    # notes ride on the window's statement: one round trip instead of three.
    along = {"memory_preference": memory_preference_sql("user")} if memory_allowed is None else {}
    retry = thread.next_sequence > request_message.sequence + 1
    opening = summary_and_window(
        thread=thread,
        size=settings.MEMORY_WINDOW,
        with_summary=settings.MEMORY_SUMMARY_ENABLED,
        notes_after=request_message.sequence if retry else None,
        along=along,
        params={"user": user.pk},
    )
    summary, window = opening.summary, opening.window
    if memory_allowed is None:
        stored = cast("bool | None", opening.along["memory_preference"])
        preference = memory_preference_value(stored) if window else None
        memory_allowed = long_term_memory_allowed(user=user, thread=thread, preference=preference)
    covered = summary.covers_through if summary else 0

    rows = [r for r in window if covered < r.sequence <= request_message.sequence]
    rows = with_late_corrections(rows, notes=opening.late_notes)
    rows = cap_window_tokens(rows, cap=settings.MEMORY_WINDOW_TOKENS)
    messages = cut_to_whole_turns(rows_to_api_messages(rows))
    first_seq = rows[0].sequence if rows else request_message.sequence
    # Excerpts before memories: the history search's lexical statement needs no vector, so
    # it runs while the question is still being embedded and memory recall finds the
    # vector ready. The other way round, recall waited for it with nothing to overlap.
    excerpts = relevant_excerpts(
        thread=thread,
        query=request_message.text,
        before_sequence=first_seq,
        summary_text=summary.text if summary else "",
        budget=settings.MEMORY_EXCERPT_TOKENS,
    )
    if not excerpts and memory_allowed:
        # A new conversation (or one that holds nothing on it) looks in the person's
        # others: "what did I tell you about my dentist appointment?"
        excerpts = other_conversation_excerpts(
            user=user, thread=thread, query=request_message.text, budget=settings.MEMORY_EXCERPT_TOKENS
        )
    memories = relevant_memories(
        user=user,
        agent=agent,
        query=request_message.text,
        allowed=memory_allowed,
        new_conversation=request_message.sequence <= 1,
    )
    system = _system_blocks(agent, summary, memories, excerpts)
    tools = agent_tools.definitions(agent.tools, kinds=agent.memory_kinds)

    budget = history_budget(
        context_window=settings.MODEL_CONTEXT_WINDOW,
        reserved_for_answer=settings.TOKENS_RESERVED_FOR_ANSWER,
        margin=settings.TOKEN_BUDGET_MARGIN,
    )
    # The cacheable prefix (tools, identity, instructions) is sent by any design; the
    # full-history baseline is that prefix plus every message, with no summary or memories.
    prefix = estimate_text(system[0]["text"]) + estimate_messages(tools)
    fixed = prefix + sum(estimate_text(b["text"]) for b in system[1:])
    dropped_items = 0
    while fixed + estimate_messages(messages) > budget:
        messages, n = drop_oldest_turn(messages)
        if not n:
            break
        dropped_items += n
    _reassert(messages, agent)

    estimated = fixed + estimate_messages(messages)
    return Context(
        system=system,
        messages=messages,
        tools=tools,
        report=ContextReport(
            summary_version=summary.version if summary else None,
            summary_covers_through=covered,
            memory_ids=tuple(m.id for m in memories),
            excerpts=tuple(_excerpt_ref(e) for e in excerpts),
            excerpt_tokens=sum(e.tokens for e in excerpts),
            window_first_sequence=first_seq,
            window_last_sequence=request_message.sequence,
            window_messages=len(messages),
            dropped_for_budget=dropped_items,
            uncovered_messages=max(0, first_seq - 1 - covered),
            estimated_tokens=estimated,
            prefix_tokens=prefix,
            full_resend_tokens=prefix + thread.history_tokens + estimate_message({"role": "user", "content": ""}),
            budget=budget,
            memory_allowed=memory_allowed,
        ),
    )
