"""The embedded model's argument repair: times as the request names them,
no invented optional values. No model needed: the calls are written here as
the 0.5B model wrote them in evals/local_accuracy.py."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from agent.models.base import Message, ToolCall, ToolSpec
from agent.models.local import screen
from agent.models.local_repair import clock_of, named_time
from tools import all_tools

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)
SYSTEM = "You are kept.\n\nNow: Monday 2026-11-30 09:00 (Europe/Berlin, UTC+0100)."
SPECS = [ToolSpec(t.name, t.description, t.parameters) for t in all_tools()]


@pytest.mark.parametrize("request_text, phrase, day, has_clock", [
    ("Schedule a meeting with Anna tomorrow at 3pm about the Q3 budget.", "tomorrow at 3pm", date(2026, 12, 1), True),
    ("Book a 1:1 with Sam on Thursday at 10:00.", "Thursday at 10:00", date(2026, 12, 3), True),
    ("Set up a kickoff on Dec 9 at 14:00 with Lena and Omar, 60 minutes.", "Dec 9 at 14:00", date(2026, 12, 9), True),
    ("明天下午三点和王伟开会讨论预算", "明天下午三点", date(2026, 12, 1), True),
    ("Do I have anything on Friday?", "Friday", date(2026, 12, 4), False),
    ("Set up a follow-up at 4pm after the review tomorrow.", "tomorrow 4pm", date(2026, 12, 1), True),
])
def test_the_request_names_its_day_and_time(request_text, phrase, day, has_clock):
    named = named_time(request_text, NOW, TZ)
    assert (named.phrase, named.day, named.has_clock) == (phrase, day, has_clock)


@pytest.mark.parametrize("request_text", ["Cancel event 7.", "Tell Marco that I'll be 10 minutes late.", "What is a mutex?"])
def test_a_request_without_a_time_names_none(request_text):
    assert named_time(request_text, NOW, TZ) is None


def test_the_clock_line_context_writes_is_read():
    assert clock_of(SYSTEM) == (NOW, TZ)
    assert clock_of("no clock here") is None


def _screen(request: str, call: ToolCall, memory: str = ""):
    system = SYSTEM + (f'\n\n<memory kind="facts" note="data">\n{memory}\n</memory>' if memory else "")
    return screen([call], SPECS, [Message("user", request)], system)


def test_a_copied_clock_becomes_the_requests_time_and_invented_fields_go():
    written = ToolCall("c", "schedule_meeting", {
        "title": "Q3 budget meeting", "start": "2026-11-30 09:00", "attendees": ["Anna", "Sam"],
        "duration_minutes": 30, "end": "2026-11-30 14:30", "location": "Room 4", "notes": "Discuss the budget with Anna."})
    (call,), dropped, notes = _screen("Schedule a meeting with Anna tomorrow at 3pm about the Q3 budget.", written)
    assert dropped == [] and notes
    assert call.arguments == {"title": "Q3 budget meeting", "start": "tomorrow at 3pm", "attendees": ["Anna"]}


def test_values_the_request_gave_stay():
    written = ToolCall("c", "schedule_meeting", {
        "title": "Design review", "start": "Wednesday at 11am", "location": "Room 2", "duration_minutes": 45})
    (call,), _, notes = _screen("Schedule a design review on Wednesday at 11am in Room 2 for 45 minutes.", written)
    assert call.arguments == written.arguments and notes == []


def test_a_value_from_memory_is_grounded():
    written = ToolCall("c", "send_message", {"to": "Jonas", "body": "The investor call moved to 4pm.", "subject": "Investor call"})
    (call,), _, _ = _screen("Tell my co-founder the investor call moved to 4pm.", written,
                             memory="- 2026-11-02: My co-founder is Jonas Berg.")
    assert call.arguments == written.arguments  # "Jonas" from memory, every word of the subject from the request


def test_a_day_argument_takes_the_requests_day_and_an_invented_end_goes():
    written = ToolCall("c", "list_events", {"from_date": "Friday", "to_date": "2026-11-30"})
    (call,), _, _ = _screen("Do I have anything on Friday?", written)
    assert call.arguments == {"from_date": "2026-12-04"}


def test_with_no_clock_line_times_are_left_alone():
    written = ToolCall("c", "schedule_meeting", {"title": "Budget with Anna", "start": "2026-12-01T15:00"})
    (call,), _, _ = screen([written], SPECS, [Message("user", "Meet Anna tomorrow at 3pm about the budget")], "You are kept.")
    assert call.arguments["start"] == "2026-12-01T15:00"


def test_an_end_is_kept_only_when_the_request_says_it():
    copied = ToolCall("c", "schedule_meeting", {"title": "1:1 with Sam", "start": "Thursday at 10:00", "end": "2026-11-10 10:30"})
    (call,), _, _ = _screen("Book a 1:1 with Sam on Thursday at 10:00.", copied, memory="- 2026-11-10: I prefer meetings after 10am.")
    assert "end" not in call.arguments
    said = ToolCall("c", "schedule_meeting", {"title": "Review", "start": "Thursday at 10:00", "end": "11:30"})
    (call,), _, _ = _screen("Book a review on Thursday at 10:00 until 11:30.", said)
    assert call.arguments["end"] == "11:30"
