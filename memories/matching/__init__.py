"""Does a new short statement restate, replace or sit beside an older one? (English, Italian)

Pure Python, deterministic and explainable, because staff must be able to say why a
memory replaced another (every verdict carries a ``reason``). A careful person asks
two questions:

1. **What is each statement about?** Its *claim*: a *slot* (the attribute or relation
   it states: ``residence``, ``employer``, ``manager``, ``diet``, ``attr:order number``,
   ``like:coffee`` …) and a *value* ("rome", "b-1200"), with its polarity (negated or
   not) and whether it carries a correction/change cue ("actually", "now", "instead",
   "no longer", "invece", "ora", "non … più", "nuovo" …). Slots come from a small
   grammar of how people state facts about themselves: "my X is Y", "Y is my X",
   "I live in / moved to", "I work in / at / for / as", "I am (no longer) X",
   "I like X", "I have N X", and the Italian equivalents ("il mio X è Y",
   "abito a", "mi sono trasferito a", "lavoro per", "sono vegetariano", "mi piace"),
   in the first person or the third ("the user's X is", "l'utente vive a").
2. **Can both be true at once?** Different slots: yes (sister / brother, living in
   Rome / working in Milan, liking coffee / liking tea). Same slot, same value and
   polarity: a restatement (updated in place). Same slot and value, polarity
   flipped: the new one supersedes. Same slot, another value: the new one
   supersedes when the slot holds one value at a time (where one lives, one's
   manager, an order number); for slots that hold several (siblings, pets,
   languages) only when the new statement says it corrects ("actually", "invece").

Statements the grammar does not cover fall back to the older rule: their *subject*
(the words without identifiers and negations) compared with pg_trgm's trigram
similarity, computed here in Python exactly as PostgreSQL does; nearly the same
subject with another identifier or a flipped negation supersedes.

Measured on a labelled set by ``python -m bench.contradictions`` (bench/README.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from memories.matching.grammar import Claim, extract_claim
from memories.matching.words import EDGE_PUNCTUATION, NEGATIONS

__all__ = ["Claim", "Statement", "Verdict", "analyse", "compare", "extract_claim", "trigram_similarity"]

Relation = Literal["same", "supersedes", "compatible"]

DEFAULT_DUPLICATE_SIMILARITY = 0.6
DEFAULT_SUBJECT_SIMILARITY = 0.8

# --- The older rule, and pg_trgm's similarity ------------------------------------------


def _tokens(text: str) -> list[str]:
    tokens = (t.strip(EDGE_PUNCTUATION).lower() for t in text.split())
    return [t for t in tokens if t]


def _is_negation(token: str) -> bool:
    return token in NEGATIONS or token.endswith(("n't", "n’t"))


def _is_identifier(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


@dataclass(frozen=True)
class Statement:
    subject: str
    identifiers: frozenset[str]
    negated: bool
    claim: Claim | None = field(default=None, compare=False)

    def differs_from(self, other: Statement) -> bool:
        """Same words could still say something else: a flipped negation or another value."""
        if self.negated != other.negated:
            return True
        return bool(self.identifiers and other.identifiers and self.identifiers != other.identifiers)


def analyse(text: str) -> Statement:
    tokens = _tokens(text)
    return Statement(
        subject=" ".join(t for t in tokens if not _is_identifier(t) and not _is_negation(t)),
        identifiers=frozenset(t for t in tokens if _is_identifier(t)),
        negated=any(_is_negation(t) for t in tokens),
        claim=extract_claim(text),
    )


def values_in(text: str) -> set[str]:
    """Numbers, e-mail addresses and capitalised names (not a sentence's first word), lowercased:
    what a change of the same thing swaps."""
    found = set(re.findall(r"\d+(?:[.,:]\d+)?|[\w.+-]+@[\w.-]+", text.lower()))
    found |= {w.lower() for w in re.findall(r"(?<!^)(?<![.!?] )\b[A-Z][\w'-]+", text)}
    return found


def _trigrams(text: str) -> set[str]:
    grams: set[str] = set()
    for word in re.findall(r"\w+", text.lower()):
        padded = f"  {word} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


def trigram_similarity(a: str, b: str) -> float:
    """pg_trgm's ``similarity(a, b)``: shared trigrams over all trigrams of both."""
    ta, tb = _trigrams(a), _trigrams(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


# --- The verdict ------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    relation: Relation
    reason: str
    similarity: float = 0.0


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    ta, tb = set(re.findall(r"[\w'-]+", a)), set(re.findall(r"[\w'-]+", b))
    if not ta or not tb:
        return False
    # "Rome" and "Rome, Italy"; "Paolo" and "Paolo Rossi": one says more of the same.
    has_ids = any(_is_identifier(t) for t in ta | tb)
    return not has_ids and (ta <= tb or tb <= ta)


def compare(
    old: str,
    new: str,
    *,
    duplicate_similarity: float = DEFAULT_DUPLICATE_SIMILARITY,
    subject_similarity: float = DEFAULT_SUBJECT_SIMILARITY,
) -> Verdict:
    """How ``new`` relates to ``old``: ``same`` (a restatement), ``supersedes`` or ``compatible``."""
    a, b = analyse(old), analyse(new)
    similarity = trigram_similarity(old, new)
    ca, cb = a.claim, b.claim
    if ca is not None and cb is not None:
        if ca.slot != cb.slot:
            return Verdict("compatible", f"different subjects ({ca.slot} / {cb.slot})", similarity)
        same_value = _same_value(ca.value, cb.value)
        if ca.negated != cb.negated:
            if same_value or not cb.value or not ca.value:
                return Verdict("supersedes", f"{cb.slot}: {'negated' if cb.negated else 'affirmed'} now", similarity)
            return Verdict("compatible", f"{cb.slot}: a negation of another value", similarity)
        if same_value:
            return Verdict("same", f"{cb.slot}: the same value restated", similarity)
        if ca.negated:
            return Verdict("compatible", f"{cb.slot}: two values it is not", similarity)
        if ca.multi and not cb.correction:
            return Verdict("compatible", f"{cb.slot}: holds several values", similarity)
        return Verdict("supersedes", f"{cb.slot}: {ca.value!r} → {cb.value!r}", similarity)
    subject = trigram_similarity(a.subject, b.subject)
    if similarity >= duplicate_similarity and not a.differs_from(b):
        return Verdict("same", "nearly the same words", similarity)
    if subject >= subject_similarity and a.differs_from(b):
        return Verdict("supersedes", "the same subject with another identifier or negation", similarity)
    return Verdict("compatible", "different subjects", similarity)
