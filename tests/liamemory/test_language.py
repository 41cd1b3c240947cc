"""The language modules: the same names and kinds in each, and what reads them (no database)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from conversations.relative_dates import resolve_relative_dates
from liamemory import language
from memories.matching.grammar import extract_claim


def _public(module: object) -> dict[str, type]:
    return {name: type(value) for name, value in vars(module).items() if name.isupper() and not name.startswith("_")}


def test_the_package_holds_english_and_italian() -> None:
    assert {"en", "it"} <= set(language.LANGUAGES)


@pytest.mark.parametrize("lang", sorted(language.LANGUAGES))
def test_every_language_defines_the_same_names_as_english(lang: str) -> None:
    english, other = _public(language.words("en")), _public(language.words(lang))
    assert sorted(other) == sorted(english), f"{lang} differs from en in its names"
    kinds = {name: (english[name], other[name]) for name in english if english[name] is not other[name]}
    assert not kinds, f"{lang} differs from en in the kind of {kinds}"


@pytest.mark.parametrize("lang", sorted(language.LANGUAGES))
def test_every_pattern_compiles_and_calendars_are_whole(lang: str) -> None:
    words = language.words(lang)
    for name, value in vars(words).items():
        if name.isupper() and isinstance(value, str | tuple) and not name.endswith(("WORDS", "PERSON", "USER")):
            for pattern in (value,) if isinstance(value, str) else value:
                re.compile(pattern)
    assert len(words.MONTHS) == 12 and len(words.WEEKDAYS) == 7
    assert all(1 <= n <= 12 for n in words.MONTH_ABBREVIATIONS.values())
    assert all(1 <= n <= 7 for n in {**words.WEEKDAY_SPELLINGS, **words.WEEKDAY_ABBREVIATIONS}.values())


def test_the_registry_joins_every_language() -> None:
    assert language.numbered("MONTHS")["maggio"] == 5 == language.numbered("MONTHS")["may"]
    assert {"the", "il"} <= language.union("FUNCTION_WORDS")
    assert re.search(language.any_word("FIRST_PERSON"), "ieri sono andato", re.I)
    assert not re.search(language.any_word("FIRST_PERSON"), "the cat sat", re.I)
    assert len(language.patterns("NO_INFORMATION")) == sum(
        len(language.words(lang).NO_INFORMATION) for lang in language.LANGUAGES
    )


@pytest.mark.parametrize("lang", sorted(language.LANGUAGES))
def test_keyed_tables_have_the_keys_of_english_and_their_patterns_compile(lang: str) -> None:
    english, other = language.words("en"), language.words(lang)
    for name in language.KEYED:
        assert sorted(getattr(other, name)) == sorted(getattr(english, name)), f"{lang}.{name} has other keys"
    for source in other.CLAIM_GRAMMAR.values():
        re.compile(source)
    for source in other.RELATIVE_DATES.values():
        re.compile(source.replace("{weekday}", "(x)").replace("{n}", "(1)").replace("{unit}", "(d)"))
    for name in ("CONTRACTIONS", "THIRD_PERSON", "NEGATION_PHRASES"):
        for pattern in getattr(other, name):
            re.compile(pattern)
    # A reply fills the same fields in every language.
    fields = re.compile(r"\{(\w+)\}")
    for key, text in other.REPLIES.items():
        assert fields.findall(text) == fields.findall(english.REPLIES[key]), f"{lang}.REPLIES[{key!r}]"
    assert set(other.DATE_UNITS.values()) <= {"day", "week", "month", "year"}


def test_entries_leave_out_a_language_that_has_none() -> None:
    assert language.entries("CLAIM_GRAMMAR", "occupation_intro") == {"it": "faccio il|faccio la|faccio l'"}
    assert language.entry_alternation("CLAIM_GRAMMAR", "subject") == "(?:i)|(?:io)"
    assert "" not in language.patterns("FAVOURITE_AFTER")


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("what did I say about the dentist?", "en"),
        ("cosa ti ho detto sul dentista?", "it"),
        ("perché?", "it"),  # an accent says Italian where no word does
        ("", "en"),
        ("ok", "en"),  # nothing tells: the default
    ],
)
def test_detect_says_which_language_a_text_is_in(text: str, lang: str) -> None:
    assert language.detect(text) == lang


def test_the_matching_grammar_and_relative_dates_read_both_languages() -> None:
    assert extract_claim("I moved to Milan") == extract_claim("mi sono trasferito a Milan")
    claim = extract_claim("il mio colore preferito è il verde")
    assert claim is not None and (claim.slot, claim.value) == ("attr:favourite colour", "verde")
    today = date(2024, 3, 13)
    assert resolve_relative_dates("I saw her last week", today=today) == "I saw her [week of 2024-03-04]"
    italian = resolve_relative_dates("l'ho vista la settimana scorsa", today=today)
    assert italian == "l'ho vista [settimana del 2024-03-04]"
    assert resolve_relative_dates("two days ago", today=today) == "[2024-03-11]"


# What the apps read from the package: ``language.union("NAME")`` and the like, a
# language's ``.NAME``, and the statement grammar's ``_g("key")`` (a ``CLAIM_GRAMMAR`` key).
_READ = re.compile(r"""language\.\w+\(\s*((?:["'][A-Z][A-Z_]+["'](?:,\s*)?)+)|\.words\([^)]*\)\.([A-Z][A-Z_]+)""")
_GRAMMAR_KEY = re.compile(r"""_g\(["'](\w+)["']\)|entries\("CLAIM_GRAMMAR", "(\w+)"\)|CLAIM_GRAMMAR\["(\w+)"\]""")
_APPS = ("conversations", "memories", "agents", "usecases", "web", "api", "backoffice", "governance", "liamemory")


def _read_by_the_apps() -> tuple[set[str], set[str]]:
    root = Path(__file__).resolve().parents[2]
    names: set[str] = set()
    keys: set[str] = set()
    for path in (p for app in _APPS for p in (root / app).rglob("*.py") if "language" not in p.parts):
        source = path.read_text(encoding="utf-8")
        for listed, attribute in _READ.findall(source):
            names |= set(re.findall(r"[A-Z][A-Z_]+", listed)) | ({attribute} if attribute else set())
        keys |= {key for found in _GRAMMAR_KEY.findall(source) for key in found if key}
    return names, keys


@pytest.mark.parametrize("lang", sorted(language.LANGUAGES))
def test_every_language_defines_what_the_apps_read(lang: str) -> None:
    names, keys = _read_by_the_apps()
    assert {"MONTHS", "FIRST_PERSON", "VERB_SUFFIXES", "CLAIM_GRAMMAR"} <= names  # the scan finds the readers
    assert {"subject", "first_person_verb", "still"} <= keys
    words = language.words(lang)
    assert sorted(n for n in names if not hasattr(words, n)) == [], f"{lang} lacks names the apps read"
    assert sorted(keys - set(words.CLAIM_GRAMMAR)) == [], f"{lang}.CLAIM_GRAMMAR lacks keys the grammar reads"
