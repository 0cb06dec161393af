"""Dates and times as people say them, resolved in code against a given now and zone.

The one date and time resolver of kept. A model asked to turn "next Tuesday"
into a date gets it wrong often enough to matter, and a fact read months
later is useless with "next Tuesday" in it. So words stay as said, and code
works out what they mean:

- ``find`` / ``resolve`` / ``annotate``: relative dates in free text
  ("the review is next Tuesday" -> "... next Tuesday (2026-10-13)"), against
  the day of the message that said them. Used by memory writing.
- ``read`` / ``moment``: a whole day-and-time phrase, as a tool receives it
  ("Thursday next week at 11", "下周五下午两点"), to an aware datetime in the
  person's zone. Used by tools.when (which adds only booking concerns).

Both read days with the same rules (``_RULES``), so a phrase means the same
date in a fact and in a booking. Conventions (English and Chinese alike,
weeks start on Monday):

- "next <weekday>" / "下周二" / "<weekday> next week" is that weekday in next
  calendar week; "last <weekday>" / "上周二" in the previous week; "这周二"
  / "<weekday> this week" in the current week. "this Friday" is the coming
  one (today when it is Friday). A bare weekday ("Friday", "on Friday",
  "周五") is the first one after today: said on a Friday it means next week's.
- "next week" is the Monday-to-Sunday week after the current one; weekends
  are its Saturday and Sunday. "next month" / "下个月" is a calendar month.
- "in two weeks" / "两周后" / "two weeks from today" counts from the day it is
  said; "a week from Friday" counts from that Friday. British and Irish
  English: "Friday week" / "Friday fortnight" is a week / two after the coming
  Friday; "a week today", "tomorrow week", "a week on Tuesday" count from the
  day named. "the Tuesday after next" is the one after "next Tuesday".
- "the first Monday of March", "the last Friday of the month",
  "下个月第一个周一": that weekday of that month (a month named alone is its
  next one whose day is still ahead). "the day after the 20th", "three days
  before Christmas", "月底前一天" count from the day they name.
- Days with a fixed date by name (Christmas Eve, Boxing Day, New Year's Day,
  元旦, 平安夜, 国庆节) are the next one, today counting; moveable feasts are not
  read.
- The end of the working day ("EOD", "COB", "close of business", "end of
  play") is 17:00, 下班 18:00; "first thing" is the morning.
- "the 22nd" / "22号" is the next 22nd, today counting (a month without
  one is skipped); "下个月5号" is the 5th of next month. "end of the month" /
  "月底" is its last day; "end of the week" is its Friday.
- A month and day without a year ("Dec 3", "12月3日") is the next such day,
  today counting. Numeric dates: "25/11" and "11/25" are the 25th of
  November (only one reading is a date); "4/12" could be 4 December or
  12 April, and is refused.
- A time alone ("3pm") is its next occurrence: today if still ahead, else
  tomorrow. An hour 1-6 written without am/pm or a leading zero ("at 3",
  "half past two", "3点") is the afternoon: meetings at 3 a.m. are rarer than
  typos. "morning" / 上午 is 09:00, "noon" / 中午 12:00, "afternoon" / 下午
  14:00, "evening" / "tonight" / 晚上 19:00 when no hour is given.
- "in 2 hours" is exact elapsed time (through UTC); "tomorrow at 9" is wall
  clock time on that day. A wall time skipped by a spring-forward moves
  forward by the gap; one that happens twice (fall-back) is the first.

What is refused, with the readings named (``Ambiguous``), never guessed:
a weekend or a week where a day is needed ("this weekend at 10"), two
options ("Monday or Tuesday"), a vague count ("in a few days"), midnight of
a named day (its start or its end), a weekday that contradicts the date
beside it ("Friday the 21st" when the 21st is a Saturday), and numeric dates
with two readings.
"""

from __future__ import annotations

import calendar
import contextvars
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from memory.text import day_words
from memory.text.numbers import CN_NUMERAL, EN_NUMBER, EN_ONES, cn_int, to_int
from memory.text.script import quotes_original, reads_simplified
from memory.text.words import STOP_WORDS

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class DateError(ValueError):
    """A phrase that is not a day or time kept can read; the text says why."""


class Ambiguous(DateError):
    """A phrase with more than one reading; ``readings`` names them."""

    def __init__(self, phrase: str, readings: list[str], hint: str = "say which", *, conflict: bool = False):
        self.readings = readings
        self.conflict = conflict  # two readings said side by side ("Friday the 21st"), not one unclear one
        super().__init__(f"{phrase!r} is ambiguous: {' or '.join(readings)}; {hint}")


# --- spans and calendar arithmetic ------------------------------------------


@dataclass(frozen=True)
class Span:
    """A resolved date: one day, a range of days, or a calendar month or year."""

    start: date
    end: date
    unit: str = "day"  # day, range, month, year
    weekday: int | None = None  # a bare weekday ("on Friday", "周五"): beside a date it only checks it

    def label(self) -> str:
        if self.unit == "month":
            return self.start.strftime("%Y-%m")
        if self.unit == "year":
            return str(self.start.year)
        if self.start == self.end:
            return self.start.isoformat()
        return f"{self.start.isoformat()} to {self.end.isoformat()}"


def _day(d: date) -> Span:
    return Span(d, d)


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _week(d: date) -> Span:
    start = _week_start(d)
    return Span(start, start + timedelta(days=6), "range")


def _weekend(d: date) -> Span:
    sat = _week_start(d) + timedelta(days=5)
    return Span(sat, sat + timedelta(days=1), "range")


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _month(d: date, shift: int) -> Span:
    first = _add_months(d.replace(day=1), shift)
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    return Span(first, last, "month")


def _year(d: date, shift: int) -> Span:
    return Span(date(d.year + shift, 1, 1), date(d.year + shift, 12, 31), "year")


def _next_weekday(ref: date, weekday: int) -> date:
    """The first ``weekday`` strictly after ``ref``."""
    return ref + timedelta(days=(weekday - ref.weekday() - 1) % 7 + 1)


def _coming_weekday(ref: date, weekday: int) -> date:
    """The first ``weekday`` on or after ``ref``."""
    return ref + timedelta(days=(weekday - ref.weekday()) % 7)


def _in_week(ref: date, week_shift: int, weekday: int) -> date:
    return _week_start(ref) + timedelta(weeks=week_shift, days=weekday)


def _nth_of_month(ref: date, day: int, month_shift: int | None = None) -> date:
    """The ``day``-th of the month ``month_shift`` months on; without a shift, the next one, today counting."""
    if not 1 <= day <= 31:
        raise ValueError(day)
    first = ref.replace(day=1)
    shifts = [month_shift] if month_shift is not None else range(0, 13)
    for shift in shifts:
        month = _add_months(first, shift)
        if day <= calendar.monthrange(month.year, month.month)[1]:
            candidate = month.replace(day=day)
            if month_shift is not None or candidate >= ref:
                return candidate
    raise ValueError(day)


def _month_end(ref: date, shift: int = 0) -> date:
    return _month(ref, shift).end


# --- counts -------------------------------------------------------------------

# Set while a booking phrase is read: a vague count ("a few days") is refused
# there, while memory annotation still reads it as about three.
_STRICT = contextvars.ContextVar("strict_dates", default=False)
_VAGUE_COUNT = re.compile(r"^(?:a few|few|several|a couple of|couple of|some)$", re.I)


def _count(word: str) -> int:
    word = word.strip().lower()
    if _STRICT.get() and _VAGUE_COUNT.match(word) and word not in ("a couple of", "couple of"):
        raise Ambiguous(word, [f"{word!r} is not a number"], "say how many")
    value = to_int(word, approx=True)
    if value is None:
        raise ValueError(word)
    return value


def _zh_count(text: str) -> int:
    value = cn_int(text)
    if value is None:
        raise ValueError(text)
    return value


def _shift(ref: date, n: int, unit: str) -> Span:
    unit = unit.lower().rstrip("s")
    if unit in ("day", "天", "日"):
        return _day(ref + timedelta(days=n))
    if unit in ("week", "周", "星期", "个星期", "礼拜", "个礼拜", "fortnight"):
        return _day(ref + timedelta(weeks=n * (2 if unit == "fortnight" else 1)))
    if unit in ("month", "个月", "月"):
        return _day(_add_months(ref, n))
    if unit in ("year", "年"):
        return _day(_add_months(ref, 12 * n))
    raise ValueError(unit)


# --- English ---------------------------------------------------------------

_WEEKDAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WD = r"(?P<wd>mon(?:day)?|tue(?:s|sday)?|wed(?:s|nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
_NUM = r"(?P<n>\d+|a couple of|couple of|a few|few|several|" + EN_NUMBER + ")"
_UNIT = r"(?P<unit>days?|weeks?|fortnights?|months?|years?)"
_ANCHOR_DAYS = {"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1}
_MONTH_NAMES = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)


def _wd(name: str) -> int:
    name = name.lower()
    return next(i for i, w in enumerate(_WEEKDAY_NAMES) if w.startswith(name[:3]))


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """The ``nth`` ``weekday`` of a month (1 the first, -1 the last); None when it has no such day."""
    days = [d for d in range(1, calendar.monthrange(year, month)[1] + 1) if date(year, month, d).weekday() == weekday]
    return date(year, month, days[nth if nth < 0 else nth - 1]) if -len(days) <= nth <= len(days) and nth else None


def _nth_weekday_ahead(ref: date, month: int | None, shift: int, weekday: int, nth: int) -> date:
    """The ``nth`` ``weekday`` of a month named (the next such month whose day is still ahead, today
    counting) or of the month ``shift`` from ``ref``'s ("next month": 1)."""
    if month is None:
        first = _add_months(ref.replace(day=1), shift)
        found = _nth_weekday(first.year, first.month, weekday, nth)
        if found is None:
            raise DateError(f"{first:%B %Y} has no such {WEEKDAYS[weekday]}")
        return found
    for year in (ref.year, ref.year + 1):
        found = _nth_weekday(year, month, weekday, nth)
        if found is not None and found >= ref:
            return found
    raise DateError(f"no such {WEEKDAYS[weekday]} in {calendar.month_name[month]}")


_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}
# Days with a fixed date that people book by name (moveable feasts, which differ by country and
# calendar, are not read).
_EN_HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "xmas eve": (12, 24),
    "xmas day": (12, 25),
    "xmas": (12, 25),
    "boxing day": (12, 26),
    "new years eve": (12, 31),  # written with or without its apostrophe: "New Year's Eve"
    "new years day": (1, 1),
    "valentines day": (2, 14),
    "halloween": (10, 31),
}


def _next_month_day(ref: date, month: int, day: int) -> Span:
    """A day of the year named without its year: the next one, today counting."""
    candidate = date(ref.year, month, day)
    return _day(candidate if candidate >= ref else date(ref.year + 1, month, day))


def _en_rules():
    R = []

    def rule(pattern, in_text=True):
        def wrap(fn):
            R.append((re.compile(pattern, re.IGNORECASE), fn, in_text))
            return fn

        return wrap

    # "the Tuesday after next": the one after "next Tuesday", so in the week after next
    @rule(r"\b(?:the )?" + _WD + r" after next\b")
    def _(m, ref):
        return _day(_in_week(ref, 2, _wd(m.group("wd"))))

    # British and Irish English: "Friday week" and "Wednesday fortnight" are a week and two after the
    # coming one; "tomorrow week", "a week today", "a fortnight tomorrow", "a week on Tuesday", "two
    # weeks on Monday" count from the day named.
    @rule(r"\b" + _WD + r" (?P<u>week|fortnight)\b(?!'|\w)")
    def _(m, ref):
        return _day(
            _next_weekday(ref, _wd(m.group("wd"))) + timedelta(weeks=1 if m.group("u").lower() == "week" else 2)
        )

    @rule(r"\b(?P<anchor>today|tomorrow) (?P<u>week|fortnight)\b")
    def _(m, ref):
        weeks = 1 if m.group("u").lower() == "week" else 2
        return _day(ref + timedelta(days=_ANCHOR_DAYS[m.group("anchor").lower()], weeks=weeks))

    @rule(r"\b" + _NUM + " " + _UNIT + r" (?:(?P<anchor>today|tomorrow)|on " + _WD + r")\b")
    def _(m, ref):
        if m.group("anchor"):
            base = ref + timedelta(days=_ANCHOR_DAYS[m.group("anchor").lower()])
        else:
            base = _next_weekday(ref, _wd(m.group("wd")))
        return _shift(base, _count(m.group("n")), m.group("unit"))

    # "the first Monday of March", "the last Friday of the month", "the second Thursday of next month"
    @rule(
        r"\b(?:the )?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last) "
        + _WD
        + r" (?:of|in) (?:(?P<which>next|this|the) month|(?P<mo>"
        + _MONTH_NAMES
        + r"))\b"
    )
    def _(m, ref):
        month = _EN_MONTH[m.group("mo").lower()] if m.group("mo") else None
        shift = 1 if (m.group("which") or "").lower() == "next" else 0
        return _day(_nth_weekday_ahead(ref, month, shift, _wd(m.group("wd")), _ORDINAL[m.group("nth").lower()]))

    # A day with a fixed date, by name: the next one, today counting ("Christmas Eve", "New Year's Day")
    @rule(r"\b(?:" + "|".join(sorted(_EN_HOLIDAYS, key=len, reverse=True)).replace("s ", "['’]?s ") + r")\b")
    def _(m, ref):
        return _next_month_day(ref, *_EN_HOLIDAYS[re.sub(r"['’]", "", m.group(0).lower())])

    # The article is often dropped ("Day after tomorrow, ten past three"): without this rule its
    # "tomorrow" alone was read, a day early.
    @rule(r"\b(?:the )?day after tomorrow\b")
    def _(m, ref):
        return _day(ref + timedelta(days=2))

    @rule(r"\b(?:the )?day before yesterday\b")
    def _(m, ref):
        return _day(ref - timedelta(days=2))

    # "Thursday next week", "Thursday of next week", "next week Thursday", "the week after next on Monday"
    @rule(r"\b" + _WD + r"(?:,)? (?:of )?(?P<which>next|this|last) week\b")
    def _(m, ref):
        return _day(_in_week(ref, {"next": 1, "this": 0, "last": -1}[m.group("which").lower()], _wd(m.group("wd"))))

    @rule(r"\b(?P<which>next|this|last) week(?:,)? (?:on )?" + _WD + r"\b")
    def _(m, ref):
        return _day(_in_week(ref, {"next": 1, "this": 0, "last": -1}[m.group("which").lower()], _wd(m.group("wd"))))

    @rule(
        r"\b"
        + _WD
        + r"(?:,)? (?:of )?the week after next\b|\bthe week after next(?:,)? (?:on )?"
        + _WD.replace("wd", "wd2")
        + r"\b"
    )
    def _(m, ref):
        return _day(_in_week(ref, 2, _wd(m.group("wd") or m.group("wd2"))))

    @rule(r"\bthe week after next\b")
    def _(m, ref):
        return _week(ref + timedelta(weeks=2))

    # "a week from Friday", "two weeks from tomorrow", "3 weeks from today"
    @rule(
        r"\b"
        + _NUM
        + " "
        + _UNIT
        + r" (?:from|after) (?:(?P<anchor>today|now|tomorrow|yesterday)|(?:(?P<which>next|this) )?"
        + _WD
        + r")\b"
    )
    def _(m, ref):
        n, unit = _count(m.group("n")), m.group("unit")
        if m.group("anchor"):
            base = ref + timedelta(days=_ANCHOR_DAYS[m.group("anchor").lower()])
        else:
            wd, which = _wd(m.group("wd")), (m.group("which") or "").lower()
            base = (
                _in_week(ref, 1, wd)
                if which == "next"
                else (_coming_weekday(ref, wd) if which == "this" else _next_weekday(ref, wd))
            )
        return _shift(base, n, unit)

    @rule(r"\b(?:the )?end of (?:the |this )?(?P<what>day|week|month|year)\b|\b(?P<abbr>eod|eow|eom)\b")
    def _(m, ref):
        what = (m.group("what") or {"eod": "day", "eow": "week", "eom": "month"}[m.group("abbr").lower()]).lower()
        if what == "day":
            return _day(ref)
        if what == "week":  # the working week's last day
            return _day(_in_week(ref, 0, 4) if ref.weekday() <= 4 else _in_week(ref, 1, 4))
        return _day(_month_end(ref) if what == "month" else date(ref.year, 12, 31))

    @rule(r"\b(?:the )?end of next month\b")
    def _(m, ref):
        return _day(_month_end(ref, 1))

    # "the 5th of next month"
    @rule(r"\bthe (?P<d>\d{1,2})(?:st|nd|rd|th) of (?P<which>next|this) month\b")
    def _(m, ref):
        return _day(_nth_of_month(ref, int(m.group("d")), 1 if m.group("which").lower() == "next" else 0))

    @rule(r"\b(?:next|last|this|coming|past) weekend\b")
    def _(m, ref):
        word = m.group(0).split()[0].lower()
        return _weekend(ref + timedelta(weeks={"next": 1, "last": -1, "past": -1}.get(word, 0)))

    @rule(r"\b(?P<which>next|last|this coming|this|coming|past) " + _WD + r"\b")
    def _(m, ref):
        wd, which = _wd(m.group("wd")), m.group("which").lower()
        if which in ("coming", "this coming"):
            return _day(_next_weekday(ref, wd))
        if which == "past":
            return _day(_next_weekday(ref, wd) - timedelta(weeks=1))
        if which == "this":
            return _day(_coming_weekday(ref, wd))
        return _day(_in_week(ref, {"next": 1, "last": -1}[which], wd))

    @rule(r"\b(?P<which>next|last|this|coming|past) (?P<what>week|month|year)\b")
    def _(m, ref):
        shift = {"next": 1, "coming": 1, "last": -1, "past": -1, "this": 0}[m.group("which").lower()]
        what = m.group("what").lower()
        if what == "week":
            return _week(ref + timedelta(weeks=shift))
        return _month(ref, shift) if what == "month" else _year(ref, shift)

    @rule(r"\bin " + _NUM + " " + _UNIT + r"(?: time)?\b")
    def _(m, ref):
        return _shift(ref, _count(m.group("n")), m.group("unit"))

    @rule(r"\b" + _NUM + " " + _UNIT + r" (?:ago|earlier|before)\b")
    def _(m, ref):
        return _shift(ref, -_count(m.group("n")), m.group("unit"))

    # "on the 22nd", "the 1st": the next such day, today counting (not "the 3rd of May": a date, read elsewhere)
    @rule(
        r"\b(?:on |by |until |till |before |from )?the (?P<d>\d{1,2})(?:st|nd|rd|th)\b(?! (?:of )?"
        + _MONTH_NAMES
        + r"\b)",
        in_text=False,
    )
    def _(m, ref):
        return _day(_nth_of_month(ref, int(m.group("d"))))

    @rule(r"\b(?:tomorrow|tmrw|tmr)\b")
    def _(m, ref):
        return _day(ref + timedelta(days=1))

    @rule(r"\byesterday\b")
    def _(m, ref):
        return _day(ref - timedelta(days=1))

    @rule(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b")
    def _(m, ref):
        return _day(ref)

    @rule(r"\b(?:on|by|until|till|before|after|from) " + _WD + r"\b(?!\.\w)")
    def _(m, ref):
        wd = _wd(m.group("wd"))
        return Span(_next_weekday(ref, wd), _next_weekday(ref, wd), weekday=wd)

    return R


# --- Chinese ---------------------------------------------------------------

_ZH_WD = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "六": 5,
    "日": 6,
    "天": 6,
    "末": None,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
}
_ZH_NUM = r"(?P<n>\d+|" + CN_NUMERAL + ")"
_ZH_WEEK = "(?:周|週|星期|礼拜|禮拜)"
_ZH_MONTH_SHIFT = {
    "下下个": 2,
    "上上个": -2,
    "下个": 1,
    "下個": 1,
    "上个": -1,
    "上個": -1,
    "这个": 0,
    "這個": 0,
    "本": 0,
    "下": 1,
    "上": -1,
}


def _zh_week_shift(word: str) -> int:
    return {
        "下下": 2,
        "下": 1,
        "上上": -2,
        "上": -1,
        "这": 0,
        "這": 0,
        "本": 0,
        "这个": 0,
        "下个": 1,
        "下個": 1,
        "上个": -1,
    }[word]


_ZH_HOLIDAYS = {
    "元旦": (1, 1),
    "情人节": (2, 14),
    "劳动节": (5, 1),
    "国庆节": (10, 1),
    "国庆": (10, 1),
    "万圣节": (10, 31),
    "平安夜": (12, 24),
    "圣诞节": (12, 25),
    "圣诞": (12, 25),
}
_ZH_ORDINAL = {"一": 1, "1": 1, "二": 2, "2": 2, "三": 3, "3": 3, "四": 4, "4": 4}


def _zh_rules():
    R = []

    def rule(pattern, in_text=True):
        def wrap(fn):
            R.append((re.compile(pattern), fn, in_text))
            return fn

        return wrap

    # 下个月第一个周一, 这个月最后一个周五, 三月第二个星期三
    @rule(
        r"(?:(?P<w>下下个|下个|下個|这个|這個|本|下)个?月|(?P<mo>\d{1,2}|十[一二]?|[一二三四五六七八九])月)的?"
        r"(?:第(?P<nth>[一二三四1-4])|(?P<last>最后))一?个?" + _ZH_WEEK + r"(?P<d>[一二三四五六日天1-7])"
    )
    def _(m, ref):
        weekday = _ZH_WD[m.group("d")]
        nth = -1 if m.group("last") else _ZH_ORDINAL[m.group("nth")]
        month = _zh_count(m.group("mo")) if m.group("mo") else None
        return _day(_nth_weekday_ahead(ref, month, _ZH_MONTH_SHIFT.get(m.group("w") or "", 0), weekday, nth))

    # A day with a fixed date, by name: the next one, today counting (元旦, 平安夜, 圣诞节)
    @rule("|".join(sorted(_ZH_HOLIDAYS, key=len, reverse=True)))
    def _(m, ref):
        return _next_month_day(ref, *_ZH_HOLIDAYS[m.group(0)])

    @rule(r"(?P<w>下下|上上|下个|下個|上个|下|上|这个|这|這|本)" + _ZH_WEEK + r"(?P<d>[一二三四五六日天末1-7])")
    def _(m, ref):
        shift, d = _zh_week_shift(m.group("w")), _ZH_WD[m.group("d")]
        if d is None:
            return _weekend(ref + timedelta(weeks=shift))
        return _day(_in_week(ref, shift, d))

    @rule(r"(?P<w>下下|上上|下个|下個|上个|下|上|这个|这|這|本)" + _ZH_WEEK)
    def _(m, ref):
        return _week(ref + timedelta(weeks=_zh_week_shift(m.group("w"))))

    # 月底 / 下个月底 / 月末: the month's last day
    @rule(r"(?P<w>下下个|上上个|下个|下個|上个|上個|这个|這個|本|下|上)?个?月(?:底|末)")
    def _(m, ref):
        return _day(_month_end(ref, _ZH_MONTH_SHIFT.get(m.group("w") or "", 0)))

    @rule(r"(?:年底|年末)")
    def _(m, ref):
        return _day(date(ref.year, 12, 31))

    # 下个月5号 / 这个月28日
    @rule(r"(?P<w>下下个|上上个|下个|下個|上个|上個|这个|這個|本)月(?P<d>\d{1,2}|" + CN_NUMERAL + r")(?:号|號|日)")
    def _(m, ref):
        return _day(_nth_of_month(ref, _zh_count(m.group("d")), _ZH_MONTH_SHIFT[m.group("w")]))

    @rule(r"(?P<w>下下个|上上个|下个|下個|上个|上個|这个|這個|本)月")
    def _(m, ref):
        return _month(ref, _ZH_MONTH_SHIFT[m.group("w")])

    @rule(r"(?P<w>大前|前|去|今|明|后|後|大后)年")
    def _(m, ref):
        return _year(ref, {"大前": -3, "前": -2, "去": -1, "今": 0, "明": 1, "后": 2, "後": 2, "大后": 3}[m.group("w")])

    @rule(_ZH_NUM + r"(?P<unit>天|个星期|個星期|星期|个礼拜|礼拜|周|个月|個月|年)(?:以后|之后|以後|之後|后|後)")
    def _(m, ref):
        return _shift(ref, _zh_count(m.group("n")), m.group("unit").lstrip("个個"))

    @rule(_ZH_NUM + r"(?P<unit>天|个星期|個星期|星期|个礼拜|礼拜|周|个月|個月|年)(?:以前|之前|前)")
    def _(m, ref):
        return _shift(ref, -_zh_count(m.group("n")), m.group("unit").lstrip("个個"))

    @rule(
        r"(?P<w>大后天|大後天|后天|後天|明天|明日|明早|明晚|今天|今日|今晚|今早|昨天|昨晚|前天|大前天|[今明昨前][儿兒]个?)"
    )
    def _(m, ref):
        return _day(
            ref
            + timedelta(
                days={
                    "大后天": 3,
                    "大後天": 3,
                    "后天": 2,
                    "後天": 2,
                    "明天": 1,
                    "明日": 1,
                    "明早": 1,
                    "明晚": 1,
                    "今天": 0,
                    "今日": 0,
                    "今晚": 0,
                    "今早": 0,
                    "昨天": -1,
                    "昨晚": -1,
                    "前天": -2,
                    "大前天": -3,
                }[_ERHUA_DAY.sub(r"\1天", m.group("w"))]
            )
        )

    @rule(r"(?<![上下这這本个個])" + _ZH_WEEK + r"(?P<d>[一二三四五六日天末1-7])")
    def _(m, ref):
        d = _ZH_WD[m.group("d")]
        if d is None:  # 周末: the coming weekend (this one while it lasts)
            return _weekend(ref)
        return Span(_next_weekday(ref, d), _next_weekday(ref, d), weekday=d)

    # 22号 / 5日 (not 12月5日, a date read elsewhere): the next such day, today counting
    @rule(r"(?<![\d月])(?P<d>\d{1,2}|" + CN_NUMERAL + r")(?:号|號)|(?<![\d月])(?P<d2>\d{1,2})日", in_text=False)
    def _(m, ref):
        return _day(_nth_of_month(ref, _zh_count(m.group("d") or m.group("d2"))))

    return R


class _DayWords:
    """The day words of other languages (``memory.text.day_words``) as a rule's pattern, compiled
    on first use: the table is read only when a text is."""

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return day_words.pattern().finditer(text)


def _a_name(word: str) -> bool:
    """Whether a day word of another language is, as written, a name: in Latin letters with a
    capital ("the truck to Sabah", "Bihar"), as English writes names. Only a day word written small
    is read as a day, so one opening a sentence ("Amanhã às 9h") is missed: a wrong day booked
    costs more than a day not read, which the person is asked for."""
    return word[:1].isupper() and day_words.latin(word)


def _day_word(m: re.Match[str], ref: date) -> Span:
    if _a_name(m.group(0)):
        raise ValueError(f"{m.group(0)!r} is a name")
    return _day(ref + timedelta(days=day_words.table()[m.group(0).lower()]))


# English, then Chinese, then the other languages' day words: where two read the same words, the
# earlier rule's reading stands.
_RULES = _en_rules() + _zh_rules() + [(_DayWords(), _day_word, True)]
_ALREADY = re.compile(r"^\s*[（(]\s*\d{4}")


@quotes_original
def find(text: str, ref: date, *, phrase: bool = False) -> list[tuple[int, int, str, Span]]:
    """Every relative date expression in ``text``: (start, end, words, span), in order, not overlapping.

    A bare day of the month ("the 12th", "12号") is read only in a phrase that
    is all about when (``phrase``): in running text it may be a past day
    ("it shipped on the 3rd"), and annotating it as the next one would be wrong."""
    taken: list[tuple[int, int, str, Span]] = []
    for pattern, resolve_match, in_text in _RULES:
        if not (in_text or phrase):
            continue
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < e and s < end for s, e, _, _ in taken):
                continue
            try:
                span = resolve_match(m, ref)
            except (KeyError, ValueError, OverflowError) as exc:
                if isinstance(exc, Ambiguous):
                    raise
                continue
            taken.append((start, end, m.group(0), span))
    return sorted(taken)


def resolve(expression: str, ref: date) -> Span | None:
    """The date ``expression`` names when said on ``ref``; None when it is not a relative date."""
    found = find(expression, ref, phrase=True)
    return found[0][3] if found else None


def annotate(text: str, ref: date) -> str:
    """``text`` with the calendar date added after each relative date it mentions.

    "the review is next Tuesday" said on 2026-10-07 becomes
    "the review is next Tuesday (2026-10-13)". Expressions already followed
    by a bracketed date are left alone, so annotating twice changes nothing.
    """
    out, last = [], 0
    for _, end, _, span in find(text, ref):
        if _ALREADY.match(text[end:]):
            continue
        out.append(text[last:end])
        out.append(f" ({span.label()})")
        last = end
    out.append(text[last:])
    return "".join(out)


_DAYS = r"mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# Some day or time named in words, as a quick test before reading a phrase in full.
_TIMEY = re.compile(
    r"\b\d{1,2}(:\d{2})?\s*(am|pm|a\.m\.|p\.m\.|h|uhr)\b|\b\d{1,2}[:.]\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}\b"
    r"|\b\d{1,2}h\d{2}\b|\b\d{1,2}(st|nd|rd|th)\b|\b(in|within)\s+\S+\s*(min|mins|minutes|hours?|days?|weeks?)\b"
    rf"|\b({_MONTH_NAMES})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+({_MONTH_NAMES})\b|\b({_DAYS})\b"
    r"|\b(today|tonight|tomorrow|yesterday|morning|afternoon|evening|noon|midnight|eod|weekend|half past|quarter)\b"
    # "at" and an hour of the clock ("at 3"), not any number ("the cluster is at 58 nodes")
    r"|\b(next|this|last)\s+(week|month)\b|\bat\s+(?:[01]?\d|2[0-4])\b(?![.,]\d)|\bend of\b"
    r"|[今明后昨]天|[今明昨前][儿兒]|[下上本这]周|周[一二三四五六日天末]|星期|礼拜|[上下中]午|晚上|早上|凌晨|今晚|明早|明晚|月底|月末|\d+\s*[点號号月日]"
    r"|" + CN_NUMERAL + r"[点号]|[天周]后|小时后|分钟后",
    re.I,
)


# A time of day said with its hour: "10am", "ten a.m.", "7:30 pm", "noon", "five o'clock". The
# hour may be a numeral or a number word (a closed class).
HOUR = r"(?:\d{1,2}|" + "|".join(w for w, n in EN_ONES.items() if 1 <= n <= 12) + ")"  # an hour said alone: "by one"
_CLOCK_PHRASE = re.compile(
    rf"\b(?:\d{{1,2}}[:.]\d{{2}}|{HOUR})\s*(?:a\.?m\.?|p\.?m\.?|o['’]?clock)(?!\w)"
    # the part of the day said after the hour: "by 2 in the afternoon", "at 9 at night"
    rf"|\b(?:\d{{1,2}}[:.]\d{{2}}|{HOUR})\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night)\b"
    r"|\b\d{1,2}[:.h]\d{2}\b|\b(?:noon|midday|midnight)\b",
    re.I,
)
# What may stand between the parts of one time phrase: "tomorrow at 2pm", "ten a.m. the day after
# tomorrow", "Friday, 5pm", 后天下午五点 (nothing).
_PHRASE_JOIN = re.compile(r"^[\s,]*(?:(?:at|on|the|in\s+the)\s+)*[\s,]*$", re.I)


@reads_simplified
def time_phrases(text: str, ref: date) -> list[tuple[int, int]]:
    """The spans of ``text`` that each say one time: the days ``find`` reads joined with the times
    of day beside them ("by ten a.m. the day after tomorrow" is one phrase, not a time and then a
    day), in order. What governs a phrase (a deadline's "by", 之前 after it) governs all of it."""
    spans = sorted(
        [(s, e) for s, e, _, _ in find(text, ref)]
        + [m.span() for m in _CLOCK_PHRASE.finditer(text)]
        + [m.span() for m in _TIMEY.finditer(text)]
    )
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and (s <= merged[-1][1] or _PHRASE_JOIN.match(text[merged[-1][1] : s])):
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


@reads_simplified
def mentions_time(text: str) -> bool:
    """Whether ``text`` names some day or time at all (a quick test; ``read`` decides what it means)."""
    return _TIMEY.search(text) is not None or day_words.pattern().search(text) is not None


# A day of the month said alone after a preposition of time ("the food for the concert on the 3rd",
# "book it for the 14th"), with no noun after the ordinal ("the 3rd floor", "the 2nd time" count
# things) and no month (a date, read by ``find``).
_DAY_OF_MONTH = re.compile(
    r"\b(?:on|by|for|until|till|before|after|from)\s+the\s+\d{1,2}(?:st|nd|rd|th)\b"
    rf"(?!\s+(?:of\s+)?(?:{_MONTH_NAMES})\b)(?:\s+(?P<next>[A-Za-z]+))?",
    re.I,
)


def names_day_of_month(text: str) -> bool:
    """Whether ``text`` names a day by its number alone ("on the 3rd"), past or coming: ``find``
    resolves one only in a phrase all about when, since in running text it may be a past day, but
    either way the text names a day of the calendar."""
    for m in _DAY_OF_MONTH.finditer(text):
        following = m.group("next")
        if following is None or following.lower() in STOP_WORDS:
            return True
    return False


def without_times(text: str) -> str:
    """``text`` with the days and times that ``mentions_time`` sees blanked out: what is left of
    its numbers are counts and amounts, not parts of a date ("from 14 December to 10 January")."""
    return _TIMEY.sub(" ", text)


# The day a stored fact begins with: "2026-10-07: the review is next Tuesday".
DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*[:：]\s*")


def undated(text: str) -> str:
    """A fact sentence without the day it begins with: the date says when, not what."""
    return DATE_PREFIX.sub("", text, count=1)


# --- a day-and-time phrase ------------------------------------------------------

PERIOD_DEFAULT = {"morning": time(9), "noon": time(12), "afternoon": time(14), "evening": time(19)}

_EN_WEEKDAY = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tue": 1,
    "tues": 1,
    "wednesday": 2,
    "wed": 2,
    "weds": 2,
    "thursday": 3,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}
_EN_MONTH = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
_WDS = "|".join(sorted(_EN_WEEKDAY, key=len, reverse=True))
_MON = "|".join(sorted(_EN_MONTH, key=len, reverse=True))
_HOUR = r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CN_NUM = r"(?:\d{1,2}|" + CN_NUMERAL + ")"
_CN_PERIOD = {
    "凌晨": "night",
    "早上": "morning",
    "早晨": "morning",
    "上午": "morning",
    "中午": "noon",
    "下午": "afternoon",
    "傍晚": "evening",
    "晚上": "evening",
    "夜里": "evening",
}
# Words a phrase may hold besides its day and time.
FILLER = {
    "at",
    "on",
    "the",
    "of",
    "@",
    "by",
    "around",
    "about",
    "for",
    "starting",
    "-",
    ",",
    "this",
    "的",
    "在",
    "于",
    "於",
    "，",
    "、",
    "左右",  # about: "9点左右", "大概三点"
    "大概",
    "大约",
    "差不多",
    "之前",  # a deadline's "before": "周五之前" is that Friday
    "以前",
}


@dataclass(frozen=True)
class Parsed:
    day: date | None = None  # None: no day was named
    clock: time | None = None  # None: no time of day was named
    exact: datetime | None = None  # a moment: ISO with offset, "now", "in 2 hours"


# The northern colloquial day words with the diminutive 儿 (明儿, 今儿个, 昨儿): 明天, 今天, 昨天, 前天.
_ERHUA_DAY = re.compile("([今明昨前])[儿兒]个?")


@reads_simplified
def normalise(phrase: str) -> str:
    text = _ERHUA_DAY.sub(r"\1天", phrase.strip())
    # Full-width digits and punctuation, as typed with a Chinese input method.
    text = text.translate(
        {0xFF10 + i: ord("0") + i for i in range(10)} | {0xFF1A: ord(":"), 0x3000: ord(" "), 0xFF0F: ord("/")}
    )
    text = text.lower().replace("a.m.", "am").replace("p.m.", "pm").replace("’", "'")
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"(?<=\d)(?:am|pm)?-?ish\b", lambda m: m.group(0).removesuffix("ish").rstrip("-"), text)  # "9ish"
    return text.strip(" .。!！?？")


class _Reader:
    """Pulls recognised pieces out of a phrase; whatever is left must be filler."""

    def __init__(self, phrase: str, now: datetime, tz: ZoneInfo):
        self.phrase = phrase.strip()
        self.text = normalise(phrase)
        self.now = now
        self.today = now.date()
        self.tz = tz
        self.day: date | None = None
        self.range: tuple[Span, str] | None = None  # a week, weekend or month named where a day is needed
        self.hour: int | None = None
        self.minute = 0
        self.meridiem: str | None = None  # "am" / "pm"
        self.leading_zero = False  # "03:00": no afternoon rule
        self.period: str | None = None
        self.midnight = False
        self.exact: datetime | None = None
        self.named_weekday: int | None = None  # a bare weekday, settled in finish_day()

    def take(self, pattern: str, handle) -> None:
        """Apply ``handle`` to every match of ``pattern`` and blank the match out."""
        while True:
            m = re.search(pattern, self.text)
            if not m:
                return
            handle(m)
            self.text = self.text[: m.start()] + " " + self.text[m.end() :]

    def set_day(self, value: date) -> None:
        if self.day is not None and self.day != value:
            raise Ambiguous(
                self.phrase, [self.day.isoformat(), value.isoformat()], "it names two different days", conflict=True
            )
        self.day = value

    def name_weekday(self, target: int) -> None:
        if self.named_weekday is not None and self.named_weekday != target:
            raise Ambiguous(
                self.phrase, [WEEKDAYS[self.named_weekday], WEEKDAYS[target]], "it names two weekdays", conflict=True
            )
        self.named_weekday = target

    def set_time(self, hour: int, minute: int = 0, meridiem: str | None = None, leading_zero: bool = False) -> None:
        if self.hour is not None and (self.hour, self.minute) != (hour, minute):
            raise Ambiguous(
                self.phrase,
                [f"{self.hour}:{self.minute:02d}", f"{hour}:{minute:02d}"],
                "it names two times of day",
                conflict=True,
            )
        if meridiem and not 1 <= hour <= 12:
            raise DateError(f"{hour}{meridiem} is not a time")
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            raise DateError(f"{hour}:{minute:02d} is not a time of day")
        self.hour, self.minute, self.meridiem, self.leading_zero = hour, minute, meridiem, leading_zero

    def set_period(self, period: str) -> None:
        if self.period is not None and self.period != period:
            raise Ambiguous(self.phrase, [self.period, period], "it names two parts of the day", conflict=True)
        self.period = period

    def finish_day(self) -> None:
        """Settle the day: a bare weekday picks one or checks the date beside it; a week narrows to it."""
        if self.range is not None:
            span, words = self.range
            if (
                self.named_weekday is not None
                and span.unit == "range"
                and span.start
                <= span.start + timedelta(days=(self.named_weekday - span.start.weekday()) % 7)
                <= span.end
                and self.day is None
            ):
                self.set_day(span.start + timedelta(days=(self.named_weekday - span.start.weekday()) % 7))
                self.named_weekday = None
            elif self.day is None or not span.start <= self.day <= span.end:
                days = [span.start + timedelta(days=i) for i in range((span.end - span.start).days + 1)]
                if len(days) <= 2:
                    readings = [f"{WEEKDAYS[d.weekday()]} {d.isoformat()}" for d in days]
                else:
                    readings = [f"any day from {span.start.isoformat()} to {span.end.isoformat()}"]
                raise Ambiguous(self.phrase, readings, f"{words!r} is not one day; say which")
        if self.named_weekday is None:
            return
        target = self.named_weekday
        if self.day is None:
            self.day = self.today + timedelta(days=(target - self.today.weekday()) % 7 or 7)
        elif self.day.weekday() != target:
            raise Ambiguous(
                self.phrase,
                [
                    f"{WEEKDAYS[target]} {(self.day + timedelta(days=(target - self.day.weekday()) % 7)).isoformat()}",
                    f"{WEEKDAYS[self.day.weekday()]} {self.day.isoformat()}",
                ],
                f"{self.day.isoformat()} is a {WEEKDAYS[self.day.weekday()]}, not a {WEEKDAYS[target]}",
                conflict=True,
            )

    def month_day(self, month: int, day: int, year: int | None) -> date:
        try:
            if year is not None:
                return date(year, month, day)
            candidate = date(self.today.year, month, day)
            if candidate < self.today:
                candidate = date(self.today.year + 1, month, day)
            return candidate
        except ValueError:
            raise DateError(f"there is no day {day} in month {month}") from None


@reads_simplified
def read(phrase: str, now: datetime, tz: ZoneInfo) -> Parsed:
    """Read a whole day-and-time ``phrase`` said at ``now`` into a day, a time of day and/or an exact moment.

    Raises ``Ambiguous`` (naming the readings) or ``DateError``."""
    if not isinstance(phrase, str) or not phrase.strip():
        raise DateError("empty; give a day and time")
    now = now.astimezone(tz)
    text = normalise(phrase)

    iso = _read_iso(text, tz)
    if iso is not None:
        return iso
    if text in ("now", "right now", "现在", "馬上", "马上", "立刻"):
        return Parsed(exact=now.replace(second=0, microsecond=0))
    options = [o.strip() for o in re.split(r"\s+or\s+|\s*(?:还是|或者|或)\s*", text) if o.strip()]
    if len(options) > 1 and sum(_readable(o, now, tz) for o in options) >= 2:
        raise Ambiguous(phrase.strip(), [repr(o) for o in options], "it names more than one option")

    named = [m.group(0) for m in day_words.pattern().finditer(phrase) if _a_name(m.group(0))]
    if named:  # the reader reads lower case: a name spelt like a day word is refused before it
        raise DateError(f"could not read {' '.join(named)!r} in {phrase.strip()!r}")
    shifted = _DAY_FROM_ANOTHER.match(text) or _ZH_DAY_FROM_ANOTHER.match(text)
    if shifted:  # "the day after the 20th", "three days after Christmas", 月底前两天上午十点
        rest = (
            shifted.group("rest") if shifted.re is _DAY_FROM_ANOTHER else shifted.group("day") + shifted.group("clock")
        )
        base = read(rest, now, tz)
        if base.day is None:
            raise DateError(f"{rest!r} names no day to count from")
        n = _zh_count(shifted.group("n")) if shifted.re is _ZH_DAY_FROM_ANOTHER else _count(shifted.group("n") or "one")
        sign = 1 if shifted.group("dir") in ("after", "后", "後") else -1
        return Parsed(day=base.day + timedelta(days=sign * n), clock=base.clock)
    token = _STRICT.set(True)
    try:
        r = _Reader(phrase, now, tz)
        _read_day_end(r)
        _read_periods_with_days(r)
        _read_exact(r)
        _read_absolute(r)
        _read_relative_days(r)
        _read_weekdays(r)
        _read_clock(r)
        r.finish_day()
    finally:
        _STRICT.reset(token)
    leftover = [w for w in re.split(r"[\s,，、()（）]+", r.text) if w and w not in FILLER]
    if leftover:
        raise DateError(f"could not read {' '.join(leftover)!r} in {phrase.strip()!r}")

    if r.exact is not None:
        if r.day is not None or r.hour is not None or r.period is not None:
            raise DateError("mixes a relative time ('in 2 hours') with a day or time")
        return Parsed(exact=r.exact)
    if r.midnight and r.day is not None:
        start, end = r.day, r.day + timedelta(days=1)
        raise Ambiguous(
            phrase.strip(),
            [
                f"00:00 on {WEEKDAYS[start.weekday()]} {start.isoformat()} (its start)",
                f"00:00 on {WEEKDAYS[end.weekday()]} {end.isoformat()} (its end)",
            ],
        )
    clock = _clock(r)
    if r.day is None and clock is None:
        raise DateError(f"found no day or time in {phrase.strip()!r}")
    return Parsed(day=r.day, clock=clock)


def _readable(option: str, now: datetime, tz: ZoneInfo) -> bool:
    try:
        read(option, now, tz)
    except DateError:
        return False
    return True


def _read_iso(text: str, tz: ZoneInfo) -> Parsed | None:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return Parsed(day=date.fromisoformat(text))
        except ValueError:
            raise DateError(f"{text!r} is not a real date") from None
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?", text):
        return None
    try:
        value = datetime.fromisoformat(text.upper())
    except ValueError:
        raise DateError(f"{text!r} is not a real date and time") from None
    if value.tzinfo is None:  # wall time in the person's zone
        return Parsed(day=value.date(), clock=value.time().replace(microsecond=0))
    return Parsed(exact=value.astimezone(tz).replace(microsecond=0))


# "the day after the 20th", "two days before Christmas Eve at 10"; 月底前一天, 周五的后两天
_DAY_FROM_ANOTHER = re.compile(
    r"^(?:the )?(?:(?P<n>\d+|" + EN_NUMBER + r"|a couple of) days?|day) (?P<dir>after|before) (?P<rest>.+)$"
)
_ZH_DAY_FROM_ANOTHER = re.compile(r"^(?P<day>.+?)的?(?P<dir>前|后|後)(?P<n>\d+|" + CN_NUMERAL + r")天(?P<clock>.*)$")
END_OF_WORKDAY = time(17)  # "EOD", "COB", "close of business", "end of play"
ZH_END_OF_WORKDAY = time(18)  # 下班: the working day in China ends at six


def _read_day_end(r: _Reader) -> None:
    """The end of the working day, as a time ("EOD Thursday", "COB", 周五下班前), and "first thing"
    (the working day's start, the morning): read before the day rules, which read "end of the day"
    in running text as the day alone."""

    def at(clock: time) -> Callable[[re.Match[str]], None]:
        return lambda m: r.set_time(clock.hour, clock.minute, leading_zero=True)

    r.take(
        r"\b(?:eod|cob|eop|close of (?:business|play)|end of (?:the )?(?:business |working |work )?day|end of play)\b",
        at(END_OF_WORKDAY),
    )
    r.take(r"下班(?:之?前|以前)?", at(ZH_END_OF_WORKDAY))
    r.take(r"\bfirst thing(?: in the morning)?\b|第一件事", lambda m: r.set_period("morning"))


def _read_periods_with_days(r: _Reader) -> None:
    """Words that name a day and a part of it at once: "tonight", "this morning", 今晚, 明早."""
    both = {
        r"\btonight\b": (0, "evening"),
        r"\bthis morning\b": (0, "morning"),
        r"\bthis afternoon\b": (0, "afternoon"),
        r"\bthis evening\b": (0, "evening"),
        r"\bthis arvo\b": (0, "afternoon"),  # Australian English
        r"\btomorrow arvo\b": (1, "afternoon"),
        r"\btomorrow (?:morning)\b": (1, "morning"),
        r"今晚": (0, "evening"),
        r"今早": (0, "morning"),
        r"明早": (1, "morning"),
        r"明晚": (1, "evening"),
    }

    def day_and_period(offset: int, period: str) -> None:
        r.set_day(r.today + timedelta(days=offset))
        r.set_period(period)

    for pattern, (offset, period) in both.items():
        r.take(pattern, lambda m, o=offset, p=period: day_and_period(o, p))


_UNITS = {
    "minute": 60,
    "minutes": 60,
    "min": 60,
    "mins": 60,
    "m": 60,
    "hour": 3600,
    "hours": 3600,
    "hr": 3600,
    "hrs": 3600,
    "h": 3600,
    "分钟": 60,
    "分鐘": 60,
    "小时": 3600,
    "小時": 3600,
    "个小时": 3600,
    "個小時": 3600,
    "钟头": 3600,
    "个钟头": 3600,
}


def _read_exact(r: _Reader) -> None:
    """ "in 2 hours", "45 minutes from now", "半小时后": a moment counted from now."""

    def shift(amount: float, unit: str) -> None:
        if r.exact is not None:
            raise DateError("names two relative times")
        base = r.now.replace(second=0, microsecond=0).astimezone(UTC)
        r.exact = (base + timedelta(seconds=_UNITS[unit] * amount)).astimezone(r.tz)

    def english(m: re.Match) -> None:
        count = m.group("n")
        amount = (
            0.5
            if count in ("half an", "half a")
            else float(count)
            if re.fullmatch(r"\d+(?:\.\d+)?", count)
            else _count(count)
        )
        shift(amount + (0.5 if m.group("half") else 0), m.group("unit"))

    units = "minutes|minute|mins|min|hours|hour|hrs|hr|h|m"
    number = r"half an|half a|\d+(?:\.\d+)?|a few|few|several|" + EN_NUMBER
    half = r"(?P<half> and a half)?"
    r.take(rf"\bin (?P<n>{number}) ?(?P<unit>{units})\b{half}", english)
    r.take(rf"\b(?P<n>{number}) ?(?P<unit>{units}){half} from now\b", english)

    def chinese(m: re.Match) -> None:
        amount = 0.5 if m.group("n") == "半" else _zh_count(m.group("n"))
        if m.group("half"):
            amount += 0.5
        shift(amount, m.group("unit"))

    cn_units = "个小时|個小時|小时|小時|个钟头|钟头|分钟|分鐘"
    r.take(rf"(?P<n>\d+|{CN_NUMERAL}|半)(?P<unit>{cn_units})(?P<half>半)?(?:以后|之后|后|以後|之後|後)", chinese)


def _read_absolute(r: _Reader) -> None:
    """Dates with a month: "Dec 3", "3 December 2026", "12月5日", "2026-12-03", "25/11"."""

    def md(m: re.Match) -> None:
        year = int(m.group("y")) if m.group("y") else None
        r.set_day(r.month_day(_EN_MONTH[m.group("mo")], int(m.group("d")), year))

    r.take(rf"\b(?P<mo>{_MON})\.? (?:the )?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (?P<y>\d{{4}})\b)?", md)
    r.take(rf"\b(?:the )?(?P<d>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mo>{_MON})\b\.?(?:,? (?P<y>\d{{4}})\b)?", md)

    def cn_md(m: re.Match) -> None:
        year = int(m.group("y")) if m.group("y") else None
        r.set_day(r.month_day(_zh_count(m.group("mo")), _zh_count(m.group("d")), year))

    r.take(rf"(?:(?P<y>\d{{4}})年)?(?P<mo>{_CN_NUM})月(?P<d>{_CN_NUM})(?:日|号|號)?", cn_md)

    def iso_day(m: re.Match) -> None:
        try:
            r.set_day(date(int(m.group("y")), int(m.group("mo")), int(m.group("d"))))
        except ValueError:
            raise DateError(f"{m.group(0)!r} is not a real date") from None

    r.take(r"\b(?P<y>\d{4})[-/.](?P<mo>\d{1,2})[-/.](?P<d>\d{1,2})\b", iso_day)

    def numeric(m: re.Match) -> None:
        a, b = int(m.group("a")), int(m.group("b"))
        year = m.group("y")
        year = (int(year) + (2000 if len(year) == 2 else 0)) if year else None
        readings = []
        for month, day in ((b, a), (a, b)):  # day/month first, then month/day
            if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year or 2000, month)[1]:
                d = r.month_day(month, day, year)
                if d not in readings:
                    readings.append(d)
        if not readings:
            raise DateError(f"{m.group(0)!r} is not a date")
        if len(readings) > 1:
            raise Ambiguous(
                m.group(0),
                [f"{d.day} {calendar.month_name[d.month]} ({d.isoformat()})" for d in readings],
                "write the month as a word or the date as YYYY-MM-DD",
            )
        r.set_day(readings[0])

    r.take(
        r"(?<![\d/])(?P<a>\d{1,2})[/.](?P<b>\d{1,2})(?:[/.](?P<y>\d{4}|\d{2}))?(?![\d/]|\.\d)(?!\s*(?:am|pm|h)\b)",
        numeric,
    )


def _read_relative_days(r: _Reader) -> None:
    """The shared day rules (see ``_RULES``): "next Friday", "in 3 weeks", "下周五", "月底", "the 22nd"..."""
    for start, end, words, span in reversed(find(r.text, r.today, phrase=True)):
        r.text = r.text[:start] + " " + r.text[end:]
        if span.weekday is not None:
            r.name_weekday(span.weekday)
        elif span.unit == "day":
            r.set_day(span.start)
        else:
            if r.range is not None:
                raise Ambiguous(r.phrase, [r.range[1], words], "it names two stretches of time", conflict=True)
            r.range = (span, words)


def _read_weekdays(r: _Reader) -> None:
    r.take(rf"\b(?P<d>{_WDS})\b\.?", lambda m: r.name_weekday(_EN_WEEKDAY[m.group("d")]))


_WORD_HOURS = {word: n for word, n in EN_ONES.items() if 1 <= n <= 12}  # "at five", "seven o'clock"


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_HOURS[word]


def _read_clock(r: _Reader) -> None:
    # Chinese: 下午, 三点半, 十点一刻
    if re.search(r"[\u3000-\u9fff]", r.text):
        for word, period in _CN_PERIOD.items():
            r.take(word, lambda m, p=period: r.set_period(p))

        def cn_clock(m: re.Match) -> None:
            raw = m.group("h")
            rest = m.group("rest") or ""
            minute = {"半": 30, "一刻": 15, "三刻": 45, "整": 0, "": 0}.get(rest)
            if minute is None:
                minute = _zh_count(rest.rstrip("分"))
            r.set_time(_zh_count(raw), minute, leading_zero=raw.startswith("0"))

        r.take(rf"(?P<h>{_CN_NUM})(?:点|點|时|時)(?P<rest>半|一刻|三刻|整|{_CN_NUM}分?)?", cn_clock)

    r.take(r"\b(?:noon|midday)\b", lambda m: r.set_time(12))

    def midnight(m: re.Match) -> None:
        r.set_time(0, leading_zero=True)
        r.midnight = True

    r.take(r"\bmidnight\b", midnight)

    # "half past two", "quarter to 5", "ten past nine", "20 to 4"
    def past_to(m: re.Match) -> None:
        amount = {"half": 30, "quarter": 15}.get(m.group("amt"))
        if amount is None:
            amount = to_int(m.group("amt"))
        if amount is None or not 0 < amount < 60:
            raise DateError(f"{m.group(0)!r} is not a time")
        stated = _hour(m.group("h"))
        # The afternoon rule goes by the hour said: "quarter to seven" is 06:45, "quarter to 5" 16:45.
        keep = not 1 <= stated <= 6
        if m.group("dir") == "past":
            r.set_time(stated, amount, m.group("ap"), keep)
        else:
            r.set_time(stated - 1 if stated > 1 else 12, 60 - amount, m.group("ap"), keep)

    r.take(
        rf"\b(?:a )?(?P<amt>half|quarter|\d{{1,2}}|{EN_NUMBER})(?: minutes?)? (?P<dir>past|to) (?P<h>{_HOUR})\b(?: ?(?P<ap>am|pm)\b)?",
        past_to,
    )

    def half(m: re.Match) -> None:
        stated = _hour(m.group("h"))
        r.set_time(stated, 30, m.group("ap"), not 1 <= stated <= 6)

    # "half two", "half four in the afternoon": British and Irish English say half past the hour so
    r.take(rf"\bhalf (?P<h>{_HOUR})\b(?! (?:an? )?(?:hour|day|week|month|year|dozen))(?: ?(?P<ap>am|pm)\b)?", half)

    def hm(m: re.Match) -> None:
        g = m.groupdict()
        r.set_time(int(g["h"]), int(g.get("m") or 0), g.get("ap"), g["h"].startswith("0"))

    r.take(r"\b(?P<h>\d{1,2})[:.h](?P<m>\d{2})(?::\d{2})? ?(?P<ap>am|pm)?(?![\d])", hm)
    r.take(r"\b(?P<h>\d{1,2}) ?(?P<ap>am|pm)\b", hm)
    r.take(r"\b(?P<h>\d{1,2}) ?(?:o'?clock|h)\b", hm)

    for words, period in (
        (r"(?:in the )?morning", "morning"),
        (r"(?:in the )?afternoon|after lunch|arvo", "afternoon"),
        (r"(?:in the )?evening|at night|night", "evening"),
    ):
        r.take(rf"\b(?:{words})\b", lambda m, p=period: r.set_period(p))

    # A bare hour counts once a day or "at" frames it: "tomorrow at 9", "Tuesday 10".
    def bare(m: re.Match) -> None:
        raw = m.group("h") or m.group("h2")
        r.set_time(int(raw), leading_zero=raw.startswith("0"))

    if r.hour is None:
        r.take(r"(?:\bat |@ ?)(?P<h>\d{1,2})\b(?P<h2>)", bare)
    if r.hour is None and r.period is not None:
        # An hour in words after "at" that a part of the day places: "at four in the afternoon".
        r.take(rf"\bat (?P<h>{_HOUR})\b", lambda m: r.set_time(_hour(m.group("h").lower())))
    if r.hour is None and (
        r.day is not None or r.named_weekday is not None or r.period is not None or r.range is not None
    ):
        r.take(r"^ *(?P<h>\d{1,2}) *$|(?<= )(?P<h2>\d{1,2})(?= *$)", bare)


def _clock(r: _Reader) -> time | None:
    if r.hour is None:
        return PERIOD_DEFAULT.get(r.period) if r.period else None
    hour = r.hour
    if r.meridiem == "am":
        hour = 0 if hour == 12 else hour
    elif r.meridiem == "pm":
        hour = hour if hour == 12 else hour + 12
    elif r.period in ("afternoon", "evening"):
        if hour < 12:
            hour += 12
    elif r.period == "noon":
        if 1 <= hour <= 5:
            hour += 12
    elif r.period == "night":
        hour = 0 if hour == 12 else hour
    elif r.period is None and 1 <= hour <= 6 and not r.leading_zero:
        hour += 12  # "at 3" in a work week means the afternoon
    return time(hour, r.minute)


def localize(day: date, clock: time, tz: ZoneInfo) -> datetime:
    """Wall time on ``day`` in ``tz``; a time skipped by DST moves forward by the gap."""
    naive = datetime.combine(day, clock)
    value = naive.replace(tzinfo=tz, fold=0)
    settled = value.astimezone(UTC).astimezone(tz)
    return settled if settled.replace(tzinfo=None) != naive else value


def day_start(day: date, tz: ZoneInfo) -> datetime:
    return localize(day, time(0), tz)


def moment(
    phrase: str, now: datetime, tz: ZoneInfo, *, on_day: date | None = None, default_time: time | None = None
) -> datetime:
    """An aware datetime in ``tz`` for ``phrase`` said at ``now``.

    ``on_day`` is the day a time alone falls on (for an end time after a
    start); without it a time alone is its next occurrence. A day alone
    takes ``default_time``, or is an error saying a time is needed.
    """
    now = now.astimezone(tz)
    parsed = read(phrase, now, tz)
    if parsed.exact is not None:
        return parsed.exact.astimezone(tz)
    clock = parsed.clock if parsed.clock is not None else default_time
    if clock is None:
        assert parsed.day is not None  # read() gives a moment, a day or a time of day
        raise DateError(
            f"{phrase.strip()!r} names a day but no time of day; add one, e.g. "
            f"'{WEEKDAYS[parsed.day.weekday()]} 10:00' or '{parsed.day.isoformat()} 14:30'"
        )
    if parsed.day is not None:
        return localize(parsed.day, clock, tz)
    if on_day is not None:
        return localize(on_day, clock, tz)
    today = localize(now.date(), clock, tz)
    return today if today > now else localize(now.date() + timedelta(days=1), clock, tz)
