"""Typed checks: each passes and fails on what it names, and records required and observed values."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from evals.checks import grade, numbers_in, parse_check

BERLIN = ZoneInfo("Europe/Berlin")


def one(check: dict, row: dict, table: str = "outbox", calls=None):
    return grade([parse_check(check)], {table: [row]}, calls or [], tz=BERLIN)


@pytest.mark.parametrize(
    "check,row,ok",
    [
        (
            {"type": "field_equals", "table": "outbox", "field": "to", "value": "Priya@x.example "},
            {"to": "priya@x.example"},
            True,
        ),
        (
            {"type": "field_equals", "table": "outbox", "field": "to", "value": "priya@x.example"},
            {"to": "marco@x.example"},
            False,
        ),
        (
            {"type": "number_equals", "table": "tasks", "field": "title|notes", "value": 48000},
            {"title": "PO", "notes": "for $48,000"},
            True,
        ),
        (
            {"type": "number_equals", "table": "tasks", "field": "title", "value": 48000},
            {"title": "PO for $45,000"},
            False,
        ),
        (
            {
                "type": "date_on",
                "table": "calendar_events",
                "field": "start",
                "date": "2026-12-10",
                "tz": "Europe/Berlin",
            },
            {"start": "2026-12-09T23:30:00+00:00"},
            True,
        ),  # 00:30 on the 10th in Berlin
        (
            {
                "type": "date_on",
                "table": "calendar_events",
                "field": "start",
                "date": "2026-12-10",
                "tz": "Europe/Berlin",
            },
            {"start": "2026-12-09T22:30:00+00:00"},
            False,
        ),
        (
            {"type": "instant_equals", "table": "calendar_events", "field": "start", "at": "2026-12-10T15:00:00+01:00"},
            {"start": "2026-12-10T14:00:00+00:00"},
            True,
        ),
        (
            {"type": "instant_equals", "table": "calendar_events", "field": "start", "at": "2026-12-10T15:00:00+01:00"},
            {"start": "2026-12-10T15:00:00+00:00"},
            False,
        ),
        (
            {"type": "list_includes", "table": "calendar_events", "field": "attendees", "value": "lena@x.example"},
            {"attendees": ["priya@x.example", "lena@x.example"]},
            True,
        ),
        (
            {"type": "list_includes", "table": "calendar_events", "field": "attendees", "value": "lena@x.example"},
            {"attendees": ["priya@x.example"]},
            False,
        ),
        (
            {"type": "pattern", "table": "outbox", "field": "subject|body", "regex": r"December\s+10"},
            {"subject": None, "body": "moved to December 10"},
            True,
        ),
        (
            {"type": "pattern", "table": "outbox", "field": "body", "regex": r"December\s+10"},
            {"body": "moved to December 3"},
            False,
        ),
        ({"type": "field_absent", "table": "calendar_events", "field": "location"}, {"location": None}, True),
        ({"type": "field_absent", "table": "calendar_events", "field": "location"}, {"location": "Room 4"}, False),
    ],
)
def test_row_checks(check, row, ok):
    result = one(check, row, check["table"])
    assert result.passed is ok
    verdict = result.verdicts[0]
    assert verdict.required == {k: v for k, v in check.items() if k != "type"}
    if "|" not in check["field"]:
        assert verdict.observed == row[check["field"]]


def test_call_checks():
    calls = ["send_message", "send_message", "list_events"]
    assert grade([parse_check({"type": "tool_called", "tool": "send_message"})], {}, calls).passed
    assert not grade([parse_check({"type": "tool_not_called", "tool": "send_message"})], {}, calls).passed
    assert grade([parse_check({"type": "call_count", "tool": "send_message", "count": 2})], {}, calls).passed
    failed = grade([parse_check({"type": "call_count", "tool": "send_message", "count": 1})], {}, calls)
    assert not failed.passed and failed.verdicts[0].observed == 2


def test_actions_match_rows_regardless_of_order_and_need_distinct_rows():
    checks = [
        parse_check(c)
        for c in (
            {
                "type": "list_includes",
                "table": "outbox",
                "field": "to",
                "value": "billing@fabrikam.example",
                "action": "a1",
            },
            {
                "type": "list_includes",
                "table": "outbox",
                "field": "to",
                "value": "ines@northwind.example",
                "action": "a2",
            },
        )
    ]
    rows = [{"to": "ines@northwind.example"}, {"to": "billing@fabrikam.example"}]
    assert grade(checks, {"outbox": rows}, []).passed
    # One row cannot serve two actions.
    assert not grade(checks, {"outbox": rows[:1]}, []).passed


def test_a_task_fails_when_any_check_fails_and_keeps_each_observation():
    checks = [
        parse_check(c)
        for c in (
            {"type": "list_includes", "table": "outbox", "field": "to", "value": "aisha@x.example"},
            {"type": "pattern", "table": "outbox", "field": "body", "regex": r"December 10"},
        )
    ]
    result = grade(checks, {"outbox": [{"to": "aisha@x.example", "body": "It is on December 3."}]}, [])
    assert not result.passed
    by_type = {v.type: v for v in result.verdicts}
    assert by_type["list_includes"].observed == "aisha@x.example"
    assert by_type["pattern"].observed == "It is on December 3." and not by_type["pattern"].passed


def test_no_row_means_failure_not_a_crash():
    result = grade(
        [parse_check({"type": "pattern", "table": "tasks", "field": "title", "regex": "x"})], {"tasks": []}, []
    )
    assert not result.passed and result.verdicts[0].observed is None


def test_numbers_as_people_write_them():
    assert 48000 in numbers_in("$48,000") and 48000 in numbers_in("48k") and 48000 in numbers_in("4.8万")
