"""Relative dates are resolved in code from the date of the message that said them."""

from __future__ import annotations

from datetime import date

import pytest

from memory.text.dates import annotate, names_day_of_month, resolve

WED = date(2026, 10, 7)  # a Wednesday
MON = date(2026, 10, 12)


@pytest.mark.parametrize(
    "words, ref, expected",
    [
        ("tomorrow", WED, "2026-10-08"),
        ("yesterday", WED, "2026-10-06"),
        ("today", WED, "2026-10-07"),
        ("the day after tomorrow", WED, "2026-10-09"),
        ("next Tuesday", WED, "2026-10-13"),
        ("next Tuesday", MON, "2026-10-20"),  # Tuesday of next calendar week, as 下周二
        ("last Tuesday", WED, "2026-09-29"),
        ("this Friday", WED, "2026-10-09"),
        ("on Monday", WED, "2026-10-12"),
        ("by Wednesday", WED, "2026-10-14"),  # said on a Wednesday: next week's
        ("in two weeks", WED, "2026-10-21"),
        ("in 3 days", WED, "2026-10-10"),
        ("in a month", date(2026, 1, 31), "2026-02-28"),
        ("two days ago", WED, "2026-10-05"),
        ("a week ago", WED, "2026-09-30"),
        ("a week from today", WED, "2026-10-14"),
        ("last weekend", MON, "2026-10-10 to 2026-10-11"),
        ("this weekend", WED, "2026-10-10 to 2026-10-11"),
        ("next weekend", WED, "2026-10-17 to 2026-10-18"),
        ("next week", WED, "2026-10-12 to 2026-10-18"),
        ("the week after next", WED, "2026-10-19 to 2026-10-25"),
        ("next month", WED, "2026-11"),
        ("last month", date(2026, 1, 15), "2025-12"),
        ("next year", WED, "2027"),
    ],
)
def test_english_relative_dates(words, ref, expected):
    span = resolve(words, ref)
    assert span is not None, words
    assert span.label() == expected


@pytest.mark.parametrize(
    "words, ref, expected",
    [
        ("明天", WED, "2026-10-08"),
        ("后天", WED, "2026-10-09"),
        ("昨天", WED, "2026-10-06"),
        ("前天", WED, "2026-10-05"),
        ("下周二", WED, "2026-10-13"),
        ("下周二", MON, "2026-10-20"),
        ("上周五", WED, "2026-10-02"),
        ("这周五", WED, "2026-10-09"),
        ("下星期一", WED, "2026-10-12"),
        ("下下周三", WED, "2026-10-21"),
        ("周五", WED, "2026-10-09"),
        ("星期天", WED, "2026-10-11"),
        ("上周末", MON, "2026-10-10 to 2026-10-11"),
        ("这周末", WED, "2026-10-10 to 2026-10-11"),
        ("下周", WED, "2026-10-12 to 2026-10-18"),
        ("上个月", WED, "2026-09"),
        ("上个月", date(2026, 1, 5), "2025-12"),
        ("下个月", WED, "2026-11"),
        ("本月", WED, "2026-10"),
        ("去年", WED, "2025"),
        ("明年", WED, "2027"),
        ("三天后", WED, "2026-10-10"),
        ("两周后", WED, "2026-10-21"),
        ("两个月前", WED, "2026-08-07"),
        ("十天以后", WED, "2026-10-17"),
    ],
)
def test_chinese_relative_dates(words, ref, expected):
    span = resolve(words, ref)
    assert span is not None, words
    assert span.label() == expected


def test_annotate_adds_the_calendar_date_after_the_words():
    assert annotate("The review moved to next Tuesday.", WED) == "The review moved to next Tuesday (2026-10-13)."
    assert annotate("评审改到下周二了", WED) == "评审改到下周二 (2026-10-13)了"
    assert annotate("we met last weekend and ship in two weeks", MON) == (
        "we met last weekend (2026-10-10 to 2026-10-11) and ship in two weeks (2026-10-26)"
    )


def test_annotate_twice_changes_nothing():
    once = annotate("call Sam tomorrow; 上个月的报告", WED)
    assert annotate(once, WED) == once


def test_text_without_relative_dates_is_untouched():
    for text in (
        "The Atlas launch is on 2026-11-10.",
        "Budget is $5,000",
        "我们用 Postgres",
        "Monday.com is a tool name",
    ):
        assert annotate(text, WED) == text


def test_a_time_phrase_joins_its_day_and_its_hour_in_either_order():
    from memory.text.dates import time_phrases

    def said(text):
        return [text[s:e].strip(" .") for s, e in time_phrases(text, WED)]

    assert said("Have the rota posted by nine a.m. the day after tomorrow") == ["nine a.m. the day after tomorrow"]
    assert said("the survey is due Thursday at 4:15pm") == ["Thursday at 4:15pm"]
    assert said("后天下午三点前交") == ["后天下午三点"]
    # The part of the day after the hour is the hour's: one phrase, governed by its "by".
    assert said("I need it by 3 in the afternoon the day after tomorrow") == [
        "3 in the afternoon the day after tomorrow"
    ]
    # Two times said apart are two phrases.
    assert said("due Friday, and ring me at noon") == ["Friday", "noon"]


def test_the_day_after_tomorrow_without_its_article_is_two_days_on_not_tomorrow():
    # Only "tomorrow" was read in "Day after tomorrow, ten past three": a day early.
    from memory.text import dates as reader

    ref = date(2026, 12, 7)
    assert [(w, s.start) for _, _, w, s in reader.find("Day after tomorrow, ten past three", ref)] == [
        ("Day after tomorrow", date(2026, 12, 9))
    ]
    assert reader.resolve("day before yesterday", ref).start == date(2026, 12, 5)


@pytest.mark.parametrize(
    ("text", "names_a_day"),
    [
        ("Please arrange the food for the concert on the 3rd.", True),
        ("book it for the 14th", True),
        ("can we meet on the 21st at 7", True),
        ("by the 30th, please", True),
        ("the lift on the 3rd floor is out", False),  # the ordinal counts floors
        ("that's for the 2nd time this week", False),
        ("we won the 1st prize", False),  # no preposition of time before it
    ],
)
def test_a_day_of_the_month_said_alone_names_a_day(text, names_a_day):
    assert names_day_of_month(text) is names_a_day


def test_at_and_a_number_is_a_time_only_when_the_number_is_an_hour():
    from memory.text.dates import mentions_time

    assert mentions_time("Ring the depot at 9.")
    assert not mentions_time("The render farm is at 64 machines since the upgrade.")
