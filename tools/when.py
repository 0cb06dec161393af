"""Day and time phrases for tools, in the person's time zone.

The reading itself is memory.text.dates (``read`` and ``moment``), the one
date and time resolver kept has; its docstring lists the conventions
("next Tuesday", "at 3", DST, what is refused as ambiguous). This module
adds what is about booking: the tool-facing error with the accepted
formats, stretches of time ("this week", a whole day) for listing, and ISO
output in the person's zone.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from memory.text import dates
from memory.text.dates import PERIOD_DEFAULT, WEEKDAYS, Parsed, day_start, localize  # noqa: F401  (re-exported)
from tools.base import ToolError

ACCEPTED = (
    "'Tuesday 10:00', 'tuesday at 10am', 'tomorrow at 9', 'today 3pm', 'next Friday 14:30', "
    "'Thursday next week at 11', 'in 3 weeks at 10am', 'the 22nd at 3pm', 'half past two', "
    "'in 2 hours', 'Dec 3 at 9:15', 'noon', '2026-12-03 09:00', '2026-12-03T09:00:00+01:00', "
    "'明天上午九点', '下周二10点', '周五下午三点', '月底下午四点'"
)


class WhenError(ToolError):
    """A phrase that is not a day or time kept can read; the text says what is."""


def _error(what: str, exc: dates.DateError) -> WhenError:
    return WhenError(f"{what}: {exc}. Accepted formats: {ACCEPTED}.")


def parse(phrase: str, now: datetime, tz: ZoneInfo, what: str = "time") -> Parsed:
    """Read ``phrase`` into a day, a time of day and/or an exact moment (memory.text.dates.read)."""
    try:
        return dates.read(phrase, now, tz)
    except dates.DateError as exc:
        raise _error(what, exc) from None


def resolve(
    phrase: str,
    now: datetime,
    tz: ZoneInfo,
    *,
    what: str = "time",
    on_day: date | None = None,
    default_time: time | None = None,
) -> datetime:
    """An aware datetime in ``tz`` for ``phrase`` (memory.text.dates.moment)."""
    try:
        return dates.moment(phrase, now, tz, on_day=on_day, default_time=default_time)
    except dates.DateError as exc:
        raise _error(what, exc) from None


def span(phrase: str, now: datetime, tz: ZoneInfo, what: str = "date") -> tuple[datetime, datetime]:
    """The stretch of time a phrase names: a week, a day, or a moment (start == end)."""
    now = now.astimezone(tz)
    text = dates.normalise(phrase or "")
    monday = now.date() - timedelta(days=now.date().weekday())
    weeks = {
        "this week": 0,
        "本周": 0,
        "这周": 0,
        "這週": 0,
        "本週": 0,
        "next week": 1,
        "下周": 1,
        "下週": 1,
        "last week": -1,
        "上周": -1,
        "上週": -1,
    }
    if text in weeks:
        first = monday + timedelta(weeks=weeks[text])
        return day_start(first, tz), day_start(first + timedelta(days=7), tz)
    parsed = parse(phrase, now, tz, what)
    if parsed.exact is not None:
        return parsed.exact, parsed.exact
    if parsed.clock is None:
        assert parsed.day is not None  # dates.read names a day or a time of day, or raises
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
