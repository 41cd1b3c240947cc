"""The statement grammar: what a short statement is about (its claim), English and Italian.

See ``memories.matching`` for how two claims are compared.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from memories.matching.patterns import (
    ADVERBS,
    AGE,
    ALLERGY,
    ALONE,
    ARTICLES,
    ATTRIBUTE_ARTICLE,
    AUXILIARY_DROPS,
    BASED_IN,
    BORN_IN,
    BORN_ON_PREPOSITIONS,
    CLAUSE_SPLIT,
    COMMUTE_DROPPED,
    COMMUTE_MEANS,
    CONTRACTIONS,
    CORRECTING_OPENERS,
    CUE_RE,
    DEFINITE,
    ENTITY_SUBJECT,
    FIRST_PERSON_VERBS,
    GERUND,
    HATE,
    INVERTED,
    LEADING_FILLERS,
    LEFT,
    LIKE_STEMS,
    MARRIED_TO,
    NAME_ATTRIBUTES,
    NAME_OF,
    NAME_SUFFIX,
    NEGATION_PHRASES,
    NO_DETERMINER,
    ORIGIN,
    PESCATARIAN_FOODS,
    PLURAL_ENDINGS,
    POSSESSIVE,
    POSSESSIVE_COLON,
    RULES,
    SOFTENERS,
    SOLD,
    STILL,
    STOPPED,
    SUBJECTLESS_VERB,
    THIRD_PERSON,
    VALUE_INTRO,
    VERB_SUFFIXES,
    WORK_AS_PREPOSITIONS,
    WORK_FIELD_PREPOSITIONS,
    WORK_PLACE_PREPOSITIONS,
)
from memories.matching.words import (
    ATTRIBUTE_ALIASES,
    ATTRIBUTE_QUALIFIERS,
    CHANGE_WORDS,
    CHRONOTYPE,
    DIET,
    EDGE_PUNCTUATION,
    EN_SPELLINGS,
    ITALIAN_FAVOURITE,
    ITALIAN_NOUNS,
    MARITAL,
    MULTI_VALUED,
    NUMBER_WORDS,
    OCCUPATIONS,
    PLURALS,
    RELIGION,
)

# --- Normalizing a statement ----------------------------------------------------------


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("’", "'").replace("‘", "'")
    text = text.replace("“", '"').replace("”", '"').lower()
    return re.sub(r"\s+", " ", text).strip()


def _clean_value(value: str) -> str:
    value = SOFTENERS.sub(" ", value)
    value = re.sub(r"\s+", " ", value).strip(" " + EDGE_PUNCTUATION)
    for _ in range(2):
        value = ARTICLES.sub("", value).strip()
    value = VALUE_INTRO.sub("", value)
    return value.strip(" " + EDGE_PUNCTUATION)


@dataclass(frozen=True)
class Claim:
    """What a statement is about (``slot``) and what it says of it."""

    slot: str
    value: str
    negated: bool
    correction: bool
    multi: bool


def _canonical_attribute(attr: str) -> tuple[str, bool]:
    """``favourite colour``, ``manager``, ``order number``…; and whether a qualifier said "new"."""
    qualified = bool(ATTRIBUTE_QUALIFIERS.search(attr))
    attr = ATTRIBUTE_QUALIFIERS.sub(" ", attr)
    attr = re.sub(r"\s+", " ", attr).strip()
    attr = ATTRIBUTE_ARTICLE.sub("", attr).strip()
    attr = NAME_SUFFIX.sub("", attr).strip() if attr not in NAME_ATTRIBUTES else attr
    attr = NAME_OF.sub("", attr).strip()
    if attr in ATTRIBUTE_ALIASES:
        return ATTRIBUTE_ALIASES[attr], qualified
    m = ITALIAN_FAVOURITE.match(attr)
    if m:
        noun = m.group(1).strip()
        return f"favourite {ITALIAN_NOUNS.get(noun, noun)}", qualified
    words = [EN_SPELLINGS.get(w, w) for w in attr.split()]
    attr = " ".join(words)
    for spelling, canonical in EN_SPELLINGS.items():
        attr = re.sub(rf"\b{spelling}\b", canonical, attr)
    return ATTRIBUTE_ALIASES.get(attr, attr), qualified


def _singular(noun: str) -> str:
    noun = noun.strip()
    if noun in PLURALS:
        return PLURALS[noun]
    for ending, singular in PLURAL_ENDINGS:
        if ending.search(noun):
            return ending.sub(singular, noun)
    return noun


def _classify_being(value: str) -> tuple[str, str, bool] | None:
    """ "I am X" / "sono X": (slot, value, multi) by what X is."""
    value = _clean_value(value)
    if not value:
        return None
    m = AGE.match(value)
    if m:
        return "age", m.group(1), False
    if value in DIET:
        return "diet", DIET[value], False
    if value in MARITAL:
        return "marital status", MARITAL[value], False
    if value in RELIGION:
        # "religious" / "credente" stands for any faith: "not religious any more" ends each one.
        return "religion", RELIGION[value], False
    if value in CHRONOTYPE:
        return "chronotype", CHRONOTYPE[value], False
    m = MARRIED_TO.match(value)
    if m:
        return "marital status", MARITAL.get(m.group(1), m.group(1)), False
    if value in OCCUPATIONS:
        return "occupation", value, False
    m = ORIGIN.match(value)
    if m:
        return "origin", _clean_value(m.group(1)), False
    m = ALLERGY.match(value)
    if m:
        return f"allergy:{_clean_value(m.group(1))}", "", True
    m = BASED_IN.match(value)
    if m:
        return "residence", _clean_value(m.group(1)), False
    m = BORN_IN.match(value)
    if m:
        return "birthplace", _clean_value(m.group(1)), False
    m = GERUND.match(value)
    if m:
        # "I am studying law": what one does, like "I study law".
        return f"do:{_verb_stem(m.group(1))}", _clean_value(m.group(2)), True
    return f"be:{value}", "", True


def _claim_from_rule(kind: str, m: re.Match[str], raw: str) -> tuple[str, str, bool] | None:
    groups = m.groupdict()
    value = _clean_value(groups.get("v") or "")
    if kind == "name":
        return "name", value, False
    if kind == "marital":
        return "marital status", MARITAL.get(value, value), False
    if kind == "household":
        return "household", ALONE.sub("alone", value), False
    if kind == "residence":
        return "residence", value, False
    if kind == "born":
        date_like = groups["p"] in BORN_ON_PREPOSITIONS or any(ch.isdigit() for ch in value)
        return ("birthday" if date_like else "birthplace"), value, False
    if kind == "work":
        prep = groups["p"]
        if prep in WORK_AS_PREPOSITIONS:
            return "occupation", value, False
        if prep in WORK_PLACE_PREPOSITIONS:
            # "work in Milan" (a place, capitalized as typed) vs "work in marketing" (a field).
            typed = re.search(rf"\b{re.escape(prep)} (\S)", raw, flags=re.I)
            if typed and typed.group(1).isupper():
                return "work location", value, False
            return "work field", value, False
        if prep in WORK_FIELD_PREPOSITIONS:
            return "work field", value, False
        return "employer", value, False
    if kind == "employer":
        return "employer", value, False
    if kind == "occupation":
        return "occupation", value, False
    if kind == "age":
        return "age", value, False
    if kind == "have":
        # "a dog", "one dog", "two dogs": one slot per thing, its value the count.
        count = groups["n"]
        count = NUMBER_WORDS.get(count.rstrip("'"), count)
        return f"have:{_singular(groups['o'])}", count, False
    if kind == "commute":
        means = next(
            g for g in (groups.get("v"), groups.get("w"), groups.get("x"), groups.get("y"), groups.get("z")) if g
        )
        for dropped in COMMUTE_DROPPED:
            means = means.replace(dropped, "")
        means = _clean_value(means)
        return "commute", COMMUTE_MEANS.get(means, means), False
    if kind == "retired":
        return "occupation", "retired", False
    if kind == "have_the":
        return f"have:{_singular(groups['o'])}", "", False
    if kind == "car":
        return "car", value, False
    if kind == "eats":
        # What one eats says which diet one keeps: "I eat fish now" ends "I am vegetarian".
        return "diet", "pescatarian" if value in PESCATARIAN_FOODS else "omnivore", False
    if kind == "like":
        return f"like:{value}", "", True
    if kind == "prefer":
        return "prefer", value, True
    if kind == "language":
        return f"language:{value}", "", True
    if kind == "team":
        return "team", value, False
    if kind == "being":
        return _classify_being(value)
    return None


def _verb_stem(verb: str) -> str:
    """ "smoke", "smokes", "smoking", "fumo", "fumare" → one key per verb (good enough for a slot)."""
    for suffix in VERB_SUFFIXES:
        if verb.endswith(suffix) and len(verb) - len(suffix) >= 3:
            verb = verb[: -len(suffix)]
            break
    if len(verb) > 3 and verb[-1] == verb[-2] and verb[-1] not in "aeiou":
        verb = verb[:-1]  # running → runn → run
    return verb


def _stated_end(text: str) -> tuple[str, str, bool] | None:
    """ "I quit smoking", "I left Acme", "I sold my car": a fact that stopped holding."""
    m = STOPPED.match(text)
    if m:
        verb = _verb_stem(m.group("verb"))
        rest = m.group("rest")
        if verb in LIKE_STEMS:
            return f"like:{_clean_value(rest)}", "", True
        # "stopped eating meat" is "eat meat", negated: read it with the rules when they know the verb.
        for base in (verb, verb + "e", verb + "o"):
            for pattern, kind in RULES:
                rm = pattern.match(f"i {base} {rest}".strip())
                if rm:
                    parsed = _claim_from_rule(kind, rm, text)
                    if parsed is not None:
                        return parsed
        return f"do:{verb}", _clean_value(rest), True
    m = LEFT.match(text)
    if m:
        return "employer", _clean_value(m.group("v")), False
    m = SOLD.match(text)
    if m:
        return f"have:{_singular(m.group('o'))}", "", True
    return None


def _parse_clauses(text: str, raw: str) -> tuple[str, str, bool, bool, bool] | None:
    """The claim of the last clause that has one ("Priya left, my manager is Dan now").

    A clause read only by the catch-all verb rule counts when no clause says more.
    """
    clauses = [c for c in CLAUSE_SPLIT.split(text) if c]
    if len(clauses) < 2:
        return _parse(text, raw)
    fallback = None
    for clause in reversed(clauses):
        parsed = _parse(clause, raw)
        if parsed is not None and not parsed[0].split("/")[-1].startswith("do:"):
            return parsed
        fallback = fallback or parsed
    return fallback


def _parse(text: str, raw: str) -> tuple[str, str, bool, bool, bool] | None:
    """(slot, value, multi, negated_by_verb, correction_by_word) of a normalized statement, or None.

    ``raw`` is the statement as typed, for what only its capitals tell."""
    entity = ""
    m = ENTITY_SUBJECT.match(text)
    if m:
        entity = _canonical_attribute(m.group("e"))[0] + "/"
        text = "i " + text[m.end() :]
    qualified = False
    parsed: tuple[str, str, bool] | None = None
    ended = _stated_end(text)
    if ended is not None:
        slot, value, multi = ended
        # (slot, value, multi, flips polarity, is a change)
        return entity + slot, value, multi, True, True
    for pattern in (POSSESSIVE, POSSESSIVE_COLON, INVERTED, DEFINITE):
        pm = pattern.match(text)
        if pm and len(pm.group("a").split()) <= 4:
            attr, qualified = _canonical_attribute(pm.group("a"))
            value = _clean_value(pm.group("v"))
            if attr in ("residence", "employer", "occupation", "diet", "age", "name", "surname"):
                parsed = (attr, value, False)
            elif attr == "partner":
                parsed = ("partner", value, False)
            else:
                parsed = (f"attr:{attr}", value, _singular(attr) in MULTI_VALUED or attr in MULTI_VALUED)
            break
    flipped = False
    if parsed is None:
        for pattern, kind in RULES:
            rm = pattern.match(text)
            if rm:
                parsed = _claim_from_rule(kind, rm, raw)
                flipped = kind == "like" and bool(HATE.match(text))
                break
    if parsed is None:
        for verb_pattern, third_person, not_verbs in FIRST_PERSON_VERBS:
            vm = verb_pattern.match(text)
            if vm and vm.group("verb") not in not_verbs:
                verb = third_person.sub("", vm.group("verb")) if third_person else vm.group("verb")
                parsed = (f"do:{_verb_stem(verb)}", _clean_value(vm.group("v")), True)
                break
    if parsed is None:
        return None
    slot, value, multi = parsed
    return entity + slot, value, multi, flipped, qualified


def extract_claim(text: str) -> Claim | None:
    """The claim a short statement makes, or None when the grammar does not cover it."""
    folded = _fold(text).rstrip(" " + EDGE_PUNCTUATION)
    for pattern, repl in CONTRACTIONS:
        folded = re.sub(pattern, repl, folded)
    correcting = bool(CORRECTING_OPENERS.match(folded))
    for _ in range(3):
        stripped = LEADING_FILLERS.sub("", folded).strip()
        if stripped == folded:
            break
        folded = stripped
    for pattern, repl in THIRD_PERSON:
        folded = re.sub(pattern, repl, folded)
    correction = correcting or bool(CUE_RE.search(folded)) or bool(CHANGE_WORDS.search(folded))
    folded = CUE_RE.sub(" ", folded)
    negated = False
    for pattern, repl in NEGATION_PHRASES:
        new = re.sub(pattern, repl, folded)
        if new != folded:
            negated = True
            folded = new
    # "i have no car" / "non ho figli": a determiner negation.
    new = NO_DETERMINER.sub(r"\1 a ", folded)
    if new != folded:
        negated, folded = True, new
    # What is left of "do not": "i do like" reads "i like".
    folded = re.sub(r"\s+", " ", folded).strip(" ,")
    for pattern, repl in AUXILIARY_DROPS:
        folded = re.sub(pattern, repl, folded)
    if SUBJECTLESS_VERB.match(folded):
        folded = "i " + folded
    for _ in range(2):
        folded = ADVERBS.sub(r"\1", folded)
    folded = STILL.sub(" ", folded)
    parsed = _parse_clauses(folded, text)
    if parsed is None:
        return None
    slot, value, multi, flipped, qualified = parsed
    return Claim(
        slot=slot,
        value=value,
        negated=negated != flipped,
        correction=correction or qualified,
        multi=multi,
    )
