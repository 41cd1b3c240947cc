"""Relative dates ("yesterday", "last week", "ieri", "la settimana scorsa") made absolute.

A summary line outlives the day it was said on: "yesterday" three sessions later
means nothing. Each phrase is resolved against the date of the message that holds it
and written in square brackets, ISO-style, so a line reads the same in English and
Italian: ``[2023-05-07]`` (a day), ``[week of 2023-05-01]`` (Monday of that week),
``[2023-04]`` (a month), ``[2022]`` (a year). The brackets also let the summarizer
tell a resolved date from one the user typed (``RESOLVED_RE``): only typed ones are
identifiers to rescue. The phrases of each language are its ``RELATIVE_DATES``
(``liamemory.language``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, timedelta

from liamemory import language

# Weekday names (Monday 0 .. Sunday 6, as ``date.weekday``) and counts said in words.
WEEKDAYS = {
    name: number - 1
    for name, number in (
        language.numbered("WEEKDAYS") | language.table("WEEKDAY_SPELLINGS") | language.table("WEEKDAY_ABBREVIATIONS")
    ).items()
}
_NUMBERS = language.table("NUMBER_WORDS")
_N = r"(\d{1,2}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_WD = "(" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + ")"
# Units of time said in words ("days", "settimane"), by the unit they are.
_UNIT_OF = language.table("DATE_UNITS")
_UNITS = "(" + "|".join(sorted(_UNIT_OF, key=lambda u: (-len(u), u))) + ")"
_LABELS = {lang: module.DATE_LABELS for lang, module in language.LANGUAGES.items()}

# A resolved date as this module writes it: what the fact rescue must not treat as typed.
RESOLVED_RE = re.compile(
    r"\[(?:(?:"
    + "|".join(re.escape(label) for labels in _LABELS.values() for label in labels.values())
    + r") )?\d{4}(?:-\d{2}){0,2}\]"
)


def _day(d: date) -> str:
    return f"[{d.isoformat()}]"


def _week(d: date, lang: str) -> str:
    monday = d - timedelta(days=d.weekday())
    return f"[{_LABELS[lang]['week']} {monday.isoformat()}]"


def _weekend(d: date, lang: str) -> str:
    saturday = d + timedelta(days=(5 - d.weekday()))
    return f"[{_LABELS[lang]['weekend']} {saturday.isoformat()}]"


def _month(d: date, shift: int) -> str:
    index = d.year * 12 + d.month - 1 + shift
    return f"[{index // 12}-{index % 12 + 1:02d}]"


def _number(token: str) -> int:
    token = token.lower()
    return int(token) if token.isdigit() else _NUMBERS.get(token, 1)


def _groups(m: re.Match[str]) -> list[str]:
    """What the phrase's groups caught (each language's alternative has its own groups)."""
    return [g for g in m.groups() if g is not None]


def _ago(m: re.Match[str], today: date, sign: int, lang: str) -> str:
    amount, unit = _groups(m)
    amount_n = _number(amount)
    kind = _UNIT_OF[unit.lower()]
    if kind == "day":
        return _day(today + timedelta(days=sign * amount_n))
    if kind == "week":
        return _week(today + timedelta(weeks=sign * amount_n), lang)
    if kind == "month":
        return _month(today, sign * amount_n)
    return f"[{today.year + sign * amount_n}]"


def _last_weekday(m: re.Match[str], t: date, lang: str) -> str:
    wanted = WEEKDAYS[_groups(m)[0].lower()]
    return _day(t - timedelta(days=(t.weekday() - wanted - 1) % 7 + 1))


def _next_weekday(m: re.Match[str], t: date, lang: str) -> str:
    wanted = WEEKDAYS[_groups(m)[0].lower()]
    return _day(t + timedelta(days=(wanted - t.weekday() - 1) % 7 + 1))


Resolver = Callable[[re.Match[str], date, str], str]


def _shift(days: int) -> Resolver:
    return lambda m, t, lang: _day(t + timedelta(days=days))


# What each phrase of ``RELATIVE_DATES`` (every language's) resolves to, as
# resolver(match, today, language of the text) -> replacement. Longer phrases first.
_RESOLVERS: list[tuple[str, Resolver]] = [
    ("day_before_yesterday", _shift(-2)),
    ("day_after_tomorrow", _shift(2)),
    ("yesterday", _shift(-1)),
    ("today", _shift(0)),
    ("tomorrow", _shift(1)),
    ("last_weekday", _last_weekday),
    ("next_weekday", _next_weekday),
    ("last_weekend", lambda m, t, lang: _weekend(t - timedelta(days=7), lang)),
    ("this_weekend", lambda m, t, lang: _weekend(t, lang)),
    ("next_weekend", lambda m, t, lang: _weekend(t + timedelta(days=7), lang)),
    ("last_week", lambda m, t, lang: _week(t - timedelta(weeks=1), lang)),
    ("next_week", lambda m, t, lang: _week(t + timedelta(weeks=1), lang)),
    ("this_week", lambda m, t, lang: _week(t, lang)),
    ("last_month", lambda m, t, lang: _month(t, -1)),
    ("next_month", lambda m, t, lang: _month(t, 1)),
    ("this_month", lambda m, t, lang: _month(t, 0)),
    ("last_year", lambda m, t, lang: f"[{t.year - 1}]"),
    ("next_year", lambda m, t, lang: f"[{t.year + 1}]"),
    ("this_year", lambda m, t, lang: f"[{t.year}]"),
    ("ago", lambda m, t, lang: _ago(m, t, -1, lang)),
    ("from_now", lambda m, t, lang: _ago(m, t, 1, lang)),
]


def _phrase(key: str) -> str:
    """Every language's phrases ``key`` as one regex, each a whole word or words."""
    return "|".join(
        rf"\b(?:{p})\b".replace("{weekday}", _WD).replace("{n}", _N).replace("{unit}", _UNITS)
        for p in language.entries("RELATIVE_DATES", key).values()
    )


_COMPILED: list[tuple[re.Pattern[str], Resolver]] = [(re.compile(_phrase(k), re.IGNORECASE), f) for k, f in _RESOLVERS]
# The words that say a text is in a language other than the default, by language.
_HINTS = {
    lang: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(module.DATE_HINTS)) + r")\b", re.I)
    for lang, module in language.LANGUAGES.items()
    if module.DATE_HINTS
}


def text_language(text: str) -> str:
    """The language the text's dates are written in: the first with two of its hints, else the default."""
    return next((lang for lang, rx in _HINTS.items() if len(rx.findall(text)) >= 2), language.DEFAULT)


def resolve_relative_dates(text: str, *, today: date) -> str:
    """``text`` with each relative date phrase replaced by the date it meant on ``today``."""
    lang = text_language(text)
    for rx, resolve in _COMPILED:
        text = rx.sub(functools.partial(_resolved, resolve, today, lang), text)
    return text


def _resolved(resolve: Resolver, today: date, lang: str, match: re.Match[str]) -> str:
    return resolve(match, today, lang)
