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
