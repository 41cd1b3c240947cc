"""English words and patterns used by the heuristics (see the package docstring)."""

# Replies that carry no information (a refusal, "I don't know", nothing found): an
# excerpt of one is filler (``conversations.informative``). Regex alternatives, matched
# at the start of a reply's sentences, case-insensitive.
NO_INFORMATION = (
    r"i (?:do not|don't|dont) (?:have|know|recall|remember)\b",
    r"i (?:have|had) no (?:information|idea|record)\b",
    r"i (?:could not|couldn't|cannot|can't|am unable to|'m unable to|am not able to)"
    r" (?:find|see|recall|remember|help|tell|say|answer|access)\b",
    r"i(?:'m| am) (?:not sure|afraid i|sorry,? (?:but )?i)\b",
    r"(?:sorry|unfortunately),? (?:but )?i\b",
    r"there is nothing\b|nothing (?:was )?found\b|no (?:information|results?|record)\b",
    r"i can keep notes for you\b",
)
# Words that only carry the grammar of a sentence: what is left of a reply once they go
# is what it says. Also the words of acknowledging and asking ("noted", "asked").
FUNCTION_WORDS = frozenset(
    """
    a about above after again all am an and any are as at be because been before being both but by can could
    did do does doing done don't dont for from had has have having he her here hers him his how i i'm i've
    i'll i'd if in into is isn't it it's its just let me more most my myself no not now of off on once only or
    other our ours out over own same she should so some such than that that's the their them then there these
    they this those through to too under until up very was we were what what's when where which while who whom
    whose why will with would you your yours yourself you're you've yes yeah ok okay oh hi hello hey please
    thanks thank also really sure right well got noted note asked ask asking question said say tell told
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# A stable personal fact said in passing: the offline model stores the sentence with
# its remember tool, as the real model is instructed to (``usecases.turn.offline_facts``).
# Each is a regex, case-insensitive except where a name must be capitalised ((?-i:...)).
_KIN = (
    r"wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|sister|brother|mum|mom|mother|dad|father|son|daughter"
    r"|kid|baby|boss|manager|niece|nephew|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|best friend"
    r"|flatmate|roommate|landlord|landlady|neighbour|neighbor|doctor|dentist|gp|vet|cat|dog|puppy|kitten|pet"
    r"|rabbit|hamster|parrot|horse|tortoise|fish"
)
STABLE_FACT = (
    r"\bi(?:'m|’m| am|m) (?:severely |very |badly )?allergic\b|\b(?:an? )?allerg(?:y|ies) to\b",
    r"\bi (?:work|have worked|'ve worked|’ve worked) (?:at|for|in|as|on)\b",
    r"\bi (?:own|run|rent|manage|teach at|study at|do shifts at|volunteer at)\b",
    r"\bi(?:'m|’m| am|m)? (?:leaving|joining|starting at|quitting|retiring from) (?-i:[A-Z])",
    r"\bi (?:left|joined|quit) (?-i:[A-Z])",
    r"\bi(?:'m|’m| am|m) retired\b",
    r"\bi(?:'m|’m| am|m) (?:a|an) (?!bit\b|little\b|lot\b|fan\b|huge\b|big fan\b)[a-z]+(?: [a-z]+)? (?:at|on|in|for)\b",
    r"\bi (?:live|have lived|'ve lived|moved|have moved|'ve moved|am moving|'m moving|grew up) (?:in|to|here|from)\b",
    r"\b(?:is|'s|’s|was|are|were) (?:called|named) (?-i:[A-Z])",
    r"\b(?:i|we) (?:own|have|run|got|adopted) (?:a|an|our|my) (?:[a-z]+ ){0,2}(?:called|named) (?-i:[A-Z])",
    r"\b(?:we|i)(?:'re|’re| are|'m|’m| am)? (?:renting|living|based|staying) (?:[a-z]+ ){0,3}in (?-i:[A-Z])",
    r"\bhere in (?-i:[A-Z][a-z]+)",
    r"\bmy (?:all[- ]time |absolute )?fav(?:ou?rite)?\b",
    r"\brenamed (?:\w+ ){0,2}(?-i:[A-Z])",
    rf"\b(?:my|our) (?:\w+ )?(?:{_KIN})(?:'s|’s)? (?:name is |is called |is )?(?-i:[A-Z][a-z]+)",
    r"\b(?:my|our) (?:new |old )?(?-i:[a-z]+) (?:is )?(?-i:[A-Z][a-z]+)",
    rf"(?-i:[A-Z][a-z]+),? \(?(?:my|our) (?:\w+ )?(?:{_KIN})\b",
    r"\b(?:my|our) (?:birthday|anniversary|wedding)\b",
    r"\bi(?:'m|’m| am|m) (?:a )?(?:vegetarian|vegan|pescatarian|diabetic|coeliac|celiac|lactose intolerant)\b",
    r"\bi (?:can't|cannot|can’t|don't|don’t) eat\b",
)
# An appointment or an identifier: a word for the thing, and beside it a date, a time or
# a code (``conversations.facts``) — "the dentist is Thursday at 9:15", "invoice INV-2231".
APPOINTMENT = (
    r"\b(?:appointment|appt|dentist|doctor|gp|check-?up|meeting|interview|flight|exam|surgery|scan|vet|hairdresser"
    r"|haircut|physio|therapy|therapist|booking|reservation|deadline|court date)\b"
)
IDENTIFIER = (
    r"\b(?:number|no\.|code|id|invoice|order|booking|reservation|reference|ref|ticket|account|policy|plate"
    r"|registration|pin|passport|licen[cs]e|membership|tracking|serial|iban|postcode|zip|car|van|mine's|mine’s)\b"
)
# A date with its time ("Friday at 3pm", "April 10 at 2pm") said about oneself is an
# appointment, whatever it is called.
FIRST_PERSON = r"\b(?:i|i'm|i’m|im|i've|i’ve|my|we|we're|we’re|our|me)\b"
CLOCK = r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b"
# Not a stable fact about the person: an opinion, a hypothesis, a wish.
NOT_A_FACT = (
    r"\b(?:i think|i feel like|i guess|i reckon|imo|in my opinion|i love|i hate|i like|i prefer|i refuse|overrated"
    r"|underrated|if i|would you|should i|i wish|i wonder)\b"
)
WEEKDAYS_MONTHS = (
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august"
    r"|september|october|november|december|tomorrow|next week)\b"
)
# Words of asking, not of what is asked about: left out when a question is matched
# against what the context holds ("what's my dog's name again?" is about "dog").
ASKING_WORDS = frozenset(
    """
    name names called call remind remember recall again tell know said say mentioned mention exactly already
    anyway quick one quickly actually before forget forgot think wait gonna want need
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# What a new statement says happened to an older fact: a change, an end, a correction, a
# negation. Regex alternatives matched on word boundaries, lowercased
# (``memories.matching.change``). General verbs and markers of change, not phrasings of one slot.
CHANGE_CUES = (
    r"no longer|not any ?more|any ?more|any longer|from now on|as of (?:now|today)|these days|nowadays",
    r"now|instead|actually|in fact|after all|turns out|not \S+ but|rather than|, not\b",
    r"(?:have |has |had |just )?(?:moved|relocated|switched|changed|swapped|replaced|updated|upgraded)",
    r"(?:got|found|started|landed|took|have) (?:a )?new|new (?:job|one|number|address|email|phone)",
    r"sold|gave away|cancell?ed|called off|quit|stopped|gave up|left|resigned|retired|graduated|finished",
    r"broke up|split up|divorced|separated|got married|married|engaged|passed away|died|lost",
    r"raised|increased|reduced|lowered|cut|doubled|halved|went up|went down|put (?:\w+ ){0,2}up|bumped",
    r"from next \w+|starting (?:next|from) \w+",
    r"postponed|rescheduled|pushed back|brought forward|delayed|got moved|was moved|been moved",
    r"turned|became|become|is over|ended|closed|expired|dropped|ditched|fired|laid off",
)

# A statement about someone else, or one more item beside the older one: not a change of it.
OTHER_PEOPLE = (
    r"wife|husband|partner's|brother|sister|mother|father|mum|mom|dad|parents|son|daughter|kids'|friend"
    r"|colleague|boss|neighbou?r|cousin|uncle|aunt|grandma|grandpa|grandmother|grandfather|in-laws"
)
ADDITIVE = r"also|too|as well|another|second|in addition|besides|plus|for a conference|for a trip|visiting"

# Words a memory does not need: the talk around the fact (``memories.text``).
MEMORY_FILLER_PREFIXES = (
    r"(?:please )?(?:remember|note|keep in mind|don't forget|do not forget|for the record|fyi|just so you know)"
    r"(?: that)?[:,]?",
    r"(?:by the way|btw|oh|well|so|ok|okay|also|actually|in fact)[,:]?",
)
# Removed anywhere: the talk of the moment, not the fact ("from now on" is the memory's nature).
MEMORY_FILLER_WORDS = (
    r"actually|in fact|just so you know|by the way|btw|from now on|as of (?:now|today)|right now|for now"
    r"|at the moment|these days|nowadays|currently|now"
)
# The speaker, or the user named in the third person (memories are written both ways).
SELF = r"i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us|the user|user's|the user's"
# Cues of an end: they change a fact even when the sentence is about the thing itself
# ("Max passed away", "the yoga class was cancelled").
END_CUES = (
    r"no longer|not any ?more|any ?more|sold|gave away|cancell?ed|called off|passed away|died|is over|ended"
    r"|closed|expired|broke up|split up|turned \d+|postponed|rescheduled|got moved|was moved|been moved|moved to"
)
