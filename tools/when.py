"""Day and time phrases, resolved to aware datetimes in the person's time zone.

The model passes times the way the person said them ("Tuesday 10:00",
"tomorrow at 9", "下周二10点"); code, not the model, turns them into absolute
moments relative to ``now``. Rules, chosen once and kept:

- A weekday name alone ("Tuesday", "周二") is its nearest occurrence *after*
  today, never today. "this Tuesday" is the nearest one counting today.
  "next Tuesday" / "下周二" is the Tuesday of next calendar week (weeks start
  on Monday); "本周二" / "这周二" is the Tuesday of the current week.
- A weekday beside a date ("Tuesday, Dec 8") only checks it: a mismatch is an error.
- A month and day without a year ("Dec 3") is the next such day, today counting.
- A time alone ("3pm") is its next occurrence: today if still ahead, else tomorrow.
- An hour 1-6 written without am/pm and without a leading zero ("at 3",
  "3:30", "3点") is the afternoon (15:00): meetings at 3 a.m. are rarer than
  typos. Write "03:00" or "3am" for the night.
- "morning" / 上午 is 09:00, "noon" / 中午 12:00, "afternoon" / 下午 14:00,
  "evening" / "tonight" / 晚上 19:00 when no hour is given.
- "in 2 hours" is exact elapsed time (through UTC); "tomorrow at 9" is wall
  clock time on that day. Both are DST-correct: a wall time that does not
  exist (skipped by a spring-forward) moves forward by the gap; an ambiguous
  one (fall-back) is the first of the two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from memory.text.numbers import CN_NUMERAL, to_int
from tools.base import ToolError

ACCEPTED = (
    "'Tuesday 10:00', 'tuesday at 10am', 'tomorrow at 9', 'today 3pm', 'next Friday 14:30', "
    "'in 2 hours', 'Dec 3 at 9:15', 'noon', '2026-12-03 09:00', '2026-12-03T09:00:00+01:00', "
    "'明天上午九点', '下周二10点', '周五下午三点'"
)

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

PERIOD_DEFAULT = {"morning": time(9), "noon": time(12), "afternoon": time(14), "evening": time(19)}


class WhenError(ToolError):
    """A phrase that is not a day or time kept can read; the text says what is."""


@dataclass(frozen=True)
class Parsed:
    day: date | None = None  # None: no day was named
    clock: time | None = None  # None: no time of day was named
    exact: datetime | None = None  # a moment: ISO with offset, "now", "in 2 hours"


# --- vocabulary -------------------------------------------------------------

_EN_WEEKDAY = {
    "monday": 0, "mon": 0,
    "tuesday": 1, "tue": 1, "tues": 1,
    "wednesday": 2, "wed": 2, "weds": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3,
    "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5,
    "sunday": 6, "sun": 6,
}
_EN_MONTH = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
_WD = "|".join(sorted(_EN_WEEKDAY, key=len, reverse=True))
_MON = "|".join(sorted(_EN_MONTH, key=len, reverse=True))

_CN_NUM = CN_NUMERAL
_NUM = rf"(?:\d{{1,2}}|{_CN_NUM})"
_CN_WEEKDAY = {"一": 0, "1": 0, "二": 1, "2": 1, "三": 2, "3": 2, "四": 3, "4": 3, "五": 4, "5": 4,
               "六": 5, "6": 5, "日": 6, "天": 6, "7": 6}
_CN_WEEK = "(?:周|週|星期|礼拜|禮拜)"
_CN_PERIOD = {
    "凌晨": "night", "早上": "morning", "早晨": "morning", "上午": "morning", "中午": "noon",
    "下午": "afternoon", "傍晚": "evening", "晚上": "evening", "夜里": "evening",
}
_FILLER = {"at", "on", "the", "of", "@", "by", "around", "about", "for", "starting", "-", ",", "this",
           "的", "在", "于", "於", "，", "、"}


def _cn_int(text: str) -> int:
    value = to_int(text)
    if value is None:
        raise WhenError(f"{text!r} is not a number")
    return value


# --- parsing ----------------------------------------------------------------


class _Reader:
    """Pulls recognised pieces out of a phrase; whatever is left must be filler."""

    def __init__(self, phrase: str, now: datetime, tz: ZoneInfo, what: str):
        self.text = phrase
        self.now = now
        self.today = now.date()
        self.tz = tz
        self.what = what
        self.day: date | None = None
        self.hour: int | None = None
        self.minute = 0
        self.meridiem: str | None = None  # "am" / "pm"
        self.leading_zero = False
        self.period: str | None = None
        self.exact: datetime | None = None
        self.named_weekday: tuple[int, str] | None = None  # (0-6, mode), settled in finish_day()

    def fail(self, why: str) -> WhenError:
        return WhenError(f"{self.what}: {why}. Accepted formats: {ACCEPTED}.")

    def take(self, pattern: str, handle) -> None:
        """Apply ``handle`` to every match of ``pattern`` and blank the match out."""
        while True:
            m = re.search(pattern, self.text)
            if not m:
                return
            handle(m)
            self.text = self.text[: m.start()] + " " + self.text[m.end():]

    def set_day(self, value: date) -> None:
        if self.day is not None and self.day != value:
            raise self.fail(f"names two different days ({self.day.isoformat()} and {value.isoformat()})")
        self.day = value

    def set_weekday(self, target: int, mode: str) -> None:
        if self.named_weekday is not None and self.named_weekday != (target, mode):
            raise self.fail("names two different weekdays")
        self.named_weekday = (target, mode)

    def finish_day(self) -> None:
        """A weekday beside a date ('Tuesday, Dec 8') checks the date; alone it picks the day."""
        if self.named_weekday is None:
            return
        target, mode = self.named_weekday
        if self.day is None:
            self.day = self.weekday(target, mode)
        elif mode in ("bare", "upcoming") and self.day.weekday() != target:
            raise self.fail(f"{self.day.isoformat()} is a {WEEKDAYS[self.day.weekday()]}, not a {WEEKDAYS[target]}")
        elif mode not in ("bare", "upcoming") and self.day != self.weekday(target, mode):
            raise self.fail(f"names two different days ({self.day.isoformat()} and {self.weekday(target, mode).isoformat()})")

    def set_time(self, hour: int, minute: int = 0, meridiem: str | None = None, leading_zero: bool = False) -> None:
        if self.hour is not None:
            raise self.fail("names two times of day")
        if meridiem and not 1 <= hour <= 12:
            raise self.fail(f"{hour}{meridiem} is not a time")
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            raise self.fail(f"{hour}:{minute:02d} is not a time of day")
        self.hour, self.minute, self.meridiem, self.leading_zero = hour, minute, meridiem, leading_zero

    def set_period(self, period: str) -> None:
        if self.period is not None and self.period != period:
            raise self.fail(f"names both {self.period} and {period}")
        self.period = period

    # days

    def weekday(self, target: int, mode: str) -> date:
        today = self.today
        if mode == "bare":  # nearest occurrence after today
            return today + timedelta(days=(target - today.weekday()) % 7 or 7)
        if mode == "upcoming":  # nearest occurrence, today counting
            return today + timedelta(days=(target - today.weekday()) % 7)
        monday = today - timedelta(days=today.weekday())
        weeks = {"this_week": 0, "next_week": 1, "week_after": 2, "last_week": -1}[mode]
        return monday + timedelta(weeks=weeks, days=target)

    def month_day(self, month: int, day: int, year: int | None) -> date:
        try:
            if year is not None:
                return date(year, month, day)
            candidate = date(self.today.year, month, day)
            if candidate < self.today:
                candidate = date(self.today.year + 1, month, day)
            return candidate
        except ValueError:
            raise self.fail(f"there is no day {day} in month {month}") from None


def _normalise(phrase: str) -> str:
    text = phrase.strip()
    # Full-width digits and punctuation, as typed with a Chinese input method.
    text = text.translate({0xFF10 + i: ord("0") + i for i in range(10)} | {0xFF1A: ord(":"), 0x3000: ord(" ")})
    text = text.lower().replace("a.m.", "am").replace("p.m.", "pm")
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .。!！?？")


def parse(phrase: str, now: datetime, tz: ZoneInfo, what: str = "time") -> Parsed:
    """Read ``phrase`` into a day, a time of day and/or an exact moment."""
    if not isinstance(phrase, str) or not phrase.strip():
        raise WhenError(f"{what}: empty; give a day and time. Accepted formats: {ACCEPTED}.")
    now = now.astimezone(tz)
    text = _normalise(phrase)

    iso = _parse_iso(text, tz, what)
    if iso is not None:
        return iso

    r = _Reader(text, now, tz, what)
    if text in ("now", "right now", "现在", "馬上", "马上", "立刻"):
        return Parsed(exact=now.replace(second=0, microsecond=0))

    _read_relative(r)
    _read_chinese(r)
    _read_english(r)

    r.finish_day()
    leftover = [w for w in re.split(r"[\s,，、()（）]+", r.text) if w and w not in _FILLER]
    if leftover:
        raise r.fail(f"could not read {' '.join(leftover)!r} in {phrase.strip()!r}")

    if r.exact is not None:
        if r.day is not None or r.hour is not None or r.period is not None:
            raise r.fail("mixes a relative time ('in 2 hours') with a day or time")
        return Parsed(exact=r.exact)

    clock = _clock(r)
    if r.day is None and clock is None:
        raise r.fail(f"found no day or time in {phrase.strip()!r}")
    return Parsed(day=r.day, clock=clock)


def _parse_iso(text: str, tz: ZoneInfo, what: str) -> Parsed | None:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return Parsed(day=date.fromisoformat(text))
        except ValueError:
            raise WhenError(f"{what}: {text!r} is not a real date. Accepted formats: {ACCEPTED}.") from None
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?", text):
        return None
    try:
        value = datetime.fromisoformat(text.upper())
    except ValueError:
        raise WhenError(f"{what}: {text!r} is not a real date and time. Accepted formats: {ACCEPTED}.") from None
    if value.tzinfo is None:  # wall time in the person's zone
        return Parsed(day=value.date(), clock=value.time().replace(microsecond=0))
    return Parsed(exact=value.astimezone(tz).replace(microsecond=0))


_UNITS = {
    "minute": 60, "minutes": 60, "min": 60, "mins": 60, "m": 60,
    "hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600,
    "day": 86400, "days": 86400, "week": 604800, "weeks": 604800,
    "分钟": 60, "分鐘": 60, "小时": 3600, "小時": 3600, "个小时": 3600, "個小時": 3600, "钟头": 3600,
    "个钟头": 3600, "天": 86400, "周": 604800, "个星期": 604800, "星期": 604800,
}


def _read_relative(r: _Reader) -> None:
    def shift(amount: float, unit: str) -> None:
        seconds = _UNITS[unit] * amount
        if _UNITS[unit] >= 86400:  # days and weeks move the date; a time may still be given
            if seconds % 86400:
                raise r.fail("give whole days, or hours and minutes")
            r.set_day(r.today + timedelta(days=int(seconds // 86400)))
            return
        if r.exact is not None:
            raise r.fail("names two relative times")
        base = r.now.replace(second=0, microsecond=0).astimezone(timezone.utc)
        r.exact = (base + timedelta(seconds=seconds)).astimezone(r.tz)

    def english(m: re.Match) -> None:
        count = m.group("n")
        amount = {"a": 1, "an": 1, "one": 1, "half an": 0.5, "half a": 0.5}.get(count)
        if amount is None:
            amount = float(count)
        shift(amount, m.group("unit"))

    units = "minutes|minute|mins|min|hours|hour|hrs|hr|days|day|weeks|week|h|m"
    r.take(rf"\bin (?P<n>half an|half a|an|a|one|\d+(?:\.\d+)?) ?(?P<unit>{units})\b", english)
    r.take(rf"\b(?P<n>an|a|one|\d+(?:\.\d+)?) ?(?P<unit>{units}) from now\b", english)

    def chinese(m: re.Match) -> None:
        amount = 0.5 if m.group("n") == "半" else _cn_int(m.group("n"))
        if m.group("half"):
            amount += 0.5
        shift(amount, m.group("unit"))

    cn_units = "个小时|個小時|小时|小時|个钟头|钟头|分钟|分鐘|个星期|星期|天|周"
    r.take(rf"(?P<n>\d+|{_CN_NUM}|半)(?P<unit>{cn_units})(?P<half>半)?(?:以后|之后|后|以後|之後|後)", chinese)


def _read_chinese(r: _Reader) -> None:
    if not re.search(r"[\u3000-\u9fff]", r.text):
        return

    r.take(r"今晚", lambda m: (r.set_day(r.today), r.set_period("evening")))
    r.take(r"明早", lambda m: (r.set_day(r.today + timedelta(days=1)), r.set_period("morning")))
    r.take(r"明晚", lambda m: (r.set_day(r.today + timedelta(days=1)), r.set_period("evening")))
    for word, offset in (("大后天", 3), ("大後天", 3), ("后天", 2), ("後天", 2), ("明天", 1), ("明日", 1),
                         ("今天", 0), ("今日", 0), ("昨天", -1), ("前天", -2)):
        r.take(word, lambda m, o=offset: r.set_day(r.today + timedelta(days=o)))

    def week(m: re.Match) -> None:
        prefix = m.group("p") or ""
        mode = {"下下": "week_after", "下": "next_week", "下个": "next_week", "下個": "next_week",
                "这": "this_week", "這": "this_week", "本": "this_week", "这个": "this_week",
                "上": "last_week", "上个": "last_week", "": "bare"}[prefix]
        r.set_weekday(_CN_WEEKDAY[m.group("d")], mode)

    r.take(rf"(?P<p>下下|下个|下個|下|这个|这|這|本|上个|上)?{_CN_WEEK}(?P<d>[一二三四五六日天1-7])", week)

    def md(m: re.Match) -> None:
        year = int(m.group("y")) if m.group("y") else None
        r.set_day(r.month_day(_cn_int(m.group("mo")), _cn_int(m.group("d")), year))

    r.take(rf"(?:(?P<y>\d{{4}})年)?(?P<mo>{_NUM})月(?P<d>{_NUM})(?:日|号|號)?", md)

    for word, period in _CN_PERIOD.items():
        r.take(word, lambda m, p=period: r.set_period(p))

    def clock(m: re.Match) -> None:
        raw = m.group("h")
        hour = _cn_int(raw)
        rest = m.group("rest") or ""
        minute = 0
        if rest == "半":
            minute = 30
        elif rest == "一刻":
            minute = 15
        elif rest == "三刻":
            minute = 45
        elif rest and rest != "整":
            minute = _cn_int(rest.rstrip("分"))
        r.set_time(hour, minute, leading_zero=raw.startswith("0"))

    r.take(rf"(?P<h>{_NUM})(?:点|點|时|時)(?P<rest>半|一刻|三刻|整|{_NUM}分?)?", clock)


def _read_english(r: _Reader) -> None:
    def word_day(offset: int) -> None:
        r.set_day(r.today + timedelta(days=offset))

    r.take(r"\b(?:the )?day after tomorrow\b", lambda m: word_day(2))
    r.take(r"\btonight\b", lambda m: (word_day(0), r.set_period("evening")))
    r.take(r"\b(?:tomorrow|tmrw|tmr)\b", lambda m: word_day(1))
    r.take(r"\btoday\b", lambda m: word_day(0))
    r.take(r"\byesterday\b", lambda m: word_day(-1))

    def weekday(m: re.Match) -> None:
        mode = {None: "bare", "this": "upcoming", "coming": "upcoming", "this coming": "upcoming",
                "next": "next_week", "last": "last_week"}[m.group("p")]
        r.set_weekday(_EN_WEEKDAY[m.group("d")], mode)

    r.take(rf"\b(?:(?P<p>this coming|this|coming|next|last) )?(?P<d>{_WD})\b\.?", weekday)

    def md(m: re.Match) -> None:
        year = int(m.group("y")) if m.group("y") else None
        r.set_day(r.month_day(_EN_MONTH[m.group("mo")], int(m.group("d")), year))

    r.take(rf"\b(?P<mo>{_MON})\.? (?:the )?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (?P<y>\d{{4}})\b)?", md)
    r.take(rf"\b(?:the )?(?P<d>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mo>{_MON})\b\.?(?:,? (?P<y>\d{{4}})\b)?", md)

    def iso_day(m: re.Match) -> None:
        try:
            r.set_day(date.fromisoformat(m.group(0)))
        except ValueError:
            raise r.fail(f"{m.group(0)!r} is not a real date") from None

    r.take(r"\b\d{4}-\d{2}-\d{2}\b", iso_day)

    r.take(r"\b(?:noon|midday)\b", lambda m: r.set_time(12))
    r.take(r"\bmidnight\b", lambda m: r.set_time(0, leading_zero=True))

    def hm(m: re.Match) -> None:
        g = m.groupdict()
        r.set_time(int(g["h"]), int(g.get("m") or 0), g.get("ap"), g["h"].startswith("0"))

    r.take(r"\b(?P<h>\d{1,2})[:.h](?P<m>\d{2})(?::\d{2})? ?(?P<ap>am|pm)?(?![\d])", hm)
    r.take(r"\b(?P<h>\d{1,2}) ?(?P<ap>am|pm)\b", hm)
    r.take(r"\b(?P<h>\d{1,2}) ?(?:o'?clock|h)\b", hm)

    for words, period in ((r"(?:in the )?morning", "morning"), (r"(?:in the )?afternoon", "afternoon"),
                          (r"(?:in the )?evening|at night|night", "evening")):
        r.take(rf"\b(?:{words})\b", lambda m, p=period: r.set_period(p))

    # A bare hour counts once a day or "at" frames it: "tomorrow at 9", "Tuesday 10".
    def bare(m: re.Match) -> None:
        r.set_time(int(m.group("h")), leading_zero=m.group("h").startswith("0"))

    if r.hour is None:
        r.take(r"(?:\bat |@ ?)(?P<h>\d{1,2})\b", bare)
    if r.hour is None and (r.day is not None or r.named_weekday is not None or r.period is not None):
        r.take(r"^ *(?P<h>\d{1,2}) *$|(?<= )(?P<h2>\d{1,2})(?= *$)", lambda m: r.set_time(
            int(m.group("h") or m.group("h2")), leading_zero=(m.group("h") or m.group("h2")).startswith("0")))


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


# --- resolving --------------------------------------------------------------


def localize(day: date, clock: time, tz: ZoneInfo) -> datetime:
    """Wall time on ``day`` in ``tz``; a time skipped by DST moves forward by the gap."""
    naive = datetime.combine(day, clock)
    value = naive.replace(tzinfo=tz, fold=0)
    settled = value.astimezone(timezone.utc).astimezone(tz)
    return settled if settled.replace(tzinfo=None) != naive else value


def resolve(
    phrase: str,
    now: datetime,
    tz: ZoneInfo,
    *,
    what: str = "time",
    on_day: date | None = None,
    default_time: time | None = None,
) -> datetime:
    """An aware datetime in ``tz`` for ``phrase``.

    ``on_day`` is the day a time alone falls on (for an end time after a
    start); without it a time alone is its next occurrence. A day alone
    takes ``default_time``, or is an error saying a time is needed.
    """
    now = now.astimezone(tz)
    parsed = parse(phrase, now, tz, what)
    if parsed.exact is not None:
        return parsed.exact.astimezone(tz)
    clock = parsed.clock if parsed.clock is not None else default_time
    if clock is None:
        raise WhenError(
            f"{what}: {phrase.strip()!r} names a day but no time of day; add one, e.g. "
            f"'{WEEKDAYS[parsed.day.weekday()]} 10:00' or '{parsed.day.isoformat()} 14:30'."
        )
    if parsed.day is not None:
        return localize(parsed.day, clock, tz)
    if on_day is not None:
        return localize(on_day, clock, tz)
    today = localize(now.date(), clock, tz)
    return today if today > now else localize(now.date() + timedelta(days=1), clock, tz)


def day_start(day: date, tz: ZoneInfo) -> datetime:
    return localize(day, time(0), tz)


def span(phrase: str, now: datetime, tz: ZoneInfo, what: str = "date") -> tuple[datetime, datetime]:
    """The stretch of time a phrase names: a week, a day, or a moment (start == end)."""
    now = now.astimezone(tz)
    text = _normalise(phrase or "")
    monday = now.date() - timedelta(days=now.date().weekday())
    weeks = {"this week": 0, "本周": 0, "这周": 0, "這週": 0, "本週": 0, "next week": 1, "下周": 1,
             "下週": 1, "last week": -1, "上周": -1, "上週": -1}
    if text in weeks:
        first = monday + timedelta(weeks=weeks[text])
        return day_start(first, tz), day_start(first + timedelta(days=7), tz)
    parsed = parse(phrase, now, tz, what)
    if parsed.exact is not None:
        return parsed.exact, parsed.exact
    if parsed.clock is None:
        return day_start(parsed.day, tz), day_start(parsed.day + timedelta(days=1), tz)
    moment = resolve(phrase, now, tz, what=what)
    return moment, moment


def iso(moment: datetime, tz: ZoneInfo) -> str:
    """ISO 8601 with the offset, in the person's zone: '2026-12-01T10:00:00+01:00'."""
    return moment.astimezone(tz).replace(microsecond=0).isoformat()


def weekday(moment: datetime | date, tz: ZoneInfo | None = None) -> str:
    if isinstance(moment, datetime) and tz is not None:
        moment = moment.astimezone(tz)
    return WEEKDAYS[moment.weekday()]
