"""The statement grammar's patterns and word lists compiled for it (data, no logic).

``memories.matching.grammar`` reads statements with them.
"""

from __future__ import annotations

import re

from memories.matching.words import (
    CUES,
)

CONTRACTIONS = [
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
THIRD_PERSON = [
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


LEADING_FILLERS = re.compile(
    r"^(?:(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|just so you know|fyi|by the way|btw|"
    r"oh|well|so|ok|okay|also|and|hey|hi|sorry|update|correction|quick correction|small correction|"
    r"(?:per favore\s+)?(?:ricorda(?:ti)?|memorizza|tieni a mente)(?:\s+che)?|allora|comunque|"
    r"ah|ehi|scusa|scusami|aggiornamento|correzione|ps|oops|wait|hold on|i mean|my mistake|aspetta|"
    r"errata corrige|mi sono sbagliat[oa])\b[\s,:;!-]*",
)


# Opening words that say the speaker is correcting something.
CORRECTING_OPENERS = re.compile(
    r"^(?:sorry|correction|quick correction|small correction|oops|wait|hold on|i mean|my mistake|"
    r"scusa|scusami|correzione|aspetta|errata corrige|mi sono sbagliat[oa])\b"
)


# Adverbs between the subject and the verb that change nothing of the claim.
ADVERBS = re.compile(
    r"^((?:i |io )?(?:have |has |ho )?)(?:just|finally|already|also|still|really|truly|sempre|anche|ancora|"
    r"appena|finalmente|già|davvero|proprio) "
)


# Change or correction cues; removed before parsing, remembered in ``Claim.correction``.
CUE_RE = re.compile(r"(?:^|(?<=[\s,]))(?:" + "|".join(CUES) + r")(?=$|[\s,.!;:])")


NEGATION_PHRASES = [
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


SOFTENERS = re.compile(
    r"\b(?:really|very much|so much|a lot|too|also|as well|still|just|definitely|totally|absolutely|"
    r"actually|usually|currently|fully|completely|strictly|mostly|anche|molto|tanto|davvero|proprio|sempre|"
    r"completamente|del tutto)\b"
)


ARTICLES = re.compile(r"^(?:the|a|an|il|lo|la|l'|i|gli|le|un|uno|una|un'|del|della|dei|degli|delle)\s*(?<=\s|')")


WORK_PLACE_PREPOSITIONS = {"in", "a", "ad"}


# Each rule: (pattern on the normalized statement, handler name). Verb alternations
# include third-person forms so that agents' "the user lives in …" reads the same.
RULES: list[tuple[re.Pattern[str], str]] = [
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


POSSESSIVE = re.compile(
    r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|our|mio|mia|miei|mie|nostro|nostra) (?P<a>[^,]+?)"
    r" (?:is|are|was|were|is called|are called|has changed to|changed to|has become|became|is now|=|"
    r"è|e'|sono|si chiama|si chiamano|è diventat[oa]|è cambiat[oa] in|ora è)"
    r" (?P<v>.+)$"
)


# "the order number is B-1200": only attributes one owns a single value of.
DEFINITE = re.compile(
    r"^(?:the|il|la|lo|l') ?(?P<a>[^,]*?(?:number|reference|code|id|address|numero|codice|indirizzo|"
    r"email|password|iban|targa)[^,]*?) (?:is|è|e') (?P<v>.+)$"
)


POSSESSIVE_COLON = re.compile(r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<a>[^:,]+?)\s*: (?P<v>.+)$")


INVERTED = re.compile(
    r"^(?P<v>[^,]+?) (?:is|are|è|sono) (?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<a>[^,]+)$"
)


# "my sister lives in Rome": a relative's own fact, kept apart from the user's.
ENTITY_SUBJECT = re.compile(
    r"^(?:(?:il|la|lo|l'|i|gli|le) )?(?:my|mio|mia|miei|mie) (?P<e>[a-z]+(?: [a-z]+)?) "
    r"(?=(?:lives|moved|has moved|works|likes|loves|hates|has|drives|speaks|is moving|relocated|resides|"
    r"vive|abita|lavora|si è trasferit[oa]|ha|guida|parla)\b)"
)


# An Italian first-person verb opening the sentence ("bevo", "fumo", "gioco a").
IT_VERB = re.compile(r"^(?:io )?(?P<verb>[a-zà-ù]{3,}o) ?(?P<v>.*)$")


EN_VERB = re.compile(r"^i (?P<verb>[a-z]+) ?(?P<v>.*)$")


NOT_VERBS = frozenset({"also", "really", "just", "still", "would", "will", "can", "should", "could", "do", "did"})


HATE = re.compile(r"^(?:i |io )?(?:hate|hates|dislike|dislikes|odio|detesto)\b")


STOPPED = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:quit|stopped|gave up|give up|smesso di|smesso) (?P<verb>[a-z]+) ?(?P<rest>.*)$"
)


LEFT = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:left|quit|lasciato) "
    r"(?:my job (?:at|with) |il (?:mio )?lavoro (?:da|presso|a|in|per) )?"
    r"(?P<v>.+?)(?: (?:in|last|this|a|nel|a|il) .+)?$"
)


SOLD = re.compile(
    r"^(?:i |io )?(?:have |has |ho )?(?:sold|gave away|got rid of|venduto|regalato) "
    r"(?:my |the |a |an |la |il |lo |l'|mia |mio )?(?P<o>[\w']+)"
)


CLAUSE_SPLIT = re.compile(r"\s*(?:[,;]|\bbut\b|\bma\b|\bso\b|\bquindi\b)\s+")
