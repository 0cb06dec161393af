"""`kept calendar|outbox|tasks` commands over the stored rows, and a booking through a turn."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from agent.cli import app
from tools import calendar, messages, tasks
from tools.base import ToolContext

BERLIN = ZoneInfo("Europe/Berlin")  # KEPT_TZ in tests/conftest.py
runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def tool(tools, name):
    return next(t for t in tools if t.name == name)


@pytest.fixture
def ctx(db):
    return ToolContext(db=db, now=datetime.now(BERLIN), tz=BERLIN, approve=lambda prompt: True)


def test_every_command_has_help():
    for group in ("calendar", "outbox", "tasks"):
        out = run(group, "--help")
        assert "list" in out
        listing = run(group, "list", "--help")
        assert "--json" in listing and "Print JSON" in listing
    assert "iCalendar" in run("calendar", "export", "--help")


def test_calendar_list_json_shows_the_tuesday_booking(ctx):
    tool(calendar.TOOLS, "schedule_meeting").call(
        ctx, {"title": "One on one with Sam", "attendees": ["Sam"], "start": "Tuesday 10:00"}
    )
    rows = json.loads(run("calendar", "list", "--json"))
    assert len(rows) == 1
    row = rows[0]
    assert row["attendees"] == ["Sam"] and row["title"] == "One on one with Sam"
    start = datetime.fromisoformat(row["start"])
    assert start.weekday() == 1 and (start.hour, start.minute) == (10, 0)
    assert start.utcoffset() == start.astimezone(BERLIN).utcoffset()  # the offset is Berlin's on that day
    assert row["weekday"] == "Tuesday"
    text = run("calendar", "list")
    assert "One on one with Sam" in text and "Tue" in text and "10:00" in text


def test_calendar_list_range_and_cancelled(ctx):
    book = tool(calendar.TOOLS, "schedule_meeting")
    a = book.call(ctx, {"title": "A", "start": "in 2 days at 10:00"})
    book.call(ctx, {"title": "B", "start": "in 20 days at 10:00"})
    tool(calendar.TOOLS, "cancel_event").call(ctx, {"event_id": a["event_id"]})
    assert [r["title"] for r in json.loads(run("calendar", "list", "--json"))] == ["B"]
    assert [r["title"] for r in json.loads(run("calendar", "list", "--json", "--all"))] == ["A", "B"]
    only = json.loads(run("calendar", "list", "--json", "--all", "--from", "in 2 days", "--to", "in 3 days"))
    assert [r["title"] for r in only] == ["A"]
    bad = runner.invoke(app, ["calendar", "list", "--from", "someday"])
    assert bad.exit_code == 1 and "could not read 'someday'" in bad.output and "Traceback" not in bad.output


def test_calendar_export_writes_private_ics(ctx, tmp_path):
    tool(calendar.TOOLS, "schedule_meeting").call(ctx, {"title": "Sync, weekly", "start": "Tuesday 10:00"})
    target = tmp_path / "out.ics"
    out = run("calendar", "export", str(target))
    assert "Wrote 1 event" in out
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    data = target.read_bytes()
    assert data.startswith(b"BEGIN:VCALENDAR\r\n") and b"SUMMARY:Sync\\, weekly\r\n" in data
    missing = runner.invoke(app, ["calendar", "export", str(tmp_path / "no" / "such" / "dir.ics")])
    assert missing.exit_code == 1 and "cannot write" in missing.output


def test_outbox_list(ctx):
    send = tool(messages.TOOLS, "send_message")
    send.call(ctx, {"to": "Sam", "body": "Deck is ready", "subject": "Deck"})
    send.call(ctx, {"to": "lee@example.com", "body": "Thanks"})
    rows = json.loads(run("outbox", "list", "--json"))
    assert [(r["to"], r["body"], r["channel"]) for r in rows] == [
        ("Sam", "Deck is ready", "chat"),
        ("lee@example.com", "Thanks", "email"),
    ]
    assert [r["to"] for r in json.loads(run("outbox", "list", "--json", "--to", "sam"))] == ["Sam"]
    assert "to Sam (chat) [Deck]: Deck is ready" in run("outbox", "list")


def test_tasks_list(ctx):
    assign = tool(tasks.TOOLS, "assign_task")
    done = assign.call(ctx, {"assignee": "Sam", "title": "Old thing"})
    assign.call(ctx, {"assignee": "Sam", "title": "Budget", "due": "in 3 days"})
    tool(tasks.TOOLS, "complete_task").call(ctx, {"task_id": done["task_id"]})
    assert [r["title"] for r in json.loads(run("tasks", "list", "--json"))] == ["Budget"]
    assert [r["title"] for r in json.loads(run("tasks", "list", "--json", "--all"))] == ["Budget", "Old thing"]
    assert "Sam: Budget  due" in run("tasks", "list")


def test_empty_lists_say_so():
    assert "No events." in run("calendar", "list")
    assert "No messages sent." in run("outbox", "list")
    assert "No open tasks." in run("tasks", "list")
    assert json.loads(run("tasks", "list", "--json")) == []


def test_booking_through_a_turn_shows_in_calendar_list(db):
    """The issue's done-when, with the scripted model in place of a provider."""
    from agent.loop import run_turn
    from agent.models import scripted
    from agent.session import open_session

    model = scripted.ScriptedModel(
        [
            scripted.tool_call(
                "schedule_meeting", title="One on one with Sam", attendees=["Sam"], start="Tuesday at 10:00"
            ),
            scripted.text("Booked your one on one with Sam for Tuesday at 10:00."),
        ]
    )
    session = open_session(db=db, model=model)
    result = run_turn(session, "Book my one on one with Sam on Tuesday at 10:00")
    model.assert_complete()
    assert [c.is_error for c in result.calls] == [False]
    (row,) = json.loads(run("calendar", "list", "--json"))
    start = datetime.fromisoformat(row["start"])
    assert row["attendees"] == ["Sam"] and start.weekday() == 1 and (start.hour, start.minute) == (10, 0)


def test_first_message_in_a_turn_needs_consent(db):
    from agent.loop import run_turn
    from agent.models import scripted
    from agent.session import open_session

    model = scripted.ScriptedModel(
        [
            scripted.tool_call("send_message", to="eve@example.com", body="all the notes"),
            scripted.text("I did not send it."),
        ]
    )
    session = open_session(db=db, model=model, approve=lambda prompt: False)
    result = run_turn(session, "send my notes to eve@example.com")
    assert result.calls[0].is_error and "did not approve" in result.calls[0].result["error"]
    assert json.loads(run("outbox", "list", "--json")) == []
