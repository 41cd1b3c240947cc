"""The vocabulary of the statement grammar, kept apart from the rules.

The words are in ``liamemory.language`` (one module per language, see its ``en`` for what
each table is); this module joins every language's. Adding a word there is the usual way
to teach the rule a new attribute, diet, job or synonym; ``python -m bench.contradictions``
says whether it helped.
"""

from __future__ import annotations

import re

from liamemory import language

EDGE_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’"

# Words that negate a statement on their own.
NEGATIONS = language.union("NEGATIONS")

# Change or correction cues; removed before parsing, remembered in ``Claim.correction``.
CUES = list(language.patterns("CORRECTION_CUES"))

# Canonical attribute names for "my X is …" (every language's spellings and synonyms).
ATTRIBUTE_ALIASES: dict[str, str] = language.table("ATTRIBUTE_ALIASES")

# "X preferito" (a noun, then the words that make it a favourite) is "favourite X".
ITALIAN_FAVOURITE = re.compile(rf"^(.+?) (?:{language.alternation('FAVOURITE_AFTER')})$")

# The nouns of favourites, in the slot's words.
ITALIAN_NOUNS: dict[str, str] = language.table("FAVOURITE_NOUNS")

# One spelling per word.
EN_SPELLINGS: dict[str, str] = language.table("SPELLINGS")

# Adjectives that say "which version", not "which attribute".
ATTRIBUTE_QUALIFIERS = re.compile(rf"\b(?:{language.alternation('ATTRIBUTE_QUALIFIERS')})\b")

# Slots that hold several values at once: a second value is news, not a correction.
# (Slot names, in the slot vocabulary: no language's words.)
MULTI_VALUED = frozenset({
    "allergy", "aunt", "brother", "cat", "child", "colleague", "cousin", "daughter", "dog", "friend", "grandchild",
    "granddaughter", "grandson", "hobby", "language", "nephew", "niece", "pet", "prefer", "sister", "son", "uncle",
})  # fmt: skip

# Change verbs and adjectives in the statement itself are cues too ("my new manager").
CHANGE_WORDS = re.compile(rf"\b(?:{language.alternation('CHANGE_WORDS')})\b")

# "I am X" where X is a diet, a marital status, a job, a faith ("" matches every value), a chronotype.
DIET: dict[str, str] = language.table("DIETS")
MARITAL: dict[str, str] = language.table("MARITAL_STATUSES")
OCCUPATIONS = language.union("OCCUPATIONS")
RELIGION: dict[str, str] = language.table("FAITHS")
CHRONOTYPE: dict[str, str] = language.table("CHRONOTYPES")

# "I have two kids": counts in words.
NUMBER_WORDS = {word: str(number) for word, number in language.table("NUMBER_WORDS").items()}

# Irregular plurals and nouns of counted things, in the singular of the slot's words.
PLURALS: dict[str, str] = language.table("PLURALS")
