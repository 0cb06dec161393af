"""The .ics export: RFC 5545 structure, escaping, folding, CRLF, 0600, and a round trip."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from tools import ics, lists

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=BERLIN)


def unescape(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append("\n" if nxt in "nN" else nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse(data: bytes) -> list[dict]:
    """A tiny RFC 5545 reader: unfold, split name;params:value, collect VEVENTs."""
    text = data.decode("utf-8")
    assert "\n" not in text.replace("\r\n", ""), "every line must end in CRLF"
    physical = text.split("\r\n")
    assert physical[-1] == ""
    for line in physical:
        assert len(line.encode("utf-8")) <= 75, f"line longer than 75 octets: {line!r}"
    unfolded = text.replace("\r\n ", "").replace("\r\n\t", "")
    lines = [line for line in unfolded.split("\r\n") if line]
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR"
    assert "VERSION:2.0" in lines and any(line.startswith("PRODID:") for line in lines)
    events, current = [], None
    for line in lines:
        head, _, value = line.partition(":")
        # A quoted parameter value may contain ':'; re-split outside quotes.
        if head.count('"') % 2:
            rest, _, value = value.partition(":")
            head = head + ":" + rest
        name, *params = head.split(";")
        if line == "BEGIN:VEVENT":
            current = {"ATTENDEE": []}
        elif line == "END:VEVENT":
            events.append(current)
            current = None
        elif current is not None:
            if name == "ATTENDEE":
                current["ATTENDEE"].append((dict(p.split("=", 1) for p in params), value))
            else:
                current[name] = unescape(value)
    return events


def make_event(db, title, start, minutes=30, **kwargs):
    from datetime import timedelta

    return lists.add_event(db, title=title, start=start, end=start + timedelta(minutes=minutes), now=NOW, **kwargs)


def test_round_trip_of_fields_escaping_and_folding(db, tmp_path):
    start = datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN)
    long_title = "Budget; review, part 2 \\ final — 季度预算评审会议，请准时参加。" * 3
    first = make_event(
        db,
        long_title,
        start,
        45,
        attendees=["Sam", "sam@example.com", 'Lee "LJ", Jr.'],
        location="Room 4; east wing",
        notes="Agenda:\n1. numbers\n2. hiring",
    )
    second = make_event(db, "Retro", datetime(2026, 12, 3, 16, 0, tzinfo=BERLIN))
    path = ics.write_calendar(tmp_path / "kept.ics", [first, second], NOW)

    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    events = parse(path.read_bytes())
    assert len(events) == 2
    a = events[0]
    assert a["UID"] == first.uid
    assert a["SUMMARY"] == long_title
    assert a["DTSTART"] == "20261201T090000Z" and a["DTEND"] == "20261201T094500Z"
    assert a["DTSTAMP"] == "20261130T083000Z"
    assert a["LOCATION"] == "Room 4; east wing"
    assert a["DESCRIPTION"] == "Agenda:\n1. numbers\n2. hiring"
    assert a["STATUS"] == "CONFIRMED"
    names = [params["CN"].strip('"') for params, _ in a["ATTENDEE"]]
    assert names == ["Sam", "sam@example.com", "Lee LJ, Jr."]
    assert a["ATTENDEE"][1][1] == "mailto:sam@example.com"
    assert events[1]["SUMMARY"] == "Retro"


def test_dtstart_is_utc_across_dst(db):
    summer = make_event(db, "Summer", datetime(2026, 7, 1, 10, 0, tzinfo=BERLIN))
    winter = make_event(db, "Winter", datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN))
    events = parse(ics.calendar_text([summer, winter], NOW).encode())
    assert [e["DTSTART"] for e in events] == ["20260701T080000Z", "20261201T090000Z"]


def test_cancelled_event_is_marked_for_importers(db):
    event = make_event(db, "Old", datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN))
    cancelled = lists.cancel_event(db, event.id, NOW)
    (parsed,) = parse(ics.calendar_text([cancelled], NOW).encode())
    assert parsed["STATUS"] == "CANCELLED" and parsed["SEQUENCE"] == "1" and parsed["UID"] == event.uid


def test_fold_never_splits_a_character():
    line = "SUMMARY:" + "预" * 100
    folded = ics.fold(line)
    pieces = folded.split("\r\n")
    assert all(len(p.encode("utf-8")) <= 75 for p in pieces)
    assert all(p.startswith(" ") for p in pieces[1:])
    assert folded.replace("\r\n ", "") == line


def test_existing_file_is_replaced_and_made_private(db, tmp_path):
    path = tmp_path / "cal.ics"
    path.write_text("old")
    os.chmod(path, 0o644)
    ics.write_calendar(path, [], datetime.now(UTC))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert parse(path.read_bytes()) == []
