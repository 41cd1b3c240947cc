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
