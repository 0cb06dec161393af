"""Relative dates ("next Tuesday", "上个月") resolved to calendar dates in code.

A model asked to turn "next Tuesday" into a date gets it wrong often enough to
matter, and a fact read months later is useless with "next Tuesday" in it.
So the extraction keeps the words as said, and ``annotate`` adds the calendar
date in brackets, computed from the date of the message that said them:
"the review is next Tuesday (2026-10-13)".

Conventions (the same in English and Chinese, weeks start on Monday):
- "next <weekday>" / "下周二" is that weekday in next calendar week;
  "last <weekday>" / "上周二" in the previous week; "这周二" in the current
  week. English "this Friday" is the coming one (today when it is Friday).
  A bare "on/by Friday" / "周五" is the first such day after today: said on
  a Friday, "on Friday" means next week's.
- "next week" is the Monday-to-Sunday week after the current one; weekends
  are its Saturday and Sunday.
- "next month" / "下个月" is a calendar month ("2026-11").
- "in two weeks" / "两周后" counts from the message's date.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from memory.text.numbers import cn_int, to_int


@dataclass(frozen=True)
class Span:
    """A resolved date: one day, a range of days, or a calendar month or year."""

    start: date
    end: date
    unit: str = "day"  # day, range, month, year

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


def _in_week(ref: date, week_shift: int, weekday: int) -> date:
    return _week_start(ref) + timedelta(weeks=week_shift, days=weekday)


# --- numbers ---------------------------------------------------------------

def _en_number(word: str) -> int:
    value = to_int(word, approx=True)  # "in a few days" annotates as three days
    if value is None:
        raise ValueError(word)
    return value


def _zh_number(text: str) -> int:
    value = cn_int(text)
    if value is None:
        raise ValueError(text)
    return value


def _shift(ref: date, n: int, unit: str) -> Span:
    unit = unit.lower().rstrip("s")
    if unit in ("day", "天", "日"):
        return _day(ref + timedelta(days=n))
    if unit in ("week", "周", "星期", "个星期", "礼拜", "个礼拜"):
        return _day(ref + timedelta(weeks=n))
    if unit in ("month", "个月", "月"):
        return _day(_add_months(ref, n))
    if unit in ("year", "年"):
        return _day(_add_months(ref, 12 * n))
    raise ValueError(unit)


# --- English ---------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WD = r"(?P<wd>mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
_NUM = r"(?P<n>\d+|a couple of|couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>days?|weeks?|months?|years?)"


def _wd(name: str) -> int:
    name = name.lower()
    return next(i for i, w in enumerate(_WEEKDAYS) if w.startswith(name[:3]))


def _en_rules():
    R = []

    def rule(pattern):
        def wrap(fn):
            R.append((re.compile(pattern, re.IGNORECASE), fn))
            return fn
        return wrap

    @rule(r"\bthe day after tomorrow\b")
    def _(m, ref): return _day(ref + timedelta(days=2))

    @rule(r"\bthe day before yesterday\b")
    def _(m, ref): return _day(ref - timedelta(days=2))

    @rule(r"\bthe week after next\b")
    def _(m, ref): return _week(ref + timedelta(weeks=2))

    @rule(r"\b(?:a|one) week from (?:today|now)\b")
    def _(m, ref): return _day(ref + timedelta(weeks=1))

    @rule(r"\b(?:next|last|this|coming|past) weekend\b")
    def _(m, ref):
        word = m.group(0).split()[0].lower()
        return _weekend(ref + timedelta(weeks={"next": 1, "last": -1, "past": -1}.get(word, 0)))

    @rule(r"\b(?P<which>next|last|this|coming|past) " + _WD + r"\b")
    def _(m, ref):
        wd, which = _wd(m.group("wd")), m.group("which").lower()
        if which == "coming":
            return _day(_next_weekday(ref, wd))
        if which == "past":
            return _day(_next_weekday(ref, wd) - timedelta(weeks=1))
        if which == "this":
            return _day(ref + timedelta(days=(wd - ref.weekday()) % 7))
        return _day(_in_week(ref, {"next": 1, "last": -1}[which], wd))

    @rule(r"\b(?P<which>next|last|this|coming|past) (?P<what>week|month|year)\b")
    def _(m, ref):
        shift = {"next": 1, "coming": 1, "last": -1, "past": -1, "this": 0}[m.group("which").lower()]
        what = m.group("what").lower()
        if what == "week":
            return _week(ref + timedelta(weeks=shift))
        return _month(ref, shift) if what == "month" else _year(ref, shift)

    @rule(r"\bin " + _NUM + " " + _UNIT + r"(?: time)?\b")
    def _(m, ref): return _shift(ref, _en_number(m.group("n")), m.group("unit"))

    @rule(r"\b" + _NUM + " " + _UNIT + r" (?:ago|earlier|before)\b")
    def _(m, ref): return _shift(ref, -_en_number(m.group("n")), m.group("unit"))

    @rule(r"\b" + _NUM + " " + _UNIT + r" from (?:today|now)\b")
    def _(m, ref): return _shift(ref, _en_number(m.group("n")), m.group("unit"))

    @rule(r"\b(?:tomorrow|tmrw)\b")
    def _(m, ref): return _day(ref + timedelta(days=1))

    @rule(r"\byesterday\b")
    def _(m, ref): return _day(ref - timedelta(days=1))

    @rule(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b")
    def _(m, ref): return _day(ref)

    @rule(r"\b(?:on|by|until|till|before|after|from) " + _WD + r"\b")
    def _(m, ref): return _day(_next_weekday(ref, _wd(m.group("wd"))))

    return R


# --- Chinese ---------------------------------------------------------------

_ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": None}
_ZH_NUM = r"(?P<n>\d+|[零一二两三四五六七八九十]+)"


def _zh_week_shift(word: str) -> int:
    return {"下下": 2, "下": 1, "上上": -2, "上": -1, "这": 0, "本": 0, "这个": 0, "下个": 1, "上个": -1}[word]


def _zh_rules():
    R = []

    def rule(pattern):
        def wrap(fn):
            R.append((re.compile(pattern), fn))
            return fn
        return wrap

    @rule(r"(?P<w>下下|上上|下个|上个|下|上|这个|这|本)(?:周|星期|礼拜)(?P<d>[一二三四五六日天末])")
    def _(m, ref):
        shift, d = _zh_week_shift(m.group("w")), _ZH_WD[m.group("d")]
        if d is None:
            return _weekend(ref + timedelta(weeks=shift))
        return _day(_in_week(ref, shift, d))

    @rule(r"(?P<w>下下|上上|下个|上个|下|上|这个|这|本)(?:周|星期|礼拜)")
    def _(m, ref): return _week(ref + timedelta(weeks=_zh_week_shift(m.group("w"))))

    @rule(r"(?P<w>下下个|上上个|下个|上个|这个|本)月")
    def _(m, ref):
        return _month(ref, {"下下个": 2, "上上个": -2, "下个": 1, "上个": -1, "这个": 0, "本": 0}[m.group("w")])

    @rule(r"(?P<w>大前|前|去|今|明|后|大后)年")
    def _(m, ref): return _year(ref, {"大前": -3, "前": -2, "去": -1, "今": 0, "明": 1, "后": 2, "大后": 3}[m.group("w")])

    @rule(_ZH_NUM + r"(?P<unit>天|个星期|星期|个礼拜|礼拜|周|个月|年)(?:以?后|之后)")
    def _(m, ref): return _shift(ref, _zh_number(m.group("n")), m.group("unit"))

    @rule(_ZH_NUM + r"(?P<unit>天|个星期|星期|个礼拜|礼拜|周|个月|年)(?:以?前|之前)")
    def _(m, ref): return _shift(ref, -_zh_number(m.group("n")), m.group("unit"))

    @rule(r"(?P<w>大后天|后天|明天|明早|明晚|今天|今晚|今早|昨天|昨晚|前天|大前天)")
    def _(m, ref):
        return _day(ref + timedelta(days={"大后天": 3, "后天": 2, "明天": 1, "明早": 1, "明晚": 1, "今天": 0, "今晚": 0,
                                          "今早": 0, "昨天": -1, "昨晚": -1, "前天": -2, "大前天": -3}[m.group("w")]))

    @rule(r"(?<![上下这本个])(?:周|星期|礼拜)(?P<d>[一二三四五六日天末])")
    def _(m, ref):
        d = _ZH_WD[m.group("d")]
        if d is None:  # 周末: the coming weekend (this one while it lasts)
            return _weekend(ref)
        return _day(_next_weekday(ref, d))

    return R


_RULES = _en_rules() + _zh_rules()
_ALREADY = re.compile(r"^\s*[（(]\s*\d{4}")


# The day a stored fact begins with: "2026-10-07: the review is next Tuesday".
DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*[:：]\s*")


def undated(text: str) -> str:
    """A fact sentence without the day it begins with: the date says when, not what."""
    return DATE_PREFIX.sub("", text, count=1)


def find(text: str, ref: date) -> list[tuple[int, int, str, Span]]:
    """Every relative date expression in ``text``: (start, end, words, span), in order, not overlapping."""
    taken: list[tuple[int, int, str, Span]] = []
    for pattern, resolve_match in _RULES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < e and s < end for s, e, _, _ in taken):
                continue
            try:
                span = resolve_match(m, ref)
            except (KeyError, ValueError, OverflowError):
                continue
            taken.append((start, end, m.group(0), span))
    return sorted(taken)


def resolve(expression: str, ref: date) -> Span | None:
    """The date ``expression`` names when said on ``ref``; None when it is not a relative date."""
    found = find(expression, ref)
    return found[0][3] if found else None


def annotate(text: str, ref: date) -> str:
    """``text`` with the calendar date added after each relative date it mentions.

    "the review is next Tuesday" said on 2026-10-07 becomes
    "the review is next Tuesday (2026-10-13)". Expressions already followed
    by a bracketed date are left alone, so annotating twice changes nothing.
    """
    out, last = [], 0
    for start, end, _, span in find(text, ref):
        if _ALREADY.match(text[end:]):
            continue
        out.append(text[last:end])
        out.append(f" ({span.label()})")
        last = end
    out.append(text[last:])
    return "".join(out)
