"""Reading what a model writes into a date or time field as the ISO value the field takes.

``<input type=date|time|datetime-local|month|week>`` only accept ISO values (``2010-05-20``,
``14:05``, ``2010-05-20T14:05``, ``2010-05``, ``2010-W20``); typing ``05/20/2010`` into one does
nothing. :func:`to_field_value` reads the usual spellings (``05/20/2010``, ``20.05.2010``,
``May 20, 2010``, ``20 May 2010``, ``2pm``, ``2:30 PM``, ``noon``) and says how it read an
ambiguous one (``05/06/2010`` is month/day, as an American form would, unless the first number
cannot be a month). Pure: no browser.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..errors import InvalidArgumentError

__all__ = ["DATE_TYPES", "FieldValue", "to_field_value"]

DATE_TYPES = frozenset({"date", "time", "datetime-local", "month", "week"})
"""Input types whose value is an ISO date or time."""

_FORMATS = {
    "date": "a date like 2010-05-20 (year-month-day)",
    "time": "a time like 14:05 (24-hour hours:minutes)",
    "datetime-local": "a date and time like 2010-05-20T14:05",
    "month": "a month like 2010-05 (year-month)",
    "week": "a week like 2010-W20 (year, ISO week number)",
}

_MONTHS = {name: i + 1 for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec"),
)) for name in names}
_MONTH = r"(?P<mname>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+)?"

_DATE_PATTERNS = [
    (re.compile(r"^(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})$"), "ymd"),
    (re.compile(r"^(?P<a>\d{1,2})[/](?P<b>\d{1,2})[/](?P<y>\d{2}|\d{4})$"), "us"),
    (re.compile(r"^(?P<d>\d{1,2})[.-](?P<m>\d{1,2})[.-](?P<y>\d{4})$"), "dmy"),
    (re.compile(r"^" + _WEEKDAY + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})$"),
     "mdy"),
    (re.compile(r"^" + _WEEKDAY + r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH
                + r",?\s+(?P<y>\d{4})$"), "dmy"),
]
_MONTH_PATTERNS = [
    re.compile(r"^(?P<y>\d{4})[-/.](?P<m>\d{1,2})$"),
    re.compile(r"^(?P<m>\d{1,2})[-/.](?P<y>\d{4})$"),
    re.compile(r"^" + _MONTH + r",?\s+(?P<y>\d{4})$"),
]
_WEEK_PATTERNS = [
    re.compile(r"^(?P<y>\d{4})-?w(?P<w>\d{1,2})$"),
    re.compile(r"^(?:week|wk)\s*(?P<w>\d{1,2}),?\s+(?:of\s+)?(?P<y>\d{4})$"),
]
_TIME = re.compile(
    r"^(?P<h>\d{1,2})(?:[:.h](?P<mi>\d{2})(?::(?P<s>\d{2}))?)?\s*(?P<ap>a\.?m\.?|p\.?m\.?)?$")
_SPLIT = re.compile(r"^(?P<date>.+?)(?:t|\s+at\s+|,\s*|\s+)(?P<time>\d{1,2}(?:[:.h]\d{2})?"
                    r"(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)?|noon|midnight)$")


@dataclass(frozen=True)
class FieldValue:
    """The value to set and, when the text was ambiguous, how it was read."""

    value: str
    note: str = ""


def _bad(text: str, kind: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"Cannot read {text[:60]!r} as a {kind.replace('-local', '')} value: this field takes "
        f"{_FORMATS[kind]}.",
        hint=f"Call web_fill again with {_FORMATS[kind]}.",
    )


def _year(text: str) -> int:
    y = int(text)
    return y + (2000 if y < 70 else 1900) if len(text) == 2 else y


def _date(text: str) -> tuple[dt.date, str] | None:
    for pattern, order in _DATE_PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        g = m.groupdict()
        note = ""
        if order == "us":
            a, b = int(g["a"]), int(g["b"])
            month, day = (a, b) if a <= 12 else (b, a)
            if a <= 12 and b <= 12 and a != b:
                note = f"read {text} as month/day/year"
        else:
            month = _MONTHS[g["mname"]] if g.get("mname") else int(g["m"])
            day = int(g["d"])
        try:
            return dt.date(_year(g["y"]), month, day), note
        except ValueError:
            return None
    return None


def _time(text: str) -> dt.time | None:
    if text in ("noon", "midday"):
        return dt.time(12, 0)
    if text == "midnight":
        return dt.time(0, 0)
    m = _TIME.match(text)
    if not m:
        return None
    h, mi, s = int(m["h"]), int(m["mi"] or 0), int(m["s"] or 0)
    ap = (m["ap"] or "").replace(".", "")
    if ap:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ap == "pm" else 0)
    elif m["mi"] is None:
        return None  # a bare number is not a time
    try:
        return dt.time(h, mi, s)
    except ValueError:
        return None


def _iso_time(t: dt.time) -> str:
    return t.strftime("%H:%M:%S" if t.second else "%H:%M")


def to_field_value(text: str, kind: str) -> FieldValue:
    """``text`` as the value an ``<input type=kind>`` takes. Raises
    :class:`~webrefs.errors.InvalidArgumentError` naming the format when it cannot be read."""
    if kind not in DATE_TYPES:
        raise ValueError(f"not a date or time input type: {kind}")
    raw = " ".join(text.split())
    low = raw.lower()
    if kind == "date":
        got = _date(low)
        if got is None:
            raise _bad(raw, kind)
        return FieldValue(got[0].isoformat(), got[1])
    if kind == "time":
        t = _time(low)
        if t is None:
            raise _bad(raw, kind)
        return FieldValue(_iso_time(t))
    if kind == "datetime-local":
        m = _SPLIT.match(low)
        got = _date(m["date"].strip(" ,")) if m else None
        t = _time(m["time"].replace(" ", "")) if m else None
        if got is None or t is None:
            raise _bad(raw, kind)
        return FieldValue(f"{got[0].isoformat()}T{_iso_time(t)}", got[1])
    if kind == "month":
        for pattern in _MONTH_PATTERNS:
            mm = pattern.match(low)
            if mm:
                g = mm.groupdict()
                month = _MONTHS[g["mname"]] if g.get("mname") else int(g["m"])
                if 1 <= month <= 12:
                    return FieldValue(f"{int(g['y']):04d}-{month:02d}")
        got = _date(low)
        if got is None:
            raise _bad(raw, kind)
        return FieldValue(f"{got[0].year:04d}-{got[0].month:02d}", got[1])
    for pattern in _WEEK_PATTERNS:
        mw = pattern.match(low)
        if mw and 1 <= int(mw["w"]) <= 53:
            return FieldValue(f"{int(mw['y']):04d}-W{int(mw['w']):02d}")
    got = _date(low)
    if got is None:
        raise _bad(raw, kind)
    year, week, _ = got[0].isocalendar()
    return FieldValue(f"{year:04d}-W{week:02d}", got[1] or f"the week of {got[0].isoformat()}")
