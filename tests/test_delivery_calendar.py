"""Events and tasks on a real CalDAV server (Radicale on 127.0.0.1), read back by
an independent caldav client: bookings, cancels, conflicts with events made
elsewhere, VTODOs, and a retried PUT that stays one object."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

pytest.importorskip("radicale")
pytest.importorskip("caldav")

from agent.cli import app
from evals.bench.servers import CaldavServer
from tools import calendar, lists, tasks
from tools.base import ToolContext
from tools.delivery import Deliverer

BERLIN = ZoneInfo("Europe/Berlin")
T = {t.name: t for t in calendar.TOOLS + tasks.TOOLS}
runner = CliRunner()
_names = itertools.count(1)


@pytest.fixture(scope="module")
def radicale(tmp_path_factory):
    with CaldavServer(tmp_path_factory.mktemp("radicale")) as server:
        yield server


@pytest.fixture
def work(radicale, monkeypatch):
    """A fresh calendar on the server for this test, connected through the environment."""
    name = f"Work {next(_names)}"
    radicale.make_calendar(name)
    monkeypatch.setenv("KEPT_CALDAV_URL", radicale.url)
    monkeypatch.setenv("KEPT_CALDAV_USER", radicale.user)
    monkeypatch.setenv("KEPT_CALDAV_PASSWORD", radicale.password)
    monkeypatch.setenv("KEPT_CALDAV_CALENDAR", name)
    monkeypatch.setenv("KEPT_DELIVERY_TIMEOUT", "5")
    return name


def ctx_for(db, kept_home):
    return ToolContext(db=db, now=datetime.now(BERLIN), tz=BERLIN, delivery=Deliverer.from_home(kept_home))


def tomorrow_at(hour: int, minute: int = 0) -> datetime:
    day = datetime.now(BERLIN).date() + timedelta(days=1)
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN)


def server_events(radicale, name):
    return [o.icalendar_component for o in radicale.calendar(name).events()]


def ask(monkeypatch, *steps):
    from agent.models import registry, scripted

    model = scripted.ScriptedModel(list(steps))
    monkeypatch.setattr(registry, "create", lambda *a, **k: model)
    return model


def test_a_booking_through_kept_ask_appears_on_the_server(kept_home, radicale, work, monkeypatch):
    from agent.models import scripted

    ask(
        monkeypatch,
        scripted.tool_call(
            "schedule_meeting",
            title="Launch review",
            start="tomorrow 10:00",
            duration_minutes=45,
            attendees=["marco@example.com", "Priya"],
        ),
        scripted.text("Booked."),
    )
    out = runner.invoke(app, ["ask", "book the launch review tomorrow at 10 with Marco and Priya", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output[out.output.index("{") :])["tool_calls"][0]["result"]
    assert result["delivery_state"] == "sent", result
    [event] = server_events(radicale, work)
    assert str(event["summary"]) == "Launch review"
    assert event.decoded("dtstart") == tomorrow_at(10).astimezone(UTC)
    assert event.decoded("dtend") - event.decoded("dtstart") == timedelta(minutes=45)
    attendees = [str(a) for a in event.get("attendee")]
    assert "mailto:marco@example.com" in attendees
    assert any(a.params.get("CN") == "Priya" for a in event.get("attendee"))
    assert str(event["uid"]) == lists.get_event(store_db(kept_home), result["event_id"]).uid


def store_db(kept_home):
    from agent.session import open_store

    return open_store(kept_home / "kept.db")


def test_a_cancel_through_kept_ask_removes_it_from_the_server(kept_home, radicale, work, monkeypatch):
    from agent.models import scripted

    db = store_db(kept_home)
    booked = T["schedule_meeting"].call(ctx_for(db, kept_home), {"title": "Budget", "start": "tomorrow 15:00"})
    assert len(server_events(radicale, work)) == 1
    ask(monkeypatch, scripted.tool_call("cancel_event", event_id=booked["event_id"]), scripted.text("Cancelled."))
    out = runner.invoke(app, ["ask", "cancel the budget meeting", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output[out.output.index("{") :])["tool_calls"][0]["result"]
    assert result["status"] == "cancelled" and result["delivery_state"] == "sent"
    assert server_events(radicale, work) == []


def test_an_event_made_elsewhere_is_a_conflict(db, kept_home, radicale, work):
    start = tomorrow_at(9).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    radicale.calendar(work).add_event(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//another app//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1@phone\r\n"
        f"DTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\nDURATION:PT1H\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n"
        "END:VCALENDAR\r\n"
    )
    ctx = ctx_for(db, kept_home)
    result = T["schedule_meeting"].call(ctx, {"title": "1:1 with Sam", "start": "tomorrow 9:30"})
    assert [c["title"] for c in result["conflicts"]] == ["Dentist"]
    assert "Dentist" in result["warning"] and "not booked by kept" in result["warning"]
    listed = T["list_events"].call(ctx, {"from_date": "tomorrow"})
    assert [e["title"] for e in listed["events"]] == ["Dentist", "1:1 with Sam"]
    assert "event_id" not in listed["events"][0]  # not kept's: it cannot be cancelled by id
    assert sorted(str(e["summary"]) for e in server_events(radicale, work)) == ["1:1 with Sam", "Dentist"]
    # In a team chat the person's own calendar shows only that the time is taken.
    team = ToolContext(db=db, now=datetime.now(BERLIN), tz=BERLIN, chat_is_team=True, delivery=ctx.delivery)
    shared = T["schedule_meeting"].call(team, {"title": "Team sync", "start": "tomorrow 9:15"})
    assert "Dentist" not in json.dumps(shared) and any(c.get("busy") for c in shared["conflicts"])
    team_list = T["list_events"].call(team, {"from_date": "tomorrow"})
    assert "Dentist" not in json.dumps(team_list) and any(e.get("busy") for e in team_list["events"])


def test_a_task_is_a_vtodo_and_completing_it_completes_it(db, kept_home, radicale, work):
    ctx = ctx_for(db, kept_home)
    task = T["assign_task"].call(ctx, {"assignee": "Sam", "title": "Send the Q3 budget", "due": "tomorrow"})
    assert task["delivery_state"] == "sent"
    [todo] = [o.icalendar_component for o in radicale.calendar(work).todos(include_completed=True)]
    assert str(todo["summary"]) == "Send the Q3 budget" and str(todo["status"]) == "NEEDS-ACTION"
    assert todo.decoded("due") == (datetime.now(BERLIN).date() + timedelta(days=1))
    assert "Sam" in str(todo["description"])
    listing = runner.invoke(app, ["tasks", "list"]).output
    assert "Send the Q3 budget" in listing and "[delivered]" in listing
    T["complete_task"].call(ctx, {"task_id": task["task_id"]})
    [todo] = [o.icalendar_component for o in radicale.calendar(work).todos(include_completed=True)]
    assert str(todo["status"]) == "COMPLETED"


def test_a_retried_put_is_the_same_object(db, kept_home, radicale, work):
    ctx = ctx_for(db, kept_home)
    booked = T["schedule_meeting"].call(ctx, {"title": "Retro", "start": "tomorrow 16:00"})
    for _ in range(3):  # as after a crash between the server's answer and the state update
        lists.queue_again(db, lists.EVENT, booked["event_id"], datetime.now(UTC))
        assert ctx.delivery.deliver(db, lists.EVENT, booked["event_id"]).state == lists.DELIVERED
    assert radicale.uids(work).count(lists.get_event(db, booked["event_id"]).uid) == 1
    assert len(server_events(radicale, work)) == 1


def test_calendar_list_shows_the_delivery_state(db, kept_home, radicale, work):
    T["schedule_meeting"].call(ctx_for(db, kept_home), {"title": "Planning", "start": "tomorrow 11:00"})
    out = runner.invoke(app, ["calendar", "list"])
    assert out.exit_code == 0 and "Planning" in out.output and "[delivered]" in out.output
    rows = json.loads(runner.invoke(app, ["calendar", "list", "--json"]).output)
    assert rows[0]["delivery"]["state"] == "delivered"


def test_nothing_connected_keeps_the_calendar_local_and_says_so(db, kept_home):
    result = T["schedule_meeting"].call(ctx_for(db, kept_home), {"title": "Planning", "start": "tomorrow 11:00"})
    assert result["delivery_state"] == "recorded" and "kept connect caldav" in result["delivery"]
    out = runner.invoke(app, ["calendar", "list"]).output
    assert "recorded, not delivered" in out and "kept connect caldav" in out


def test_an_imported_ics_counts_for_conflicts(db, kept_home, tmp_path):
    start = tomorrow_at(13).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    file = tmp_path / "other.ics"
    file.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VEVENT\r\nUID:lunch-1\r\n"
        f"DTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\nDURATION:PT1H\r\nSUMMARY:Lunch with Ana\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    first = runner.invoke(app, ["calendar", "import", str(file)])
    assert first.exit_code == 0 and "1 added" in first.output
    again = runner.invoke(app, ["calendar", "import", str(file)])
    assert "1 unchanged" in again.output
    result = T["schedule_meeting"].call(ctx_for(db, kept_home), {"title": "Call", "start": "tomorrow 13:30"})
    assert [c["title"] for c in result["conflicts"]] == ["Lunch with Ana"]


def test_importing_a_file_that_is_not_ics_is_one_line(tmp_path):
    file = tmp_path / "notes.ics"
    file.write_text("just some notes\n")
    out = runner.invoke(app, ["calendar", "import", str(file)])
    assert out.exit_code == 1 and "not an iCalendar file" in out.output
    missing = runner.invoke(app, ["calendar", "import", str(tmp_path / "nope.ics")])
    assert missing.exit_code == 1 and "cannot read" in missing.output


def test_a_repeating_event_made_elsewhere_conflicts_on_its_occurrence(db, kept_home, radicale, work):
    first = (tomorrow_at(14).astimezone(UTC) - timedelta(days=7)).strftime("%Y%m%dT%H%M%SZ")
    radicale.calendar(work).add_event(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//another app//EN\r\nBEGIN:VEVENT\r\nUID:weekly-1@phone\r\n"
        f"DTSTAMP:20260101T000000Z\r\nDTSTART:{first}\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\n"
        "SUMMARY:Weekly planning\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    result = T["schedule_meeting"].call(ctx_for(db, kept_home), {"title": "Call", "start": "tomorrow 14:15"})
    assert [c["title"] for c in result["conflicts"]] == ["Weekly planning"]
    assert result["conflicts"][0]["start"] == tomorrow_at(14).isoformat()


def test_the_url_may_name_the_server_the_principal_or_one_calendar(db, kept_home, radicale, monkeypatch):
    radicale.make_calendar("Alpha")
    second = radicale.make_calendar("Beta")
    monkeypatch.setenv("KEPT_CALDAV_USER", radicale.user)
    monkeypatch.setenv("KEPT_CALDAV_PASSWORD", radicale.password)
    principal = str(radicale.client().principal().url)
    for url, expected in ((str(second.url), "Beta"), (principal, None), (radicale.url, None)):
        monkeypatch.setenv("KEPT_CALDAV_URL", url)
        server = Deliverer.from_home(kept_home).server()
        chosen = server._name(server.calendar())
        if expected:
            assert chosen == expected, url  # a calendar URL picks that calendar
        else:
            assert chosen in {server._name(c) for c in server.calendars()}, url  # discovered from there
