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


# The last readings of a statement: a first-person verb opening it ("i smoke", "bevo",
# "gioco a"), in each language that has one, in language order: (its pattern, the
# ending its third person drops or None, the words after the subject that are no verb).
FIRST_PERSON_VERBS: list[tuple[re.Pattern[str], re.Pattern[str] | None, frozenset[str]]] = [
    (
        re.compile(source),
        re.compile(ending) if (ending := language.words(lang).CLAIM_GRAMMAR["third_person_ending"]) else None,
        language.words(lang).NOT_VERBS,
    )
    for lang, source in language.entries("CLAIM_GRAMMAR", "first_person_verb").items()
]


HATE = re.compile(rf"^{_I}(?:{_g('hate_verb')})\b")


STOPPED = re.compile(rf"^{_I}{_HAVE}(?:{_g('stop_verb')}) (?P<verb>[a-z]+) ?(?P<rest>.*)$")


LEFT = re.compile(rf"^{_I}{_HAVE}(?:{_g('leave_verb')}) (?:{_g('left_job')})?(?P<v>.+?)(?: (?:{_g('left_tail')}) .+)?$")


SOLD = re.compile(rf"^{_I}{_HAVE}(?:{_g('sell_verb')}) (?:{_g('sold_determiner')})?(?P<o>[\w']+)")


CLAUSE_SPLIT = re.compile(rf"\s*(?:[,;]|\b(?:{_g('conjunction')})\b)\s+")


# A pattern that never matches: what a rule becomes when no language fills its words.
NEVER = re.compile(r"(?!)")


def _filled(shape: str, *keys: str) -> re.Pattern[str]:
    """``shape`` compiled, or ``NEVER`` when no language fills one of ``keys``."""
    return re.compile(shape) if all(_g(key) for key in keys) else NEVER


# The steps of reading a statement and its value (``memories.matching.grammar``).
VALUE_INTRO = _filled(rf"^(?:{_g('value_intro')})\s+", "value_intro")
ATTRIBUTE_ARTICLE = _filled(rf"^(?:{_g('attribute_article')})\s*", "attribute_article")
NAME_SUFFIX = _filled(rf"(?:{_g('name_suffix')})$", "name_suffix")
NAME_OF = _filled(rf"^(?:{_g('name_of')})", "name_of")
NAME_ATTRIBUTES = frozenset(language.patterns("NAME_ATTRIBUTES"))
_AGE_AFTER = rf"(?: (?:{_g('age_after')}))?" if _g("age_after") else ""
_AGE_UNIT = rf"(?: (?:{_g('age_word')}){_AGE_AFTER})?" if _g("age_word") else ""
AGE = re.compile(rf"^(\d+){_AGE_UNIT}$")
MARRIED_TO = _filled(rf"^({_g('married_to')}) (?:{_g('married_preposition')}) .+$", "married_to", "married_preposition")
ORIGIN = _filled(rf"^(?:{_g('origin_intro')}) (.+)$", "origin_intro")
ALLERGY = _filled(
    rf"^(?:{_g('allergy_word')}) (?:{_g('allergy_preposition')}) (.+)$", "allergy_word", "allergy_preposition"
)
BASED_IN = _filled(rf"^(?:{_g('based_in')}) (.+)$", "based_in")
BORN_IN = _filled(
    rf"^(?:{_g('born_word')}) (?:{_g('born_place_preposition')}) (.+)$", "born_word", "born_place_preposition"
)
GERUND = _filled(rf"^({_g('gerund')}) ?(.*)$", "gerund")
ALONE = _filled(rf"^(?:{_g('alone')})$", "alone")
NO_DETERMINER = _filled(rf"^({_I}(?:{_g('have')})) (?:{_g('no_determiner')}) ", "have", "no_determiner")
AUXILIARY_DROPS = list(language.table("AUXILIARY_DROPS").items())
SUBJECTLESS_VERB = _filled(rf"^(?:{_g('subjectless_verb')}) ", "subjectless_verb")
STILL = _filled(rf" (?:{_g('still')}) ", "still")
BORN_ON_PREPOSITIONS = language.union("BORN_ON_PREPOSITIONS")
WORK_AS_PREPOSITIONS = language.union("WORK_AS_PREPOSITIONS")
WORK_FIELD_PREPOSITIONS = language.union("WORK_FIELD_PREPOSITIONS")
COMMUTE_MEANS: dict[str, str] = language.table("COMMUTE_MEANS")
COMMUTE_DROPPED = language.patterns("COMMUTE_DROPPED")
PESCATARIAN_FOODS = language.union("PESCATARIAN_FOODS")
# Every language's verb endings, the longest first (a stable sort: language order within a length).
VERB_SUFFIXES = tuple(sorted(language.patterns("VERB_SUFFIXES"), key=len, reverse=True))
LIKE_STEMS = language.union("LIKE_STEMS")
PLURAL_ENDINGS = [(re.compile(ending), singular) for ending, singular in language.table("PLURAL_ENDINGS").items()]
