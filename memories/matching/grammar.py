"""The statement grammar: what a short statement is about (its claim), English and Italian.

See ``memories.matching`` for how two claims are compared.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from memories.matching.words import (
    ATTRIBUTE_ALIASES,
    ATTRIBUTE_QUALIFIERS,
    CHANGE_WORDS,
    CHRONOTYPE,
    CUES,
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

_CONTRACTIONS = [
    (r"\bi'm\b", "i am"),
    (r"\bi've\b", "i have"),
    (r"\bwe've\b", "we have"),
    (r"\bwe're\b", "we are"),
    (r"\bi'd\b", "i would"),
    (r"\bi'll\b", "i will"),
    (r"\bcan't\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\b(\w+)n't\b", r"\1 not"),
    (r"\bcannot\b", "can not"),
]
# Third person ("what the agent wrote about the user") read as the first.
_THIRD_PERSON = [
    (r"^(?:the )?user's\b", "my"),
    (r"^(?:the )?user\b", "i"),
    (r"^(?:the )?customer's\b", "my"),
    (r"^(?:the )?customer\b", "i"),
    (r"^(il|la|lo|l'|i|gli|le) ?(.+?) (?:dell'utente|del cliente|della cliente) ", r"\1 mio \2 "),
    (r"^l'utente\s+", ""),
    (r"^(?:il|la) cliente\s+", ""),
    (r"^(?:he|she|they|we)\b", "i"),
    (r"^(?:his|her|their)\b", "my"),
]
_LEADING_FILLERS = re.compile(
    r"^(?:(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|just so you know|fyi|by the way|btw|"
    r"oh|well|so|ok|okay|also|and|hey|hi|sorry|update|correction|quick correction|small correction|"
    r"(?:per favore\s+)?(?:ricorda(?:ti)?|memorizza|tieni a mente)(?:\s+che)?|allora|comunque|"
    r"ah|ehi|scusa|scusami|aggiornamento|correzione|ps|oops|wait|hold on|i mean|my mistake|aspetta|"
    r"errata corrige|mi sono sbagliat[oa])\b[\s,:;!-]*",
)
# Opening words that say the speaker is correcting something.
_CORRECTING_OPENERS = re.compile(
    r"^(?:sorry|correction|quick correction|small correction|oops|wait|hold on|i mean|my mistake|"
    r"scusa|scusami|correzione|aspetta|errata corrige|mi sono sbagliat[oa])\b"
)
# Adverbs between the subject and the verb that change nothing of the claim.
_ADVERBS = re.compile(
    r"^((?:i |io )?(?:have |has |ho )?)(?:just|finally|already|also|still|really|truly|sempre|anche|ancora|"
    r"appena|finalmente|già|davvero|proprio) "
)
# Change or correction cues; removed before parsing, remembered in ``Claim.correction``.
_CUE_RE = re.compile(r"(?:^|(?<=[\s,]))(?:" + "|".join(CUES) + r")(?=$|[\s,.!;:])")
_NEGATION_PHRASES = [
    (r"\bno longer\b", ""),
    (r"\bnot any longer\b", ""),
    (r"\b(am|is|are|do|does|did|have|has|can|will|was|were)\s+not\b", r"\1"),
    (r"\bnever\b", ""),
    (r"^non\s+", ""),
    (r"(?<=\s)non\s+", ""),
    (r"\bpiù\b", ""),
    (r"\bmai\b", ""),
    (r"\bnot\b", ""),
]
_SOFTENERS = re.compile(
    r"\b(?:really|very much|so much|a lot|too|also|as well|still|just|definitely|totally|absolutely|"
    r"actually|usually|currently|fully|completely|strictly|mostly|anche|molto|tanto|davvero|proprio|sempre|"
    r"completamente|del tutto)\b"
)
_ARTICLES = re.compile(r"^(?:the|a|an|il|lo|la|l'|i|gli|le|un|uno|una|un'|del|della|dei|degli|delle)\s*(?<=\s|')")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("’", "'").replace("‘", "'")
    text = text.replace("“", '"').replace("”", '"').lower()
    return re.sub(r"\s+", " ", text).strip()


def _clean_value(value: str) -> str:
    value = _SOFTENERS.sub(" ", value)
    value = re.sub(r"\s+", " ", value).strip(" " + EDGE_PUNCTUATION)
    for _ in range(2):
        value = _ARTICLES.sub("", value).strip()
    value = re.sub(r"^(?:called|named|chiamat[oaie]|di nome)\s+", "", value)
    return value.strip(" " + EDGE_PUNCTUATION)


_WORK_PLACE_PREPOSITIONS = {"in", "a", "ad"}


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
    attr = re.sub(r"^(?:the|il|lo|la|l'|i|gli|le)\s*", "", attr).strip()
    attr = re.sub(r"'s name$| name$", "", attr).strip() if attr not in ("name", "first name", "last name") else attr
    attr = re.sub(r"^(?:nome (?:di|del|della|dello) (?:mio |mia )?)", "", attr).strip()
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
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun[:-1]
    return noun


def _classify_being(value: str) -> tuple[str, str, bool] | None:
    """ "I am X" / "sono X": (slot, value, multi) by what X is."""
    value = _clean_value(value)
    if not value:
        return None
    m = re.match(r"^(\d+)(?: (?:years?|anni)(?: old)?)?$", value)
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
    m = re.match(r"^(married|engaged|sposat[oa]|fidanzat[oa]) (?:to|con|a) .+$", value)
    if m:
        return "marital status", MARITAL.get(m.group(1), m.group(1)), False
    if value in OCCUPATIONS:
        return "occupation", value, False
    m = re.match(r"^(?:from|di|originari[oa] di) (.+)$", value)
    if m:
        return "origin", _clean_value(m.group(1)), False
    m = re.match(r"^(?:allergic|allergic[oa]|intolerant|intollerante) (?:to|a|al|alla|ai|alle|agli) (.+)$", value)
    if m:
        return f"allergy:{_clean_value(m.group(1))}", "", True
    m = re.match(r"^(?:based|living|located) in (.+)$", value)
    if m:
        return "residence", _clean_value(m.group(1)), False
    m = re.match(r"^(?:nat[oa]|born) (?:a|in|ad) (.+)$", value)
    if m:
        return "birthplace", _clean_value(m.group(1)), False
    m = re.match(r"^(\w{3,}ing) ?(.*)$", value)
    if m:
        # "I am studying law": what one does, like "I study law".
        return f"do:{_verb_stem(m.group(1))}", _clean_value(m.group(2)), True
    return f"be:{value}", "", True


# Each rule: (pattern on the normalized statement, handler name). Verb alternations
# include third-person forms so that agents' "the user lives in …" reads the same.
_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"^(?:i |io )?(?:got|have got|get|mi sono|si è) (?P<v>married|engaged|divorced|separated|"
            r"sposat[oa]|fidanzat[oa]|separat[oa])(?: .*)?$"
        ),
        "marital",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:live|lives|living|am living|vivo|vive|abito|abita) (?P<v>with .+|alone|on my own|"
            r"by myself|con .+|da sol[oa])$"
        ),
        "household",
    ),
    (re.compile(r"^(?:my name is|call me|i am called|mi chiamo|chiamami|il mio nome è) (?P<v>.+)$"), "name"),
    (
        re.compile(
            r"^(?:i |io )?(?:live|lives|living|am living|is living|reside|resides|am based|is based|"
            r"have moved|has moved|moved|move|am moving|is moving|relocated|have relocated|has relocated|"
            r"abito|abita|vivo|vive|risiedo|risiede|sto|mi sono trasferit[oa]|si è trasferit[oa]|"
            r"mi trasferisco|mi sono spostat[oa]|si è spostat[oa]|sono andat[oa] a vivere|ho traslocato|"
            r"ci siamo trasferit[ie]|ci siamo spostat[ie]|abitiamo|viviamo|live|have relocated)"
            r" (?:in|to|at|a|ad|nel|nella|nello|presso|back to|over to|out to) (?P<v>.+)$"
        ),
        "residence",
    ),
    (
        re.compile(r"^(?:i |io )?(?:was born|were born|sono nat[oa]|è nat[oa]) (?P<p>in|on|at|a|ad|il|nel) (?P<v>.+)$"),
        "born",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:work|works|working|am working|is working|have worked|started working|"
            r"lavoro|lavora|sto lavorando) (?P<p>in|at|for|with|as|a|ad|per|da|presso|con|come|nel|nella) "
            r"(?P<v>.+)$"
        ),
        "work",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:joined|have joined|has joined|got a job at|got a job with|am employed by|"
            r"is employed by|am employed at|sono stat[oa] assunt[oa] (?:da|in|presso)|sono entrat[oa] in|"
            r"ho iniziato a lavorare (?:da|per|presso|in))"
            r" (?P<v>.+)$"
        ),
        "employer",
    ),
    (re.compile(r"^(?:faccio il|faccio la|faccio l') ?(?P<v>.+)$"), "occupation"),
    (re.compile(r"^(?:i |io )?(?:ho|have|has) (?P<v>\d+) (?:anni|years old|years)$"), "age"),
    (
        re.compile(
            r"^(?:i |io )?(?:have|has|ho|own|owns|possiedo) (?P<n>\d+|an|a|one|two|three|four|five|six|"
            r"una|uno|un'|un|due|tre|quattro|cinque|sei)(?: |(?<='))(?P<o>\w+)(?: (?P<rest>.+))?$"
        ),
        "have",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:eat|eats|mangio|mangia) (?P<v>meat|fish|seafood|chicken|beef|pork|carne|pesce|pollo|"
            r"manzo|maiale)(?: .*)?$"
        ),
        "eats",
    ),
    (
        re.compile(r"^(?:i |io )?(?:have|has|ho|own|owns) (?:the|my|la|il|lo|l'|mia|mio) ?(?P<o>[\w]+)$"),
        "have_the",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:(?:take|takes|catch|catches|go|goes|get|travel|commute|commutes) (?P<v>.+?) to work|"
            r"(?P<w>walk|walks|cycle|cycles|bike|bikes|drive|drives|run|runs) to work|"
            r"(?:go|goes|get|travel|commute|commutes) to work (?:by|on|in) (?P<x>.+)|"
            r"vado al lavoro (?:in|a|con|col|con la|con il) (?P<y>.+)|vado al lavoro (?P<z>a piedi))$"
        ),
        "commute",
    ),
    (re.compile(r"^(?:i |io )?(?:drive|drives|guido|guida)(?: (?P<v>.+))?$"), "car"),
    (
        re.compile(r"^(?:i |io )?(?:turned|have turned|turn|ho compiuto|compio|ha compiuto) (?P<v>\d+)(?: .*)?$"),
        "age",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?:retired|have retired|am retiring|sono andat[oa] in pensione|vado in pensione)(?: .*)?$"
        ),
        "retired",
    ),
    (
        re.compile(
            r"^(?:i |io )?(?P<verb>like|likes|love|loves|enjoy|enjoys|adore|adores|hate|hates|dislike|"
            r"dislikes|can stand|sopporto|mi piace|mi piacciono|gli piace|le piace|adoro|amo|odio|detesto)"
            r" (?P<v>.+)$"
        ),
        "like",
    ),
    (re.compile(r"^(?:i |io )?(?:prefer|prefers|preferisco|preferisce) (?P<v>.+)$"), "prefer"),
    (re.compile(r"^(?:i |io )?(?:speak|speaks|parlo|parla) (?P<v>.+)$"), "language"),
    (re.compile(r"^(?:i |io )?(?:support|supports|root for|roots for|tifo per|tifo|tifa per) (?P<v>.+)$"), "team"),
    (re.compile(r"^(?:i |io )?(?:am|is|are|was|sono|è|e') (?P<v>.+)$"), "being"),
]
_POSSESSIVE = re.compile(
    r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|our|mio|mia|miei|mie|nostro|nostra) (?P<a>[^,]+?)"
    r" (?:is|are|was|were|is called|are called|has changed to|changed to|has become|became|is now|=|"
    r"è|e'|sono|si chiama|si chiamano|è diventat[oa]|è cambiat[oa] in|ora è)"
    r" (?P<v>.+)$"
)
# "the order number is B-1200": only attributes one owns a single value of.
_DEFINITE = re.compile(
    r"^(?:the|il|la|lo|l') ?(?P<a>[^,]*?(?:number|reference|code|id|address|numero|codice|indirizzo|"
    r"email|password|iban|targa)[^,]*?) (?:is|è|e') (?P<v>.+)$"
)
_POSSESSIVE_COLON = re.compile(r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<a>[^:,]+?)\s*: (?P<v>.+)$")
_INVERTED = re.compile(
    r"^(?P<v>[^,]+?) (?:is|are|è|sono) (?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<a>[^,]+)$"
)
# "my sister lives in Rome": a relative's own fact, kept apart from the user's.
_ENTITY_SUBJECT = re.compile(
    r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<e>[a-z]+(?: [a-z]+)?) "
    r"(?=(?:lives|moved|has moved|works|likes|loves|hates|has|drives|speaks|is moving|relocated|resides|"
    r"vive|abita|lavora|si è trasferit[oa]|ha|guida|parla)\b)"
)
# An Italian first-person verb opening the sentence ("bevo", "fumo", "gioco a").
_IT_VERB = re.compile(r"^(?:io )?(?P<verb>[a-zà-ù]{3,}o) ?(?P<v>.*)$")
_EN_VERB = re.compile(r"^i (?P<verb>[a-z]+) ?(?P<v>.*)$")
_NOT_VERBS = frozenset({"also", "really", "just", "still", "would", "will", "can", "should", "could", "do", "did"})


def _claim_from_rule(kind: str, m: re.Match[str], raw: str) -> tuple[str, str, bool] | None:
    groups = m.groupdict()
    value = _clean_value(groups.get("v") or "")
    if kind == "name":
        return "name", value, False
    if kind == "marital":
        return "marital status", MARITAL.get(value, value), False
    if kind == "household":
        return "household", re.sub(r"^(?:by myself|on my own|da sol[oa])$", "alone", value), False
    if kind == "residence":
        return "residence", value, False
    if kind == "born":
        date_like = groups["p"] in ("on", "il") or any(ch.isdigit() for ch in value)
        return ("birthday" if date_like else "birthplace"), value, False
    if kind == "work":
        prep = groups["p"]
        if prep in ("as", "come"):
            return "occupation", value, False
        if prep in _WORK_PLACE_PREPOSITIONS:
            # "work in Milan" (a place, capitalized as typed) vs "work in marketing" (a field).
            typed = re.search(rf"\b{re.escape(prep)} (\S)", raw, flags=re.I)
            if typed and typed.group(1).isupper():
                return "work location", value, False
            return "work field", value, False
        if prep in ("nel", "nella"):
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
        means = _clean_value(means.replace("the ", ""))
        return (
            "commute",
            {"walks": "walk", "cycles": "cycle", "bikes": "cycle", "drives": "drive"}.get(means, means),
            False,
        )
    if kind == "retired":
        return "occupation", "retired", False
    if kind == "have_the":
        return f"have:{_singular(groups['o'])}", "", False
    if kind == "car":
        return "car", value, False
    if kind == "eats":
        # What one eats says which diet one keeps: "I eat fish now" ends "I am vegetarian".
        return "diet", "pescatarian" if value in ("fish", "seafood", "pesce") else "omnivore", False
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


_HATE = re.compile(r"^(?:i |io )?(?:hate|hates|dislike|dislikes|odio|detesto)\b")


_STOPPED = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:quit|stopped|gave up|give up|smesso di|smesso) (?P<verb>[a-z]+) ?(?P<rest>.*)$"
)
_LEFT = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:left|quit|lasciato) "
    r"(?:my job (?:at|with) |il (?:mio )?lavoro (?:da|presso|a|in|per) )?"
    r"(?P<v>.+?)(?: (?:in|last|this|a|nel|a|il) .+)?$"
)
_SOLD = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:sold|gave away|got rid of|venduto|regalato) "
    r"(?:my |the |a |an |la |il |lo |l'|mia |mio )?(?P<o>[\w']+)"
)


def _verb_stem(verb: str) -> str:
    """ "smoke", "smokes", "smoking", "fumo", "fumare" → one key per verb (good enough for a slot)."""
    for suffix in ("ing", "are", "ere", "ire", "es", "ed", "s", "e", "o"):
        if verb.endswith(suffix) and len(verb) - len(suffix) >= 3:
            verb = verb[: -len(suffix)]
            break
    if len(verb) > 3 and verb[-1] == verb[-2] and verb[-1] not in "aeiou":
        verb = verb[:-1]  # running → runn → run
    return verb


def _stated_end(text: str) -> tuple[str, str, bool] | None:
    """ "I quit smoking", "I left Acme", "I sold my car": a fact that stopped holding."""
    m = _STOPPED.match(text)
    if m:
        verb = _verb_stem(m.group("verb"))
        rest = m.group("rest")
        if verb in ("lik", "lov", "enjoy"):
            return f"like:{_clean_value(rest)}", "", True
        # "stopped eating meat" is "eat meat", negated: read it with the rules when they know the verb.
        for base in (verb, verb + "e", verb + "o"):
            for pattern, kind in _RULES:
                rm = pattern.match(f"i {base} {rest}".strip())
                if rm:
                    parsed = _claim_from_rule(kind, rm, text)
                    if parsed is not None:
                        return parsed
        return f"do:{verb}", _clean_value(rest), True
    m = _LEFT.match(text)
    if m:
        return "employer", _clean_value(m.group("v")), False
    m = _SOLD.match(text)
    if m:
        return f"have:{_singular(m.group('o'))}", "", True
    return None


_CLAUSE_SPLIT = re.compile(r"\s*(?:[,;]|\bbut\b|\bma\b|\bso\b|\bquindi\b)\s+")


def _parse_clauses(text: str, raw: str) -> tuple[str, str, bool, bool, bool] | None:
    """The claim of the last clause that has one ("Priya left, my manager is Dan now").

    A clause read only by the catch-all verb rule counts when no clause says more.
    """
    clauses = [c for c in _CLAUSE_SPLIT.split(text) if c]
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
    m = _ENTITY_SUBJECT.match(text)
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
    for pattern in (_POSSESSIVE, _POSSESSIVE_COLON, _INVERTED, _DEFINITE):
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
        for pattern, kind in _RULES:
            rm = pattern.match(text)
            if rm:
                parsed = _claim_from_rule(kind, rm, raw)
                flipped = kind == "like" and bool(_HATE.match(text))
                break
    if parsed is None:
        gm = _EN_VERB.match(text)
        if gm and gm.group("verb") not in _NOT_VERBS:
            verb = gm.group("verb")
            verb = verb[:-1] if verb.endswith("s") and len(verb) > 3 and not verb.endswith("ss") else verb
            parsed = (f"do:{_verb_stem(verb)}", _clean_value(gm.group("v")), True)
        else:
            im = _IT_VERB.match(text)
            if im:
                parsed = (f"do:{_verb_stem(im.group('verb'))}", _clean_value(im.group("v")), True)
    if parsed is None:
        return None
    slot, value, multi = parsed
    return entity + slot, value, multi, flipped, qualified


def extract_claim(text: str) -> Claim | None:
    """The claim a short statement makes, or None when the grammar does not cover it."""
    folded = _fold(text).rstrip(" " + EDGE_PUNCTUATION)
    for pattern, repl in _CONTRACTIONS:
        folded = re.sub(pattern, repl, folded)
    correcting = bool(_CORRECTING_OPENERS.match(folded))
    for _ in range(3):
        stripped = _LEADING_FILLERS.sub("", folded).strip()
        if stripped == folded:
            break
        folded = stripped
    for pattern, repl in _THIRD_PERSON:
        folded = re.sub(pattern, repl, folded)
    correction = correcting or bool(_CUE_RE.search(folded)) or bool(CHANGE_WORDS.search(folded))
    folded = _CUE_RE.sub(" ", folded)
    negated = False
    for pattern, repl in _NEGATION_PHRASES:
        new = re.sub(pattern, repl, folded)
        if new != folded:
            negated = True
            folded = new
    # "i have no car" / "non ho figli": a determiner negation.
    new = re.sub(r"^((?:i |io )?(?:have|has|ho)) (?:no|any|nessun[oa]?) ", r"\1 a ", folded)
    if new != folded:
        negated, folded = True, new
    # What is left of "do not": "i do like" reads "i like".
    folded = re.sub(r"^(i |my \w+(?: \w+)? )(?:do|does|did) ", r"\1", re.sub(r"\s+", " ", folded).strip(" ,"))
    if re.match(r"^(?:like|love|live|work|have|am|prefer|speak|drive|moved|lives|works|likes|has|is) ", folded):
        folded = "i " + folded
    for _ in range(2):
        folded = _ADVERBS.sub(r"\1", folded)
    folded = re.sub(r" (?:sempre|ancora|tuttora|still) ", " ", folded)
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
