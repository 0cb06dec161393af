"""Day and time phrases resolve to the right absolute moment in the person's zone."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from tools import when
from tools.base import ToolError

BERLIN = ZoneInfo("Europe/Berlin")
# Monday 30 November 2026, 09:30 in Berlin (UTC+01:00).
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=BERLIN)


def at(phrase: str, now: datetime = NOW, tz: ZoneInfo = BERLIN) -> str:
    return when.resolve(phrase, now, tz).isoformat()


@pytest.mark.parametrize(
    "phrase, expected",
    [
        ("Tuesday 10:00", "2026-12-01T10:00:00+01:00"),
        ("tuesday at 10am", "2026-12-01T10:00:00+01:00"),
        ("Tue 10:00", "2026-12-01T10:00:00+01:00"),
        ("Tuesday 10", "2026-12-01T10:00:00+01:00"),
        ("tomorrow at 9", "2026-12-01T09:00:00+01:00"),
        ("tomorrow 9:45 a.m.", "2026-12-01T09:45:00+01:00"),
        ("today 3pm", "2026-11-30T15:00:00+01:00"),
        ("today at 12pm", "2026-11-30T12:00:00+01:00"),
        ("next Friday 14:30", "2026-12-11T14:30:00+01:00"),
        ("this Friday 14:30", "2026-12-04T14:30:00+01:00"),
        ("Friday 14:30", "2026-12-04T14:30:00+01:00"),
        ("in 2 hours", "2026-11-30T11:30:00+01:00"),
        ("in 30 minutes", "2026-11-30T10:00:00+01:00"),
        ("in half an hour", "2026-11-30T10:00:00+01:00"),
        ("2 hours from now", "2026-11-30T11:30:00+01:00"),
        ("in 3 days at 10:00", "2026-12-03T10:00:00+01:00"),
        ("Dec 3 at 9:15", "2026-12-03T09:15:00+01:00"),
        ("December 3rd, 2026 at 9:15 am", "2026-12-03T09:15:00+01:00"),
        ("3 Dec 2027 10:00", "2027-12-03T10:00:00+01:00"),
        ("2026-12-03 09:00", "2026-12-03T09:00:00+01:00"),
        ("2026-12-03T09:00", "2026-12-03T09:00:00+01:00"),
        ("2026-12-03 at 9:15", "2026-12-03T09:15:00+01:00"),
        ("2026-12-03T09:00:00+00:00", "2026-12-03T10:00:00+01:00"),
        ("2026-12-03T08:00:00Z", "2026-12-03T09:00:00+01:00"),
        ("noon", "2026-11-30T12:00:00+01:00"),
        ("tomorrow noon", "2026-12-01T12:00:00+01:00"),
        ("midnight", "2026-12-01T00:00:00+01:00"),
        ("tonight", "2026-11-30T19:00:00+01:00"),
        ("tomorrow morning", "2026-12-01T09:00:00+01:00"),
        ("Wednesday afternoon", "2026-12-02T14:00:00+01:00"),
        ("Thursday at 4 in the afternoon", "2026-12-03T16:00:00+01:00"),
        ("9 o'clock", "2026-12-01T09:00:00+01:00"),  # 09:00 today has passed
        ("10:00", "2026-11-30T10:00:00+01:00"),  # still ahead today
        ("at 3", "2026-11-30T15:00:00+01:00"),  # a bare 1-6 is the afternoon
        ("03:00", "2026-12-01T03:00:00+01:00"),  # a leading zero keeps the night
        ("3am", "2026-12-01T03:00:00+01:00"),
        ("  TUESDAY   10:00. ", "2026-12-01T10:00:00+01:00"),
        # Chinese
        ("明天上午九点", "2026-12-01T09:00:00+01:00"),
        ("下周二10点", "2026-12-08T10:00:00+01:00"),
        ("周五下午三点", "2026-12-04T15:00:00+01:00"),
        ("星期五下午3点半", "2026-12-04T15:30:00+01:00"),
        ("后天晚上八点", "2026-12-02T20:00:00+01:00"),
        ("今天下午两点十五分", "2026-11-30T14:15:00+01:00"),
        ("12月3日上午10点", "2026-12-03T10:00:00+01:00"),
        ("2027年1月5号9点", "2027-01-05T09:00:00+01:00"),
        ("周日 10:00", "2026-12-06T10:00:00+01:00"),
        ("本周三中午", "2026-12-02T12:00:00+01:00"),
        ("明天１０：３０", "2026-12-01T10:30:00+01:00"),  # full-width digits from a Chinese IME
        ("两小时后", "2026-11-30T11:30:00+01:00"),
        ("半小时后", "2026-11-30T10:00:00+01:00"),
        ("下下周一上午十点", "2026-12-14T10:00:00+01:00"),
    ],
)
def test_phrase_resolves_to_absolute_time(phrase, expected):
    assert at(phrase) == expected


@pytest.mark.parametrize(
    "phrase, expected",
    [
        # said on Monday 30 November 2026 in Berlin
        ("the Wednesday after next at 10", "2026-12-16T10:00:00+01:00"),  # the one after "next Wednesday"
        ("Thursday week at 4pm", "2026-12-10T16:00:00+01:00"),  # a week after the coming Thursday
        ("a week on Friday at 11", "2026-12-11T11:00:00+01:00"),
        ("tomorrow fortnight at 9am", "2026-12-15T09:00:00+01:00"),
        ("the third Tuesday of January at 2pm", "2027-01-19T14:00:00+01:00"),
        ("the last Monday of the month at 9", "2026-11-30T09:00:00+01:00"),  # today counts
        ("New Year's Eve at 8pm", "2026-12-31T20:00:00+01:00"),
        ("close of business Wednesday", "2026-12-02T17:00:00+01:00"),
        ("first thing Thursday", "2026-12-03T09:00:00+01:00"),
        ("two days before the 15th at noon", "2026-12-13T12:00:00+01:00"),
        ("Thursday 10ish", "2026-12-03T10:00:00+01:00"),
        ("下个月最后一个周三下午三点", "2026-12-30T15:00:00+01:00"),
        ("平安夜晚上八点", "2026-12-24T20:00:00+01:00"),
        ("周四下班前", "2026-12-03T18:00:00+01:00"),
        ("月底前两天上午十点", "2026-11-28T10:00:00+01:00"),
    ],
)
def test_constructions_people_book_with(phrase, expected):
    assert at(phrase) == expected


def test_weekday_name_means_the_next_occurrence_not_today():
    # NOW is a Monday: "Monday" is a week ahead, "this Monday" is today.
    assert at("Monday 10:00") == "2026-12-07T10:00:00+01:00"
    assert at("this Monday 10:00") == "2026-11-30T10:00:00+01:00"
    assert at("周一10点") == "2026-12-07T10:00:00+01:00"


def test_next_weekday_is_in_next_calendar_week():
    sunday = datetime(2026, 12, 6, 18, 0, tzinfo=BERLIN)
    assert at("next Monday 9:00", sunday) == "2026-12-07T09:00:00+01:00"
    assert at("下周一9点", sunday) == "2026-12-07T09:00:00+01:00"
    assert at("Monday 9:00", sunday) == "2026-12-07T09:00:00+01:00"


def test_month_day_without_year_rolls_to_next_year_once_passed():
    later = datetime(2026, 12, 10, 9, 0, tzinfo=BERLIN)
    assert at("Dec 3 at 9:15", later) == "2027-12-03T09:15:00+01:00"
    assert at("Dec 10 at 10:00", later) == "2026-12-10T10:00:00+01:00"


def test_time_alone_today_if_ahead_else_tomorrow():
    assert at("9:00") == "2026-12-01T09:00:00+01:00"
    assert at("9:31") == "2026-11-30T09:31:00+01:00"


def test_result_is_aware_in_the_persons_zone():
    tokyo = ZoneInfo("Asia/Tokyo")
    moment = when.resolve("tomorrow at 9", NOW, tokyo)
    assert moment.tzinfo is not None and moment.utcoffset().total_seconds() == 9 * 3600
    # "tomorrow" is tomorrow in Tokyo: NOW is already 17:30 Monday there.
    assert moment.isoformat() == "2026-12-01T09:00:00+09:00"


class TestDaylightSaving:
    # Berlin springs forward on 2026-03-29 at 02:00 -> 03:00, falls back on 2026-10-25 at 03:00 -> 02:00.
    SATURDAY = datetime(2026, 3, 28, 10, 0, tzinfo=BERLIN)

    def test_wall_time_across_spring_forward_keeps_the_clock(self):
        assert at("tomorrow at 9", self.SATURDAY) == "2026-03-29T09:00:00+02:00"
        assert at("Monday 9:00", self.SATURDAY) == "2026-03-30T09:00:00+02:00"

    def test_elapsed_time_across_spring_forward_counts_real_hours(self):
        assert at("in 24 hours", self.SATURDAY) == "2026-03-29T11:00:00+02:00"

    def test_skipped_wall_time_moves_forward(self):
        assert at("tomorrow 02:30", self.SATURDAY) == "2026-03-29T03:30:00+02:00"

    def test_repeated_wall_time_is_the_first(self):
        moment = when.resolve("Oct 25 2026 02:30", self.SATURDAY, BERLIN)
        assert moment.isoformat() == "2026-10-25T02:30:00+02:00"

    def test_across_fall_back(self):
        saturday = datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN)
        assert at("tomorrow at 9", saturday) == "2026-10-25T09:00:00+01:00"
        assert at("in 24 hours", saturday) == "2026-10-25T11:00:00+01:00"

    def test_new_york_zone(self):
        ny = ZoneInfo("America/New_York")
        friday = datetime(2026, 3, 6, 12, 0, tzinfo=ny)  # US springs forward 2026-03-08
        assert at("next Monday 9am", friday, ny) == "2026-03-09T09:00:00-04:00"


@pytest.mark.parametrize(
    "phrase",
    [
        "banana",
        "Tuesday 10:00 with Sam",
        "25:00",
        "13pm",
        "Feb 30 10:00",
        "2026-02-30",
        "",
        "   ",
        "in 2 hours tomorrow",
        "Tuesday Wednesday 10:00",
        "明天开会",
    ],
)
def test_unreadable_phrase_is_a_tool_error_listing_formats(phrase):
    with pytest.raises(ToolError) as info:
        when.resolve(phrase, NOW, BERLIN, what="start")
    text = str(info.value)
    assert text.startswith("start:")
    assert "Accepted formats" in text and "Tuesday 10:00" in text and "明天上午九点" in text


def test_day_without_time_asks_for_a_time():
    with pytest.raises(ToolError, match="names a day but no time of day.*Tuesday 10:00"):
        when.resolve("Tuesday", NOW, BERLIN, what="start")


def test_day_without_time_takes_the_default_when_given():
    assert when.resolve("Tuesday", NOW, BERLIN, default_time=time(17)).isoformat() == "2026-12-01T17:00:00+01:00"


def test_time_alone_on_a_given_day():
    moment = when.resolve("11:30", NOW, BERLIN, on_day=date(2026, 12, 8))
    assert moment.isoformat() == "2026-12-08T11:30:00+01:00"


def test_parse_separates_day_time_and_moment():
    assert when.parse("Tuesday", NOW, BERLIN) == when.Parsed(day=date(2026, 12, 1))
    assert when.parse("10:15", NOW, BERLIN) == when.Parsed(clock=time(10, 15))
    assert when.parse("in 1 hour", NOW, BERLIN).exact.isoformat() == "2026-11-30T10:30:00+01:00"


def test_span_of_week_day_and_moment():
    start, end = when.span("next week", NOW, BERLIN)
    assert (start.isoformat(), end.isoformat()) == ("2026-12-07T00:00:00+01:00", "2026-12-14T00:00:00+01:00")
    start, end = when.span("本周", NOW, BERLIN)
    assert start.date() == date(2026, 11, 30) and end.date() == date(2026, 12, 7)
    start, end = when.span("Dec 3", NOW, BERLIN)
    assert (start.isoformat(), end.isoformat()) == ("2026-12-03T00:00:00+01:00", "2026-12-04T00:00:00+01:00")
    start, end = when.span("Dec 3 10:00", NOW, BERLIN)
    assert start == end and start.isoformat() == "2026-12-03T10:00:00+01:00"


def test_weekday_beside_a_date_checks_it():
    assert at("Tuesday, December 8, 2026 10:00 AM") == "2026-12-08T10:00:00+01:00"
    assert at("2026-12-08 10:00 (Tuesday)") == "2026-12-08T10:00:00+01:00"
    assert at("周二 12月8日 10点") == "2026-12-08T10:00:00+01:00"
    with pytest.raises(ToolError, match="2026-12-08 is a Tuesday, not a Wednesday"):
        when.resolve("Wednesday Dec 8 10:00", NOW, BERLIN)
