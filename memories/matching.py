"""How two short memories are compared: same statement, same subject, different value.

Kept deliberately simple and explainable, because staff must be able to say why a
memory replaced another:

- the *identifiers* of a statement are its tokens containing a digit (order numbers,
  dates, amounts, phone numbers), lower-cased and stripped of punctuation;
- a statement is *negated* when it holds a negation word (English or Italian);
- its *subject* is what is left once identifiers and negations are removed.

Two statements whose subjects are nearly the same (pg_trgm similarity) but whose
identifiers or negation differ contradict each other: "my order number is A-7781" and
"my order number is B-1200", "I like coffee" and "I don't like coffee".
"""

from __future__ import annotations

from dataclasses import dataclass

_EDGE_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’"
NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nothing",
        "cannot",
        "non",
        "mai",
        "nessuno",
        "nessuna",
        "niente",
        "nulla",
        "nemmeno",
        "neanche",
    }
)


def _tokens(text: str) -> list[str]:
    tokens = (t.strip(_EDGE_PUNCTUATION).lower() for t in text.split())
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
    )
