"""The statement grammar's patterns, compiled for it from every language's words (no logic).

``memories.matching.grammar`` reads statements with them. The shape of each rule is here;
the words that fill it are each language's ``CLAIM_GRAMMAR`` entry of the same name
(``liamemory.language``), joined.
"""

from __future__ import annotations

import re

from liamemory import language
from memories.matching.words import CUES


def _g(key: str) -> str:
    """Every language's words for ``key`` of the grammar, as regex alternatives."""
    return language.entry_alternation("CLAIM_GRAMMAR", key)


# The speaker as the optional subject ("i ", "io "), and "have" as an auxiliary.
_I = rf"(?:(?:{_g('subject')}) )?"
_HAVE = rf"(?:(?:{_g('have')}) )?"

CONTRACTIONS = list(language.table("CONTRACTIONS").items())


# Third person ("what the agent wrote about the user") read as the first.
THIRD_PERSON = list(language.table("THIRD_PERSON").items())


LEADING_FILLERS = re.compile(rf"^(?:{_g('filler')}|{_g('correcting_opener')})\b[\s,:;!-]*")


# Opening words that say the speaker is correcting something.
CORRECTING_OPENERS = re.compile(rf"^(?:{_g('correcting_opener')})\b")


# Adverbs between the subject and the verb that change nothing of the claim.
ADVERBS = re.compile(rf"^({_I}{_HAVE})(?:{_g('steady_adverb')}) ")


# Change or correction cues; removed before parsing, remembered in ``Claim.correction``.
CUE_RE = re.compile(r"(?:^|(?<=[\s,]))(?:" + "|".join(CUES) + r")(?=$|[\s,.!;:])")


NEGATION_PHRASES = list(language.table("NEGATION_PHRASES").items())


SOFTENERS = re.compile(rf"\b(?:{_g('softener')})\b")


ARTICLES = re.compile(rf"^(?:{_g('article')})\s*(?<=\s|')")


WORK_PLACE_PREPOSITIONS = language.union("WORK_PLACE_PREPOSITIONS")


# (shape of the rule, its handler): each rule that some language fills. Verb alternations
# include third-person forms so that agents' "the user lives in …" reads the same.
_RULES = [
    (rf"^{_I}(?:{_g('marital_verb')}) (?P<v>{_g('marital_value')})(?: .*)?$", ("marital_verb",), "marital"),
    (rf"^{_I}(?:{_g('household_verb')}) (?P<v>{_g('household_value')})$", ("household_verb",), "household"),
    (rf"^(?:{_g('name_intro')}) (?P<v>.+)$", ("name_intro",), "name"),
    (
        rf"^{_I}(?:{_g('residence_verb')}) (?:{_g('residence_preposition')}) (?P<v>.+)$",
        ("residence_verb",),
        "residence",
    ),
    (rf"^{_I}(?:{_g('born_verb')}) (?P<p>{_g('born_preposition')}) (?P<v>.+)$", ("born_verb",), "born"),
    (rf"^{_I}(?:{_g('work_verb')}) (?P<p>{_g('work_preposition')}) (?P<v>.+)$", ("work_verb",), "work"),
    (rf"^{_I}(?:{_g('employer_verb')}) (?P<v>.+)$", ("employer_verb",), "employer"),
    (rf"^(?:{_g('occupation_intro')}) ?(?P<v>.+)$", ("occupation_intro",), "occupation"),
    (rf"^{_I}(?:{_g('have')}) (?P<v>\d+) (?:{_g('age_unit')})$", ("have",), "age"),
    (
        rf"^{_I}(?:{_g('count_verb')}) (?P<n>\d+|{_g('count_word')})(?: |(?<='))(?P<o>\w+)(?: (?P<rest>.+))?$",
        ("count_verb",),
        "have",
    ),
    (rf"^{_I}(?:{_g('eat_verb')}) (?P<v>{_g('eaten_food')})(?: .*)?$", ("eat_verb",), "eats"),
    (rf"^{_I}(?:{_g('own_verb')}) (?:{_g('own_determiner')}) ?(?P<o>[\w]+)$", ("own_verb",), "have_the"),
    (rf"^{_I}(?:{_g('commute')})$", ("commute",), "commute"),
    (rf"^{_I}(?:{_g('drive_verb')})(?: (?P<v>.+))?$", ("drive_verb",), "car"),
    (rf"^{_I}(?:{_g('turned_verb')}) (?P<v>\d+)(?: .*)?$", ("turned_verb",), "age"),
    (rf"^{_I}(?:{_g('retire')})(?: .*)?$", ("retire",), "retired"),
    (rf"^{_I}(?P<verb>{_g('like_verb')}) (?P<v>.+)$", ("like_verb",), "like"),
    (rf"^{_I}(?:{_g('prefer_verb')}) (?P<v>.+)$", ("prefer_verb",), "prefer"),
    (rf"^{_I}(?:{_g('speak_verb')}) (?P<v>.+)$", ("speak_verb",), "language"),
    (rf"^{_I}(?:{_g('support_verb')}) (?P<v>.+)$", ("support_verb",), "team"),
    (rf"^{_I}(?:{_g('be_verb')}) (?P<v>.+)$", ("be_verb",), "being"),
]
# Each rule: (pattern on the normalized statement, handler name), in order.
RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(shape), kind) for shape, needs, kind in _RULES if all(_g(key) for key in needs)
]

_ARTICLE = rf"(?:(?:{_g('possessive_article')}) )?" if _g("possessive_article") else ""

POSSESSIVE = re.compile(rf"^{_ARTICLE}(?:{_g('my_or_our')}) (?P<a>[^,]+?) (?:{_g('possessive_copula')}) (?P<v>.+)$")


# "the order number is B-1200": only attributes one owns a single value of.
DEFINITE = re.compile(
    rf"^(?:{_g('definite_article')}) ?(?P<a>[^,]*?(?:{_g('identifier_noun')})[^,]*?) (?:{_g('definite_copula')})"
    r" (?P<v>.+)$"
)


POSSESSIVE_COLON = re.compile(rf"^{_ARTICLE}(?:{_g('my')}) (?P<a>[^:,]+?)\s*: (?P<v>.+)$")


INVERTED = re.compile(rf"^(?P<v>[^,]+?) (?:{_g('inverted_copula')}) {_ARTICLE}(?:{_g('my')}) (?P<a>[^,]+)$")


# "my sister lives in Rome": a relative's own fact, kept apart from the user's.
ENTITY_SUBJECT = re.compile(rf"^{_ARTICLE}(?:{_g('my')}) (?P<e>[a-z]+(?: [a-z]+)?) (?=(?:{_g('entity_verb')})\b)")


# The last readings of a statement: a first-person verb opening it, in Italian ("bevo",
# "fumo", "gioco a", the pronoun optional) or in English ("i smoke").
IT_VERB = re.compile(r"^(?:io )?(?P<verb>[a-zà-ù]{3,}o) ?(?P<v>.*)$")


EN_VERB = re.compile(r"^i (?P<verb>[a-z]+) ?(?P<v>.*)$")


NOT_VERBS = language.union("NOT_VERBS")


HATE = re.compile(rf"^{_I}(?:{_g('hate_verb')})\b")


STOPPED = re.compile(rf"^{_I}{_HAVE}(?:{_g('stop_verb')}) (?P<verb>[a-z]+) ?(?P<rest>.*)$")


LEFT = re.compile(rf"^{_I}{_HAVE}(?:{_g('leave_verb')}) (?:{_g('left_job')})?(?P<v>.+?)(?: (?:{_g('left_tail')}) .+)?$")


SOLD = re.compile(rf"^{_I}{_HAVE}(?:{_g('sell_verb')}) (?:{_g('sold_determiner')})?(?P<o>[\w']+)")


CLAUSE_SPLIT = re.compile(rf"\s*(?:[,;]|\b(?:{_g('conjunction')})\b)\s+")
