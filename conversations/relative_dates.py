"""Relative dates ("yesterday", "last week", "ieri", "la settimana scorsa") made absolute.

A summary line outlives the day it was said on: "yesterday" three sessions later
means nothing. Each phrase is resolved against the date of the message that holds it
and written in square brackets, ISO-style, so a line reads the same in English and
Italian: ``[2023-05-07]`` (a day), ``[week of 2023-05-01]`` (Monday of that week),
``[2023-04]`` (a month), ``[2022]`` (a year). The brackets also let the summarizer
tell a resolved date from one the user typed (``RESOLVED_RE``): only typed ones are
identifiers to rescue.
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
_WD = "|".join(sorted(WEEKDAYS, key=len, reverse=True))

# A resolved date as this module writes it: what the fact rescue must not treat as typed.
RESOLVED_RE = re.compile(r"\[(?:week of |weekend of |settimana del |weekend del )?\d{4}(?:-\d{2}){0,2}\]")


def _day(d: date) -> str:
    return f"[{d.isoformat()}]"


def _week(d: date, italian: bool) -> str:
    monday = d - timedelta(days=d.weekday())
    return f"[{'settimana del' if italian else 'week of'} {monday.isoformat()}]"


def _weekend(d: date, italian: bool) -> str:
    saturday = d + timedelta(days=(5 - d.weekday()))
    return f"[weekend {'del' if italian else 'of'} {saturday.isoformat()}]"


def _month(d: date, shift: int) -> str:
    index = d.year * 12 + d.month - 1 + shift
    return f"[{index // 12}-{index % 12 + 1:02d}]"


def _number(token: str) -> int:
    token = token.lower()
    return int(token) if token.isdigit() else _NUMBERS.get(token, 1)


def _ago(amount: int, unit: str, today: date, sign: int, italian: bool) -> str:
    unit = unit.lower()
    if unit.startswith(("day", "giorn")):
        return _day(today + timedelta(days=sign * amount))
    if unit.startswith(("week", "settiman")):
        return _week(today + timedelta(weeks=sign * amount), italian)
    if unit.startswith(("month", "mes")):
        return _month(today, sign * amount)
    return f"[{today.year + sign * amount}]"


def _last_weekday(m: re.Match[str], t: date, i: bool) -> str:
    wanted = WEEKDAYS[(m[1] or m[2]).lower()]
    return _day(t - timedelta(days=(t.weekday() - wanted - 1) % 7 + 1))


def _next_weekday(m: re.Match[str], t: date, i: bool) -> str:
    wanted = WEEKDAYS[(m[1] or m[2]).lower()]
    return _day(t + timedelta(days=(wanted - t.weekday() - 1) % 7 + 1))


def _coming_weekend(m: re.Match[str], t: date, i: bool) -> str:
    this = m[0].lower().startswith(("this", "questo"))
    return _weekend(t if this else t + timedelta(days=7), i)


def _shift(days: int) -> Callable[[re.Match[str], date, bool], str]:
    return lambda m, t, i: _day(t + timedelta(days=days))


_UNITS = r"(days?|weeks?|months?|years?|giorni|giorno|settimane|settimana|mesi|mese|anni|anno)"
# (pattern, resolver(match, today, italian) -> replacement). Longer phrases first.
_RULES = [
    (r"\b(?:the )?day before yesterday\b|\bl'altro ?ieri\b|\baltroieri\b", _shift(-2)),
    (r"\b(?:the )?day after tomorrow\b|\bdopodomani\b", _shift(2)),
    (r"\b(?:yesterday|last night)\b|\bieri(?: sera| mattina| pomeriggio)?\b", _shift(-1)),
    (r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", _shift(0)),
    (r"\b(?:oggi|stasera|stamattina|stamani|stanotte)\b", _shift(0)),
    (r"\btomorrow\b|\bdomani\b", _shift(1)),
    (rf"\b(?:last|this past) ({_WD})\b|\b({_WD}) scors[oa]\b", _last_weekday),
    (rf"\bnext ({_WD})\b|\b({_WD}) prossim[oa]\b", _next_weekday),
    (r"\blast weekend\b|\bil (?:fine settimana|weekend) scorso\b", lambda m, t, i: _weekend(t - timedelta(days=7), i)),
    (r"\b(?:this|next) weekend\b|\bquesto (?:fine settimana|weekend)\b", _coming_weekend),
    (r"\bil (?:fine settimana|weekend) prossimo\b", _coming_weekend),
    (r"\blast week\b|\b(?:la )?settimana scorsa\b", lambda m, t, i: _week(t - timedelta(weeks=1), i)),
    (r"\bnext week\b|\b(?:la )?settimana prossima\b", lambda m, t, i: _week(t + timedelta(weeks=1), i)),
    (r"\bla prossima settimana\b", lambda m, t, i: _week(t + timedelta(weeks=1), i)),
    (r"\bthis week\b|\bquesta settimana\b", lambda m, t, i: _week(t, i)),
    (r"\blast month\b|\b(?:il )?mese scorso\b", lambda m, t, i: _month(t, -1)),
    (r"\bnext month\b|\bil (?:mese prossimo|prossimo mese)\b", lambda m, t, i: _month(t, 1)),
    (r"\bthis month\b|\bquesto mese\b", lambda m, t, i: _month(t, 0)),
    (r"\blast year\b|\b(?:l')?anno scorso\b", lambda m, t, i: f"[{t.year - 1}]"),
    (r"\bnext year\b|\bl'anno prossimo\b|\bil prossimo anno\b", lambda m, t, i: f"[{t.year + 1}]"),
    (r"\bthis year\b|\bquest'anno\b", lambda m, t, i: f"[{t.year}]"),
    (rf"\b{_N} {_UNITS} (?:ago|fa)\b", lambda m, t, i: _ago(_number(m[1]), m[2], t, -1, i)),
    (rf"\b(?:in|tra|fra) {_N} {_UNITS}\b", lambda m, t, i: _ago(_number(m[1]), m[2], t, 1, i)),
]  # fmt: skip
Resolver = Callable[[re.Match[str], date, bool], str]
_COMPILED: list[tuple[re.Pattern[str], Resolver]] = [(re.compile(p, re.IGNORECASE), f) for p, f in _RULES]
_ITALIAN_HINT = re.compile(
    r"\b(il|lo|la|gli|che|non|sono|ho|abbiamo|per|una|della|del|ieri|oggi|domani|settimana|scorsa|scorso)\b", re.I
)


def looks_italian(text: str) -> bool:
    return len(_ITALIAN_HINT.findall(text)) >= 2


def resolve_relative_dates(text: str, *, today: date) -> str:
    """``text`` with each relative date phrase replaced by the date it meant on ``today``."""
    italian = looks_italian(text)
    for rx, resolve in _COMPILED:
        text = rx.sub(functools.partial(_resolved, resolve, today, italian), text)
    return text


def _resolved(resolve: Resolver, today: date, italian: bool, match: re.Match[str]) -> str:
    return resolve(match, today, italian)
