"""Calendar tools: booking with resolved times, conflicts, listing, cancelling, argument errors."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from tools import all_tools, lists
from tools.base import ToolContext, ToolError
from tools.calendar import TOOLS

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=BERLIN)  # a Monday
T = {t.name: t for t in TOOLS}


@pytest.fixture
def ctx(db):
    return ToolContext(db=db, now=NOW, tz=BERLIN, chat_name="me")


def book(ctx, **arguments):
    return T["schedule_meeting"].call(ctx, arguments)


def test_calendar_tools_are_registered():
    names = {t.name for t in all_tools()}
    assert {"schedule_meeting", "list_events", "cancel_event"} <= names


def test_schedule_resolves_the_phrase_and_stores_the_event(ctx, db):
    result = book(ctx, title="One on one with Sam", attendees=["Sam"], start="Tuesday 10:00")
    assert result["start"] == "2026-12-01T10:00:00+01:00"
    assert result["end"] == "2026-12-01T10:30:00+01:00"
    assert result["weekday"] == "Tuesday"
    assert result["duration_minutes"] == 30
    assert result["attendees"] == ["Sam"]
    assert result["conflicts"] == []
    stored = lists.get_event(db, result["event_id"])
    assert stored.title == "One on one with Sam"
    assert stored.start == datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    assert stored.status == lists.SCHEDULED


def test_schedule_with_duration_end_location_and_notes(ctx):
    r = book(ctx, title="Planning", start="Dec 3 at 9:15", duration_minutes=90, location="Room 4", notes="Q1 plan")
    assert (r["start"], r["end"]) == ("2026-12-03T09:15:00+01:00", "2026-12-03T10:45:00+01:00")
    assert r["location"] == "Room 4" and r["notes"] == "Q1 plan"
    r = book(ctx, title="Review", start="明天下午两点", end="15:30")
    assert (r["start"], r["end"]) == ("2026-12-01T14:00:00+01:00", "2026-12-01T15:30:00+01:00")
    r = book(ctx, title="Offsite", start="Dec 9 9:00", end="Dec 9 17:00")
    assert r["duration_minutes"] == 480


def test_lenient_shapes_small_models_send(ctx):
    r = book(ctx, title="Sync", date="Friday", time="14:30", attendees="Sam, Priya and Lee", duration="1 hour")
    assert r["start"] == "2026-12-04T14:30:00+01:00"
    assert r["attendees"] == ["Sam", "Priya", "Lee"]
    assert r["duration_minutes"] == 60
    r = book(ctx, title="Call", start="Friday 16:00", duration_minutes="45")
    assert r["duration_minutes"] == 45


def test_null_or_empty_optional_arguments_count_as_absent(ctx):
    r = book(ctx, title="X", start="Tuesday 10:00", end=None, location="", attendees=None, duration_minutes=None)
    assert (r["end"], r["attendees"], r["duration_minutes"]) == ("2026-12-01T10:30:00+01:00", [], 30)
    assert "location" not in r


def test_overlap_is_booked_and_reported(ctx, db):
    first = book(ctx, title="Design review", start="Tuesday 10:00", duration_minutes=60)
    touching = book(ctx, title="After", start="Tuesday 11:00")
    assert touching["conflicts"] == []  # ends meeting starts: no overlap
    second = book(ctx, title="One on one with Sam", start="Tuesday 10:30", attendees=["Sam"])
    assert [c["event_id"] for c in second["conflicts"]] == [first["event_id"]]
    assert second["conflicts"][0]["title"] == "Design review"
    assert "Design review" in second["warning"]
    assert lists.get_event(db, second["event_id"]).status == lists.SCHEDULED


def test_cancelled_event_is_not_a_conflict(ctx):
    first = book(ctx, title="Old", start="Tuesday 10:00")
    T["cancel_event"].call(ctx, {"event_id": first["event_id"]})
    assert book(ctx, title="New", start="Tuesday 10:00")["conflicts"] == []


def test_start_in_the_past_is_refused(ctx, db):
    with pytest.raises(ToolError, match=r"start: 'today 8:00' is 2026-11-30T08:00:00\+01:00 .*in the past"):
        book(ctx, title="Standup", start="today 8:00")
    assert lists.events(db) == []


def test_end_before_start_is_refused(ctx):
    with pytest.raises(ToolError, match="end: 'Tuesday 9:00' .* not after start"):
        book(ctx, title="X", start="Tuesday 10:00", end="Tuesday 9:00")


def test_end_time_alone_before_start_runs_past_midnight(ctx):
    r = book(ctx, title="Release", start="Tuesday 23:00", end="00:30")
    assert (r["start"], r["end"]) == ("2026-12-01T23:00:00+01:00", "2026-12-02T00:30:00+01:00")


@pytest.mark.parametrize(
    "arguments, names",
    [
        ({"attendees": ["Sam"], "start": "Tuesday 10:00"}, ["title is required", "What the meeting is"]),
        ({"title": "X"}, ["start is required", "'Tuesday 10:00'"]),
        ({"title": "", "start": "Tuesday 10:00"}, ["title: must not be empty"]),
        ({"title": "X", "start": "Tuesday 10:00", "duration_minutes": 0}, ["duration_minutes", "Length in minutes"]),
        (
            {"title": "X", "start": "Tuesday 10:00", "duration_minutes": "a while"},
            ["duration_minutes", "not a number of minutes"],
        ),
        ({"title": "X", "start": "Tuesday 10:00", "attendees": [3]}, ["attendees.0", "names or email addresses"]),
    ],
)
def test_invalid_arguments_name_the_argument_and_what_it_takes(ctx, arguments, names):
    with pytest.raises(ToolError) as info:
        book(ctx, **arguments)
    text = str(info.value)
    assert text.startswith("invalid arguments:")
    for name in names:
        assert name in text


def test_unreadable_start_lists_accepted_formats(ctx):
    with pytest.raises(ToolError, match="start: could not read 'whenever'.*Accepted formats: 'Tuesday 10:00'"):
        book(ctx, title="X", start="whenever")


def test_day_without_time_asks_for_one(ctx):
    with pytest.raises(ToolError, match="start: 'Tuesday' names a day but no time of day"):
        book(ctx, title="X", start="Tuesday")


def test_list_events_defaults_to_the_next_30_days(ctx):
    book(ctx, title="Soon", start="Tuesday 10:00")
    book(ctx, title="Far", start="2027-03-01 10:00")
    result = T["list_events"].call(ctx, {})
    assert [e["title"] for e in result["events"]] == ["Soon"]
    assert result["from"] == "2026-11-30T09:30:00+01:00"
    assert result["to"] == "2026-12-30T09:30:00+01:00"


def test_list_events_for_a_day_a_range_and_a_week(ctx):
    book(ctx, title="Tue", start="Tuesday 10:00")
    book(ctx, title="Wed", start="Wednesday 10:00")
    book(ctx, title="Next Tue", start="next Tuesday 10:00")
    day = T["list_events"].call(ctx, {"from_date": "Tuesday"})
    assert [e["title"] for e in day["events"]] == ["Tue"]
    assert day["events"][0]["weekday"] == "Tuesday"
    ranged = T["list_events"].call(ctx, {"from_date": "tomorrow", "to_date": "Wednesday"})
    assert [e["title"] for e in ranged["events"]] == ["Tue", "Wed"]
    week = T["list_events"].call(ctx, {"from_date": "next week"})
    assert [e["title"] for e in week["events"]] == ["Next Tue"]


def test_list_events_rejects_backwards_range(ctx):
    with pytest.raises(ToolError, match="to_date .* is before from_date"):
        T["list_events"].call(ctx, {"from_date": "Friday", "to_date": "Tuesday"})


def test_cancel_event_and_its_errors(ctx, db):
    event = book(ctx, title="Retro", start="Thursday 16:00")
    result = T["cancel_event"].call(ctx, {"event_id": event["event_id"]})
    assert result["status"] == "cancelled"
    assert lists.get_event(db, event["event_id"]).status == lists.CANCELLED
    assert T["list_events"].call(ctx, {})["events"] == []
    assert T["list_events"].call(ctx, {"include_cancelled": True})["count"] == 1
    with pytest.raises(ToolError, match=r"event_id: event \d+ \('Retro'.*already cancelled"):
        T["cancel_event"].call(ctx, {"event_id": event["event_id"]})
    with pytest.raises(ToolError, match="no event has event_id 999; call list_events"):
        T["cancel_event"].call(ctx, {"event_id": "#999"})
    with pytest.raises(ToolError, match="event_id is required"):
        T["cancel_event"].call(ctx, {})
    with pytest.raises(ToolError, match="event_id: .*event_id from schedule_meeting"):
        T["cancel_event"].call(ctx, {"event_id": "the retro"})


def test_schemas_show_descriptions_with_examples():
    for tool in TOOLS:
        schema = tool.parameters
        assert schema["type"] == "object"
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
            assert "anyOf" not in prop and "title" not in prop, f"{tool.name}.{name} schema is noisy"
    assert T["schedule_meeting"].parameters["required"] == ["title", "start"]
    assert T["cancel_event"].parameters["required"] == ["event_id"]
