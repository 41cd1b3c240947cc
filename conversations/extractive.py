"""The extractive summarizer: one dated line per event, small talk left out.

The default without an API key and the fallback when the fast model fails. It must
be deterministic, cheap (it runs after every turn) and language-light (English and
Italian), so it works on general features of a sentence rather than on any data
set's phrases:

- what it names: capitalised words that do not start the sentence (people, places,
  brands), identifiers, amounts, numbers and dates (typed, or relative ones resolved
  against the message's own date);
- what it does: a first-person statement with a verb of action or decision ("I
  bought", "we decided", "ho prenotato"), or a plan ("I'm going to", "next month");
- what it adds: content words not already in the summary (novelty);
- what it is not: pleasantries, praise and reactions ("Totally agree.", "Can't
  wait!", "That's awesome!"), which carry none of the above.

Each kept sentence is shortened (leading interjections, vocatives, intensifiers out)
and becomes a line ``- 2023-05-08 User: …``. When the lines exceed the budget, the
least valuable per token go first, so what stays is the densest record of who did,
decided, planned or stated what, and when. System notes (corrections) come first and
go last: a correction must outlive the statement it corrects.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from conversations.content import correction_without_quote
from conversations.facts import find_facts
from conversations.models import Message, MessageRole
from conversations.relative_dates import RESOLVED_RE, resolve_relative_dates
from conversations.tokens import estimate_text
from liamemory import language

ROLE_LABEL = {"user": "User", "assistant": "Assistant", "system": "Note"}
# Events under the day they were said: a "2023-05-08:" line, then "- User: text" lines
# (also read: "- 2023-05-08 User: text", and the older "- User (#12): text").
DAY_RE = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}):$")
LINE_RE = re.compile(r"^- (?:(?P<date>\d{4}-\d{2}-\d{2}) )?(?P<label>User|Assistant|Note)(?: \(#\d+\))?: (?P<text>.*)$")
# A note (a correction) outweighs any statement: it is trimmed last.
NOTE_VALUE = 100.0

_INTERJECTION = re.compile(rf"^(?:(?:{language.alternation('INTERJECTIONS')})\b[\s,!.:;—–-]*)+", re.IGNORECASE)
# ", Mel!" closing a sentence: a vocative. ", Rome." is more often the end of a list.
_VOCATIVE = re.compile(r",\s+[A-Z][a-z]+(?=\s*[!?])")
_FILLER = re.compile(rf"\b(?:{language.alternation('INTENSIFIERS')})\s+", re.IGNORECASE)
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]+|[:;]-?[()DPp]\B")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s+[-–—]\s+|;\s+|\n+")
_WORD = re.compile(r"[\w'’]+", re.UNICODE)
_CAPITALISED = re.compile(r"(?<![\w'’])(?:[A-Z][a-zà-ÿ]+(?:[A-Z][a-z]+)?|[A-Z]{2,}[a-z]?)(?![\w'’])")
_FIRST_PERSON = re.compile(language.any_word("FIRST_PERSON"), re.IGNORECASE)
_ACTION = re.compile(rf"\b(?:{language.alternation('ACTION_WORDS')})\b(?!['’])", re.IGNORECASE)
_PLAN = re.compile(rf"\b(?:{language.alternation('PLAN_WORDS')})\b", re.IGNORECASE)
# English openers only: Italian "come" is an English verb ("Come over on Friday").
_QUESTION_OPENER = re.compile(
    "^(?:" + "|".join(language.words("en").QUESTION_WORDS + language.words("en").QUESTION_VERBS) + r")\b", re.IGNORECASE
)
# Words too common to count as new information.
_COMMON = language.union("COMMON_WORDS")


@dataclass
class Line:
    """One event of the summary: when, who, what; and its position (for chronological order)."""

    day: str
    label: str
    text: str
    order: tuple[int, int]

    def render(self) -> str:
        return f"- {self.label}: {self.text}" if self.label else f"- {self.text}"


def render(lines: Sequence[Line]) -> str:
    """The lines in order, each day's under a line with its date (one date per day, not per line)."""
    out: list[str] = []
    day = None
    for line in lines:
        if line.day and line.day != day:
            out.append(f"{line.day}:")
        day = line.day or day
        out.append(line.render())
    return "\n".join(out)


def content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(RESOLVED_RE.sub(" ", text)) if len(w) > 2 and w.lower() not in _COMMON}


def shorten(sentence: str) -> str:
    """The sentence without leading interjections, vocatives, intensifiers and emoji."""
    text = _EMOJI.sub("", sentence).strip()
    text = _INTERJECTION.sub("", text).strip()
    text = _VOCATIVE.sub("", text)
    text = _FILLER.sub("", text)
    text = re.sub(r"!+", ".", text)
    text = re.sub(r"\s{2,}", " ", text).strip(" ,;:-–—")
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text


def names(text: str) -> list[str]:
    """Capitalised words that do not start a sentence (people, places, brands, acronyms)."""
    out = []
    for m in _CAPITALISED.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in '.!?:;"“(-–—[' or m.group(0) in {"I", "OK"}:
            continue
        out.append(m.group(0))
    return out


def base_value(text: str) -> float:
    """What a shortened sentence is worth before novelty (0: small talk, whatever it adds)."""
    resolved = len(RESOLVED_RE.findall(text))
    facts = len(find_facts(RESOLVED_RE.sub(" ", text)))
    named = len(set(names(text)))
    first_person = bool(_FIRST_PERSON.search(text))
    action = bool(_ACTION.search(text))
    plan = bool(_PLAN.search(text))
    if not (named or facts or resolved or (first_person and (action or plan))):
        return 0.0  # a reaction, a compliment, a pleasantry: nobody did or said anything to keep
    score = 3.0 * min(named, 3) + 2.5 * min(facts + resolved, 3)
    score += 2.0 * (first_person and action) + 1.5 * plan
    if text.endswith("?") or _QUESTION_OPENER.match(text):
        score *= 0.4  # a question states little, unless it is the only mention of a name
    return score


def value(text: str, *, novel: int) -> float:
    """``base_value`` plus the content words it adds (``novel``); a bare statement must add some."""
    base = base_value(text)
    concrete = names(text) or RESOLVED_RE.search(text) or find_facts(text)
    if base <= 0 or (novel < 2 and not concrete):
        return 0.0
    return base + 1.0 * min(novel, 6)


def is_correction_note(message: Message) -> bool:
    """A ``system`` message that names the statement it corrects (``corrects``)."""
    return message.role == MessageRole.SYSTEM and message.corrects_id is not None


def spoken_text(message: Message) -> str:
    """What was said in a message: its text blocks (tool inputs and results are not speech).

    A correction note is its correction alone: its quote of the wrong statement is left out.
    """
    if message.role == MessageRole.TOOL:
        return ""
    if is_correction_note(message):
        return correction_without_quote(message.content or []).strip()
    return "\n".join(b.get("text", "") for b in message.content or [] if b.get("type") == "text").strip()


def message_day(message: Message) -> date | None:
    return message.created_at.date() if message.created_at else None


def parse_lines(previous_text: str) -> list[Line]:
    lines = []
    day = ""
    for i, raw in enumerate(previous_text.splitlines()):
        if heading := DAY_RE.match(raw):
            day = heading["date"]
        elif m := LINE_RE.match(raw):
            lines.append(Line(m["date"] or day, m["label"], m["text"], (0, i)))
        elif raw.startswith("- ") and raw[2:].strip():
            # A line of another shape (the fast model's, when it did not follow the format): kept as it is.
            lines.append(Line(day, "", raw[2:].strip(), (0, i)))
    return lines


_ABBREVIATION = re.compile(rf"\b(?:{language.alternation('SENTENCE_ABBREVIATIONS')})\.$", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """Sentences and clauses (split at dashes and semicolons too), abbreviations kept whole."""
    out: list[str] = []
    for piece in _SENTENCE.split(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def message_lines(message: Message, *, known: set[str]) -> list[Line]:
    """The events of one message worth a line, in order (a system note is kept whole)."""
    label = ROLE_LABEL.get(message.role, message.role.title())
    day = message_day(message)
    text = spoken_text(message)
    if day:
        text = resolve_relative_dates(text, today=day)
    stamp = day.isoformat() if day else ""
    if message.role == MessageRole.SYSTEM:
        return [Line(stamp, label, " ".join(text.split()), (message.sequence, 0))] if text else []
    out = []
    for i, sentence in enumerate(sentences(text)):
        short = shorten(sentence)
        if len(_WORD.findall(short)) < 3:
            continue
        words = content_words(short)
        if value(short, novel=len(words - known)) <= 0:
            continue
        known |= words
        out.append(Line(stamp, label, short, (message.sequence, i)))
    return out


def concrete(text: str) -> set[str]:
    """The names, identifiers, numbers and dates a line states."""
    return set(find_facts(RESOLVED_RE.sub(" ", text))) | set(names(text)) | set(RESOLVED_RE.findall(text))


def _is_repeat(words: set[str], facts: set[str], kept: list[tuple[set[str], set[str]]]) -> bool:
    """Nearly the same words as a line already kept, or its very facts echoed ("Noted: order A-7781")."""
    if not words:
        return True
    for their_words, their_facts in kept:
        if len(words & their_words) / len(words | their_words) >= 0.6 and len(words - their_words) <= 1:
            return True
        if facts and facts <= their_facts and len(words - their_words) <= 2:
            return True
    return False


def select(lines: list[Line], budget: int) -> list[Line]:
    """The most valuable lines that fit ``budget`` tokens, in chronological order.

    Value per square root of tokens: dense lines win, yet a long line that says much
    beats a short one that says little. Novelty is counted against the other lines
    still kept, so of two lines saying the same thing one goes first.
    """
    kept: list[Line] = []
    words: list[set[str]] = []
    seen: list[tuple[set[str], set[str]]] = []
    for line in lines:
        w, facts = content_words(line.text), concrete(line.text)
        if line.label == ROLE_LABEL["system"] or not _is_repeat(w, facts, seen):
            kept.append(line)
            words.append(w)
            seen.append((w, facts))
    base = [NOTE_VALUE if x.label == ROLE_LABEL["system"] else base_value(x.text) for x in kept]
    size = [math.sqrt(max(1, estimate_text(x.render()))) for x in kept]
    alive = list(range(len(kept)))
    total = estimate_text(render(kept))
    while alive and total > budget:
        counts: Counter[str] = Counter()
        for i in alive:
            counts.update(words[i])

        def worth(i: int, counts: Counter[str] = counts) -> tuple[float, tuple[int, int]]:
            novel = sum(1 for w in words[i] if counts[w] == 1)
            return (base[i] + min(6, novel)) / size[i], kept[i].order

        # Drop the weakest tenth in one pass (at least one line): cheap on a rebuild of hundreds.
        for i in sorted(alive, key=worth)[: max(1, len(alive) // 10)]:
            alive.remove(i)
            total -= estimate_text(kept[i].render()) + 1
            if total <= budget:
                break
        if total <= budget:
            # Per-line estimates leave out the day lines: measure the text itself.
            total = estimate_text(render([kept[i] for i in alive]))
    return sorted((kept[i] for i in alive), key=lambda x: x.order)


def corrected_lines(messages: Sequence[Message]) -> set[tuple[str, str]]:
    """(label, text) of the lines the statements corrected by these messages' notes would give.

    A correction note (a ``system`` message whose ``corrects`` is the wrong statement)
    is kept whole, and the statement's own lines go: the summary carries the right
    value, never the wrong one beside it.
    """
    return {
        (line.label, line.text)
        for note in messages
        if is_correction_note(note) and note.corrects is not None
        for line in message_lines(note.corrects, known=set())
    }


# Whether a newer statement changes an older one ("I moved from Rome to Turin" after "I
# live in Rome"): a reason, or None. The caller passes it (the use case
# ``usecases/thread_summary.py`` passes the memories' change test,
# ``memories.matching.change.statement_changes``, which this app may not import); None
# keeps every statement.
ChangeJudge = Callable[[str, str], "str | None"]
CHANGED_MARK = " (changed: this replaces what was said before)"


def _change_pairs(lines: list[Line], first_new: int, change_judge: ChangeJudge | None) -> list[tuple[int, int]]:
    """(older user line, newer user line that changes it), the newer ones from ``first_new`` on."""
    if change_judge is None:
        return []
    pairs: list[tuple[int, int]] = []
    stale: set[int] = set()
    # Statements only: a question ("can you check batch 101?") changes nothing it resembles.
    users = [i for i, x in enumerate(lines) if x.label == ROLE_LABEL["user"] and not x.text.rstrip().endswith("?")]
    for j in (i for i in users if i >= first_new):
        for i in (i for i in users if i < j and i not in stale):
            if change_judge(lines[i].text.removesuffix(CHANGED_MARK), lines[j].text):
                stale.add(i)
                pairs.append((i, j))
    return pairs


def changed_statements(
    *, previous_text: str, messages: Sequence[Message], change_judge: ChangeJudge | None
) -> list[tuple[str, str]]:
    """(earlier statement, the newer one that changed it): user lines of the summary or ``messages``."""
    lines, first_new = _all_lines(previous_text, messages)
    return [(lines[i].text, lines[j].text) for i, j in _change_pairs(lines, first_new, change_judge)]


def _all_lines(previous_text: str, messages: Sequence[Message]) -> tuple[list[Line], int]:
    lines = parse_lines(previous_text)
    first_new = len(lines)
    known: set[str] = set()
    for line in lines:
        known |= content_words(line.text)
    for message in messages:
        if message.role != MessageRole.TOOL:
            lines.extend(message_lines(message, known=known))
    return lines, first_new


def extractive_text(
    *, previous_text: str, messages: Sequence[Message], budget: int, change_judge: ChangeJudge | None
) -> str:
    """The previous summary's events plus the new messages', trimmed to ``budget`` tokens.

    The newest statement wins: a user's statement that a newer one changes (by
    ``change_judge``) goes, and the newer one says that it changed (the current value, and
    the fact that it moved).
    """
    lines, first_new = _all_lines(previous_text, messages)
    pairs = _change_pairs(lines, first_new, change_judge)
    stale, changed = {i for i, _ in pairs}, {j for _, j in pairs}
    # The assistant's echoes of a value that changed ("order A-7781 is noted") go with it.
    old_values = {f for i, j in pairs for f in set(find_facts(lines[i].text)) - set(find_facts(lines[j].text))}
    stale |= {i for i, x in enumerate(lines) if x.label == ROLE_LABEL["assistant"] and old_values & concrete(x.text)}
    if stale:
        lines = [
            Line(x.day, x.label, x.text + CHANGED_MARK, x.order) if i in changed else x
            for i, x in enumerate(lines)
            if i not in stale
        ]
    if wrong := corrected_lines(messages):
        lines = [line for line in lines if (line.label, line.text) not in wrong]
    return render(select(lines, budget))
