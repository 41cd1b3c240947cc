"""What the offline model stores unasked: a stable personal fact said in passing.

The real model is told to store durable facts the user states about themselves
(``registry``'s instructions); the offline model does the same through the same
``remember_fact`` tool, so the cap, the duplicates and the review rules apply alike.

A fact is recognised by the shape of a clause, not by the topic: a first-person statement
of a lasting state ("I work at …", "we live in …", "sono celiaca"), a possessive naming
someone ("my wife Eileen", "mail alla mia dirigente, la dott.ssa Galli"), something named
("a beagle called Biscuit"), an allergy or a diet (of the person or of someone close), an
identifier the person holds, said with a copula ("my student number is s2274918", "la
targa è FG 482 KL"), and a personal appointment with its day or time ("the dentist
Thursday at 8:30"). Questions, opinions, wishes, requests addressed to the assistant,
text quoted for a task ("summarise: '…'") and passing events (a work meeting, a
deadline, an order on its way, someone else's code) are never stored: a wrong memory
costs more than a missed one (the person can still say "remember that …"). A thing's new value
said as a change ("padel moved to Wednesday") is no fact on its own: it is stored only when it
retires one of the person's memories (``stated_change``).
The words are in ``liamemory.language``.
"""

from __future__ import annotations

import re

from conversations.facts import has_date
from conversations.informative import asks, gives_a_task
from liamemory import language

MAX_CHARS = 180

_FLAGS = re.IGNORECASE
_STABLE = [re.compile(p, _FLAGS) for p in language.patterns("STABLE_FACT")]
_APPOINTMENT = re.compile(language.alternation("APPOINTMENT"), _FLAGS)
_IDENTIFIER_WORD = re.compile(language.alternation("IDENTIFIER"), _FLAGS)
_NOT_A_FACT = re.compile(language.alternation("NOT_A_FACT"), _FLAGS)
_DAY = language.alternation("WEEKDAYS_MONTHS")
_WHEN = re.compile(rf"{_DAY}|\b\d{{1,2}}(?::\d{{2}})?\s?(?:{language.alternation('CLOCK_SUFFIXES')})\b", _FLAGS)
_FIRST_PERSON = re.compile(language.any_word("FIRST_PERSON"), _FLAGS)
_POSSESSIVE = re.compile(language.any_word("POSSESSIVES"), _FLAGS)
# Someone else's thing ("their trailer is KX19 ZRT"): its code is not the person's.
_OTHERS = re.compile(language.any_word("OTHERS_POSSESSIVES"), _FLAGS)
# A code: a token with a digit, possibly in groups ("FG 482 KL", "300 451 778", "s2274918").
_CODE = (
    r"(?:(?-i:[A-Z]{1,3})\s(?=\d))?(?=[\w/-]*\d)[A-Za-z0-9][\w/-]{1,}"
    r"(?:\s(?=[\w/-]*\d|[A-Z]{2,3}\b)[A-Za-z0-9][\w/-]*){0,3}"
)
# An identifier stated: a copula (or "=", ":") right before the code, or "mine's CODE".
_STATED_CODE = re.compile(
    rf"(?:{language.alternation('COPULAS')})\s*[:=]?\s*(?:{language.alternation('CODE_ARTICLES')})?{_CODE}", _FLAGS
)
# Sentences, colon-separated clauses, and a question joined by a comma ("… can't eat eggs, what cake …?").
_SENTENCES = re.compile(
    rf"(?<=[.!?;])\s+|\n+|(?<=\w):\s+(?![A-Z0-9]*\d)|,\s+(?=(?:{language.word_alternatives('QUESTION_WORDS')})\b)",
    _FLAGS,
)
# The parts of a clause an opinion or a wish is read in ("the dentist Tuesday at 5:30, and I already hate it").
_COMMA_PARTS = re.compile(r",\s+|\s+-\s+")
# A part that opens on a premise ("if bowling is £160"): a number to work something out with.
_PREMISE = re.compile(rf"^\W*(?:{language.alternation('PREMISE')})\s", _FLAGS)
# The chat itself as a clause's subject ("my daughter Karen set this up for me on the iPad").
_ABOUT_THE_ASSISTANT = re.compile(language.alternation("ABOUT_THE_ASSISTANT"), _FLAGS)
_ASKS_BY_A_PRONOUN = re.compile(language.alternation("ASKS_BY_A_PRONOUN"), _FLAGS)
_PLAN = re.compile(rf"^(?:{language.alternation('PLAN')})\b", _FLAGS)
_HABITUAL_PAST = re.compile(language.alternation("HABITUAL_PAST"), _FLAGS)
# The first stretch of a clause, up to a comma or a conjunction: what its subject does.
_FIRST_STRETCH = re.compile(r"^[^,;]*?(?=,|;|\s(?:and|but|so|e|ma|quindi)\s|$)", _FLAGS)
# A code right after the word that names it ("booking reference QX7RM2", "codice di conferma
# BK-5531902", "car reg: LK19 XFD"): at most two lowercase words between, and letters with digits or
# four digits at least, so a count ("order 2 more") is no code; typed lower case, a prefix joined by a hyphen
# ("invoice np-2291"); after "n." or "#" ("fattura n. 31/2025"); a plate in groups ("targato EX 219 RT").
_NAMED_CODE = re.compile(
    rf"(?:{language.alternation('CODE_NAMES')})(?:\s(?-i:[a-z]+)){{0,2}}:?\s(?:(?:n|no)\.\s?|#)?"
    r"(?:(?=[\w/-]*\d)(?=[\w/-]*[A-Za-z]|\d{4}|\d+/\d)(?:(?-i:[A-Z0-9])|(?-i:[a-z]{1,4})-\d)[\w/-]{3,}\b"
    r"|(?-i:[A-Z]{1,3})\s?\d{2,}(?:\s?(?-i:[A-Z]{1,3}))?\b)",
    _FLAGS,
)
# A sentence ends after a word; not after a title or an abbreviation ("Prof.", "dott.ssa", "n.",
# dotted initials as in "R.G. number").
_ABBREVIATION = re.compile(
    rf"(?:^|[\s'’])(?:(?-i:(?:[A-Z]\.)*[A-Z][a-z]{{0,3}})|[a-z]{{1,2}}|{language.alternation('TITLES')})\.$", _FLAGS
)
# Text quoted for a task ("summarise: 'The Ombudsman found …'") is someone else's words.
_QUOTED = re.compile(r"(?:(?<=^)|(?<=[\s:(]))(['\"“«‘])(?=\S).{12,}?\S(?:['\"”»’])(?=$|[\s.,;:!?)])", re.S)
# Openers that carry nothing: "oh", "also", "btw", "random one,", "and".
_OPENER = re.compile(rf"^(?:(?:{language.alternation('OPENERS')})\b[\s,.:;!-]*)+", _FLAGS)
# A request addressed to the assistant ("draft …", "scrivi …", "tips for …": ``gives_a_task``):
# its words are the task's, and only a naming in it ("to my editor, Gareth Pryce") states something.
_NAMING = [re.compile(p, _FLAGS) for p in language.patterns("NAMING")]
# Someone beyond the household ("my friend Jess", "mio genero Marco", "Mr. Doherty next door"):
# a naming of them, or a clause that opens on them, says their news, not the person's.
_FAR = re.compile(rf"\b(?:{language.alternation('FAR_RELATIONS')})\b", _FLAGS)
_OPENING = re.compile(r"^\W*(?:\S+\s+){0,4}")
_MEASURE = re.compile(language.alternation("MEASURES"), _FLAGS)
_THERE_IS = re.compile(rf"\b(?:{language.alternation('THERE_IS')})", _FLAGS)
# Someone beyond the household, or met through work ("a customer", "uno dei colleghi"): the subject of
# a clause about them (``_theirs``).
_BEYOND = re.compile(
    rf"^\W*(?:\S+\s+)?(?:{language.alternation('FAR_RELATIONS')}|{language.alternation('WORK_PEOPLE')})\b", _FLAGS
)
# A clause that opens on "he" or "she" says who they are only with the sentence before it.
_PRONOUN_FIRST = re.compile(rf"^\W*(?:{language.alternation('SUBJECT_PRONOUNS')})\b", _FLAGS)
# A day of the week ("tuesdays", "il martedì") or a date, with a clock time: something the person has
# on the calendar ("parents evening is thursday 14th nov at 4:40", "padel every Thursday at 20:00").
_WEEKDAY = re.compile(rf"\b(?:{language.word_alternatives('WEEKDAYS', 'WEEKDAY_SPELLINGS')})s?\b", _FLAGS)
_CLOCK = re.compile(language.alternation("CLOCK"), _FLAGS)
_BOOKED = re.compile(language.alternation("BOOKED"), _FLAGS)
_EXPIRES = re.compile(language.alternation("EXPIRES"), _FLAGS)
_DAY_OF_MONTH = re.compile(
    rf"\b\d{{1,2}}(?:{language.alternation('ORDINAL_SUFFIXES')})\b|\b(?:il|l'|dal|al)\s?\d{{1,2}}\b", _FLAGS
)
# A thing's value said plainly ("rent is 4900 nok a month"); a percentage is an opinion ("LinkedIn is 90% noise").
_ATTRIBUTE = re.compile(rf"(?:{language.alternation('ATTRIBUTE_OPENING')})(?:[€$£]\s?\d|\d(?![\d.,]*\s?%))", _FLAGS)
# A day that comes back every week, said of the person's own week ("i drive for the charity on wednesdays").
_RECURRING = re.compile(language.alternation("RECURRING_DAYS"), _FLAGS)
# A work meeting or a deadline on the calendar is a passing event of the job, not the person's.
_WORK_EVENT = re.compile(rf"\b(?:{language.alternation('WORK_EVENTS')})\b", _FLAGS)
# What a statement says happened to a thing ("pushed to may 13", "upped to 10mg", "ho sbagliato"): the
# change test's own cues (``memories.matching.change``).
_CHANGED = re.compile(rf"(?<![\w'])(?:{language.alternation('CHANGE_CUES')})(?![\w])", _FLAGS)
_OTHER_PERSON = re.compile(rf"\b(?:{language.alternation('OTHER_PEOPLE')})\b", _FLAGS)
# Cues that only say when or how sure ("now", "actually", "invece", "più"), and "new", which as often
# says a thing was bought ("ho ordinato una sedia nuova"): no change of a value on their own.
_ONLY_A_MARKER = re.compile(
    rf"(?:{language.alternation('CORRECTION_CUES')}|{language.alternation('MEMORY_FILLER_WORDS')}|pi[uù]|new|nuov[oaie])",
    _FLAGS,
)


def without_quoted(text: str) -> str:
    """``text`` without the passages it quotes for a task ("summarise: '…'"): someone else's words."""
    return _QUOTED.sub(" ", text or "")


def stated(sentence: str) -> str:
    """What ``sentence`` states of the person: '' for a request to the assistant that names no one
    ("update my LinkedIn headline, mention the company"; "draft a note to my editor, Gareth
    Pryce" names someone), else the sentence without its opinions and wishes ("my favourite
    is laksa, I'd have it every day if I could" keeps its first part; "I think gyms are
    designed to make you feel guilty" says nothing)."""
    if any(p.search(sentence) for p in _NAMING):
        return sentence
    if gives_a_task(sentence):
        return ""
    return ", ".join(x for x in _COMMA_PARTS.split(sentence) if x and not _no_fact_part(x))


def _no_fact_part(part: str) -> bool:
    """An opinion, a wish or a guess ("I think …", "maybe …"), or a premise ("if bowling is £160")."""
    return bool(_NOT_A_FACT.search(part) or _PREMISE.match(part))


def clauses(text: str) -> list[str]:
    """The sentences and colon-separated clauses of ``text``, quoted passages left out."""
    text = without_quoted(text)
    out: list[str] = []
    for part in _SENTENCES.split(text):
        part = part.strip()
        if not part:
            continue
        if out and _ABBREVIATION.search(out[-1]) and not out[-1].endswith(("?", "!")):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def stable_fact(text: str) -> str | None:
    """The clause of ``text`` that states a stable personal fact, ready to store; else None.

    A message that ends by asking about the person's own things ("… Qual è il mio piatto preferito?"), or
    by a pronoun for what it named ("… wants my Seniors Card number again. What is it?"), is a question,
    whatever it says before.
    """
    return _first_clause(text, changes=False)


def stated_change(text: str) -> str | None:
    """The clause of ``text`` that gives a thing's new value as a change ("padel moved to Wednesday",
    "hanno spostato statistica, ora è il 17 giugno"), when no clause is a stable fact; else None.

    Not a fact on its own: most such sentences are plans, other people's news or passing events
    ("dinner plan changed, it's now Sunday at 6"). It is stored only when it retires one of the
    person's memories (``memories.services.memory_remember``, ``only_if_it_replaces``), which the
    change test decides with the memories at hand.
    """
    return None if stable_fact(text) else _first_clause(text, changes=True)


def stated_correction(text: str) -> str | None:
    """A value given as a correction or an update of something said before, when no clause is a fact
    or a change: the cue in one clause and the value in the same or the next ("wait no, misread the
    email. it's 41782", "update: guests are now at 118"), the clauses from the cue to the value — and
    one more when that value is no whole number ("… not a 9. So it's 6330 1147 2280.").

    It is kept only as the correction of a memory drawn from the same conversation
    (``memory_remember``'s ``only_if_it_corrects``, ``memories.thread_evidence``).
    """
    return None if stable_fact(text) or stated_change(text) else _correction(text)


# Words of a person correcting or updating what they said ("wait no", "misread", "scusa", "update").
_CORRECTING = re.compile(rf"(?<![\w'’])(?:{language.alternation('SELF_CORRECTION')})(?!\w)", _FLAGS)


def corrects_itself(text: str) -> bool:
    """Whether ``text`` has a word of correcting or updating what was said ("I told you wrong", "sorry
    … it's 40863", "scusa, l'ho scritto male"): a correction that says no change ("moved", "now")."""
    return bool(_CORRECTING.search(text))


# A value: a number or code, a day, a name past a sentence's first word.
_A_VALUE = re.compile(rf"\d|{_WEEKDAY.pattern}|(?<![.!?:]\s)(?<!^)\b(?!I\b)(?-i:[A-Z][a-zà-ÿ]+)")


def _correction(text: str) -> str | None:
    """The clauses of ``text`` from a word of correcting oneself to the value it gives (``stated_correction``)."""
    parts = clauses(text)
    if not parts or gives_a_task(parts[0]) or _WORK_EVENT.search(text):
        return None
    for i, part in enumerate(parts):
        cue = _CORRECTING.search(part)
        if cue is None or asks(part) or _FAR.search(part) or _OTHER_PERSON.search(part[: cue.start()]):
            continue
        for j in (i, i + 1):
            if j < len(parts) and _gives_a_value(parts[j]):
                # The value often comes a clause after what it is of ("I told you wrong about Chloe's
                # birthday. It's the 14th of June, not the 4th."; "The last figure is a 0, not a 9.
                # So it's 6330 1147 2280."): a clause without a whole number takes the next that has one.
                whole = re.search(r"\d\w", stated(parts[j]))
                more = not whole and j + 1 < len(parts) and j + 1 <= i + 2 and _gives_a_number(parts[j + 1])
                end = j + 1 if more else j
                return _memory_text(" ".join(parts[i : end + 1]))
    return None


def _gives_a_value(part: str) -> bool:
    return not asks(part) and bool(_A_VALUE.search(stated(part)))


def _gives_a_number(part: str) -> bool:
    return not asks(part) and bool(re.search(r"\d", stated(part)))


def _first_clause(text: str, *, changes: bool) -> str | None:
    """The first clause of ``text`` that states a fact by the plain rules (or, with ``changes``, a new value)."""
    parts = clauses(text)
    if parts and parts[-1].endswith("?") and _POSSESSIVE.search(parts[-1]) and not gives_a_task(parts[-1]):
        return None
    if len(parts) > 1 and _ASKS_BY_A_PRONOUN.fullmatch(_OPENER.sub("", parts[-1])):
        return None
    request = bool(parts) and bool(gives_a_task(parts[0]))
    work = bool(_WORK_EVENT.search(text))
    for i, part in enumerate(parts):
        if asks(part) and not (gives_a_task(part) and _names_someone_close(part)):
            # A question states nothing, with its question mark or without ("how do i run just that
            # one test file"); a request does when it names someone ("can you write to Dana
            # Whitfield, she's my landlord, …?").
            continue
        # A request's words are the task's up to its question mark; what follows is the person's.
        request = request and not any(p.endswith("?") for p in parts[:i])
        if _about_the_chat(part) or (
            i and _PRONOUN_FIRST.match(part) and (asks(parts[i - 1]) or _remembered(parts[i - 1]))
        ):
            # How the person came to the assistant is small talk; "he's nine" after "how do I stop
            # Biscuit pulling?" is the question's detail, "she'd get cream …" after a memory is the memory.
            continue
        if not changes and _premise_of_a_question(text, parts, i):
            continue
        stated = [x for x in _COMMA_PARTS.split(part) if x and not _no_fact_part(x)]
        if len(stated) < len(_COMMA_PARTS.split(part)):
            # An opinion or a guess beside a fact: the parts without it, together, state what there is
            # ("booked the dentist, Thursday the 14th at 9:30, which is maybe dumb").
            part = ", ".join(stated)
        if part and (_change_in if changes else _fact_in)(part, request=request, work=work):
            # "Tomás just got home. he's my partner": the memory keeps who "he" is.
            return _memory_text(f"{parts[i - 1]} {part}" if i and _PRONOUN_FIRST.match(part) else part)
    return None


def _plan(part: str) -> bool:
    """A plan said first ("will test tomorrow", "I'll ask her if …") without an identifier: what the
    person means to do, not how things are."""
    said = _OPENER.sub("", part)
    return bool(_PLAN.match(said)) and not _holds_an_identifier(said)


def _remembered(part: str) -> bool:
    """A habit of the past ("Ron would buy her a bun", "our daughter Lynn would only go in"), without an
    identifier: a memory told, a naming in it included."""
    return bool(_HABITUAL_PAST.search(part)) and not _holds_an_identifier(part)


def _about_the_chat(part: str) -> bool:
    """Whether the clause's first stretch is about this chat ("my grandson Liam has put this on my phone")."""
    first = _FIRST_STRETCH.match(part)
    return bool(first and _ABOUT_THE_ASSISTANT.search(first.group(0)))


def _premise_of_a_question(text: str, parts: list[str], i: int) -> bool:
    """A value that the same sentence goes on to ask about after a comma ("the job is 8,450 words,
    what does that come to?"): what the question works with. A naming or a stable fact there is
    still the person's ("I can't eat eggs, what cake …?")."""
    if i + 1 >= len(parts) or not asks(parts[i + 1]):
        return False
    if not re.search(rf"{re.escape(parts[i])},\s+{re.escape(parts[i + 1][:12])}", text):
        return False
    return not (_names_someone_close(parts[i]) or _states_a_fact(parts[i]))


def _fact_in(part: str, *, request: bool, work: bool) -> bool:
    """A naming states a fact anywhere; the other shapes only outside a request to the assistant, and
    a date or a value only in a message that is not about work meetings or deadlines."""
    if _remembered(part):
        return False
    if _names_someone_close(part):
        return True
    if request or _plan(part) or _theirs(part):
        return False
    return _states_a_fact(part) or (not work and (_on_the_calendar(part) or _valued(part)))


def _theirs(part: str) -> bool:
    """A clause whose subject is someone beyond the household, said in its first two words and without the
    person in its first stretch ("zia Teresa è allergica alla frutta secca", "one of the nurses is allergic",
    "a customer's order is …"): their fact, whatever its shape ("a customer asked if we have …" stays)."""
    said = _OPENER.sub("", part)
    first = _FIRST_STRETCH.match(said)
    stretch = first.group(0) if first else said
    return bool(_BEYOND.match(stretch)) and not _FIRST_PERSON.search(stretch)


def _change_in(part: str, *, request: bool, work: bool) -> bool:
    """A new value said as a change, outside a request to the assistant and a message about work meetings."""
    return not request and not work and _changed_value(part)


def _names_someone_close(part: str) -> bool:
    """A naming of someone in the person's own life, in a clause that is not about someone beyond it (in
    its first words, or in the three words before the naming: "uno dei nipoti si chiama Kevin"), nor of
    something there is ("there's a lurcher called Biscuit at the rescue")."""
    opening = _OPENING.match(part)
    if opening and _FAR.search(opening.group(0)):
        return False
    return any(
        not _FAR.search(m.group(0))
        and not _FAR.search(" ".join(part[: m.start()].split()[-3:]))
        and not _THERE_IS.search(f"{' '.join(part[: m.start()].split()[-4:])} {m.group(0)}")
        for p in _NAMING
        for m in p.finditer(part)
    )


def _states_a_fact(clause: str) -> bool:
    clause = _OPENER.sub("", clause)
    if any(p.search(clause) for p in _STABLE):
        return True
    return bool(_RECURRING.search(clause) and _FIRST_PERSON.search(clause)) or _holds_an_identifier(clause)


def _valued(clause: str) -> bool:
    """A thing's value said plainly at the start of a clause: "rent is 4900 nok a month", "budget is 900";
    not a length or a size ("the porch is 6 feet wide"), which is given to work something out with."""
    return bool(_ATTRIBUTE.search(_OPENER.sub("", clause))) and not _MEASURE.search(clause)


def _changed_value(clause: str) -> bool:
    """A thing's new value said as a change ("they've changed the rota, its 4 on 3 off", "hanno spostato
    statistica, ora è il 17 giugno"): a correction, kept if the change test finds the old value it retires."""
    if _FAR.search(clause):
        return False
    cue = change_cue(clause)
    # Someone named before what happened ("my colleague jess got engaged"): their news, not the person's.
    if cue is None or _OTHER_PERSON.search(clause[: cue.start()]):
        return False
    return bool(re.search(r"\d", clause) or _WEEKDAY.search(clause))


def change_cue(text: str) -> re.Match[str] | None:
    """The first change cue of ``text`` that says something happened to a thing ("moved", "switched",
    "ho sbagliato"), not only when or how sure ("now", "actually", "più")."""
    return next((m for m in _CHANGED.finditer(text) if not _ONLY_A_MARKER.fullmatch(m.group(0))), None)


def _on_the_calendar(clause: str) -> bool:
    """An appointment with its day or time ("the dentist Thursday"), a day and a clock time said
    together, whatever the thing is called (a class, a match, a parents evening), or something
    booked, or that expires or renews, with its date ("la mia patente scade il 14 marzo")."""
    if _CLOCK.search(clause) and (_WEEKDAY.search(clause) or has_date(clause)):
        return True
    if (_BOOKED.search(clause) or _EXPIRES.search(clause)) and _dated(clause):
        return True
    return bool(_APPOINTMENT.search(clause)) and bool(_WHEN.search(clause) or _dated(clause))


def _holds_an_identifier(clause: str) -> bool:
    """An identifier of the person's, said as one: "my order number is A-7781", "plate 842 KTM" of my van."""
    word = _IDENTIFIER_WORD.search(clause)
    if not word or _OTHERS.search(clause[: word.end()]):
        return False
    if _STATED_CODE.search(clause, word.start()) or _NAMED_CODE.search(clause, word.start()):
        return True
    code = re.search(_CODE, clause[word.end() :])
    # Two digits after "my licence" are a place in a queue ("renewing my license, number 62"), not its number.
    return bool(_POSSESSIVE.search(clause[: word.start()]) and code and len(code.group(0)) > 2)


def _dated(clause: str) -> bool:
    """A date, a clock time or a day of the month ("the 14th", "il 9"): a bare number ("ESAME PASSATO 28!") is none."""
    return has_date(clause) or bool(_CLOCK.search(clause) or _DAY_OF_MONTH.search(clause))


def _memory_text(sentence: str) -> str:
    """The clause without openers, at most ``MAX_CHARS``, cut at a clause if longer."""
    text = _OPENER.sub("", sentence).strip(" ,;:-")
    text = text[:1].upper() + text[1:]
    if len(text) <= MAX_CHARS:
        return text
    cut = max(text.rfind(sep, 0, MAX_CHARS) for sep in (", ", " - ", " so ", " but ", " and "))
    return (text[:cut] if cut > 40 else text[: MAX_CHARS - 1]).rstrip(" ,;:-")
