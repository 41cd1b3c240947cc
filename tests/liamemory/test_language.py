"""The language modules: each defines the same names, of the same kinds (no database)."""

from __future__ import annotations

import re

import pytest

from liamemory import language


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
