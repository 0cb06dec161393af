"""The calendar as an RFC 5545 iCalendar file that calendar apps import.

Times are written in UTC ('...Z'), which every importer reads without a
VTIMEZONE block. Each event keeps the UID it got when booked, and a
cancelled event is exported with STATUS:CANCELLED and a higher SEQUENCE, so
importing a newer export updates the events instead of duplicating them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from tools.lists import CANCELLED, Event

PRODID = "-//kept//kept calendar//EN"
LINE_OCTETS = 75


def escape_text(value: str) -> str:
    """TEXT value escaping (RFC 5545 3.3.11): backslash, semicolon, comma, newline."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\r", "\\n")
        .replace("\n", "\\n")
    )


def _param(value: str) -> str:
    """A parameter value; quoted when it holds ':', ';' or ','. DQUOTE cannot appear at all."""
    value = "".join(ch for ch in value if ch >= " " and ch != '"')
    return f'"{value}"' if any(ch in value for ch in ":;,") else value


def fold(line: str) -> str:
    """Split a content line into 75-octet pieces joined by CRLF + space, never inside a UTF-8 character."""
    out, current, size = [], "", 0
    limit = LINE_OCTETS
    for ch in line:
        width = len(ch.encode("utf-8"))
        if size + width > limit:
            out.append(current)
            current, size = " ", 1  # a continuation line starts with one space, counted in its 75
            limit = LINE_OCTETS
        current += ch
        size += width
    out.append(current)
    return "\r\n".join(out)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _attendee(name: str) -> str:
    if "@" in name and " " not in name.strip():
        address = name.strip()
        return f"ATTENDEE;CN={_param(address)};ROLE=REQ-PARTICIPANT:mailto:{address}"
    # No address known: the name travels in CN; 'invalid:nomail' is the value Apple and
    # Google use for an attendee without one.
    return f"ATTENDEE;CN={_param(name)};ROLE=REQ-PARTICIPANT:invalid:nomail"


def event_lines(event: Event, stamp: datetime) -> list[str]:
    cancelled = event.status == CANCELLED
    lines = [
        "BEGIN:VEVENT",
        f"UID:{event.uid}",
        f"DTSTAMP:{_stamp(stamp)}",
        f"DTSTART:{_stamp(event.start)}",
        f"DTEND:{_stamp(event.end)}",
        f"SUMMARY:{escape_text(event.title)}",
        f"STATUS:{'CANCELLED' if cancelled else 'CONFIRMED'}",
        f"SEQUENCE:{1 if cancelled else 0}",
    ]
    if event.location:
        lines.append(f"LOCATION:{escape_text(event.location)}")
    if event.notes:
        lines.append(f"DESCRIPTION:{escape_text(event.notes)}")
    lines.extend(_attendee(a) for a in event.attendees)
    lines.append("END:VEVENT")
    return lines


def calendar_text(events: Iterable[Event], now: datetime | None = None) -> str:
    """The whole VCALENDAR, CRLF line endings, lines folded at 75 octets."""
    stamp = now or datetime.now(UTC)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
    for event in events:
        lines.extend(event_lines(event, stamp))
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)


def write_calendar(path: str | os.PathLike, events: Iterable[Event], now: datetime | None = None) -> Path:
    """Write the file owner-only (0600), atomically: a reader never sees half a calendar."""
    from memory.files import write_private

    return write_private(path, calendar_text(events, now).encode("utf-8"))


def todo_lines(task, stamp: datetime) -> list[str]:
    """A VTODO for a kept task (``tools.lists.Task``); the assignee travels in the description
    (and as ATTENDEE when it is an address), since a VTODO has no owner field of its own."""
    done = task.status == "done"
    lines = ["BEGIN:VTODO", f"UID:{task.uid}", f"DTSTAMP:{_stamp(stamp)}", f"SUMMARY:{escape_text(task.title)}"]
    if task.due and "T" not in task.due:
        lines.append(f"DUE;VALUE=DATE:{task.due.replace('-', '')}")
    elif task.due_utc is not None:
        lines.append(f"DUE:{_stamp(task.due_utc)}")
    lines.append(f"STATUS:{'COMPLETED' if done else 'NEEDS-ACTION'}")
    if done and task.done_at:
        lines.append(f"COMPLETED:{task.done_at.replace('-', '').replace(':', '')}")
    description = f"Assigned to {task.assignee}" + (f"\n{task.notes}" if task.notes else "")
    lines.append(f"DESCRIPTION:{escape_text(description)}")
    if "@" in task.assignee:
        lines.append(_attendee(task.assignee))
    lines.append("END:VTODO")
    return lines


def wrap(components: list[str], stamp: datetime | None = None) -> str:
    """One VCALENDAR around already-built component lines (a CalDAV PUT carries one object)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", "CALSCALE:GREGORIAN", *components, "END:VCALENDAR"]
    return "".join(fold(line) + "\r\n" for line in lines)


# --- reading (icalendar) ------------------------------------------------------

IMPORT_DAYS_BACK, IMPORT_DAYS_AHEAD = 31, 366  # how far repeating events are expanded on import


def _moment(value, tz: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=tz) if value.tzinfo is None else value  # floating time: the person's zone
    if isinstance(value, date):
        return datetime.combine(value, time(0), tz)
    raise ValueError(value)


def event_from_component(component, tz: ZoneInfo, *, origin: str) -> Event | None:
    """A VEVENT from the server (or an .ics file) as an ``Event``; None when it has no usable start."""
    if component.name != "VEVENT" or component.get("dtstart") is None:
        return None
    status = str(component.get("status", "CONFIRMED")).upper()
    start_value = component.decoded("dtstart")
    start = _moment(start_value, tz)
    if component.get("dtend") is not None:
        end = _moment(component.decoded("dtend"), tz)
    elif component.get("duration") is not None:
        end = start + component.decoded("duration")
    else:  # RFC 5545 3.6.1: a date lasts the day, a date-time is a moment
        end = start + (timedelta(days=1) if not isinstance(start_value, datetime) else timedelta(0))
    if end <= start:
        end = start + timedelta(minutes=1)
    attendees = component.get("attendee", [])
    if not isinstance(attendees, list):
        attendees = [attendees]
    names = []
    for person in attendees:
        cn = person.params.get("CN") if hasattr(person, "params") else None
        address = str(person)
        names.append(str(cn) if cn and not address.lower().startswith("mailto:") else address.split(":", 1)[-1])
    return Event(
        id=0,
        uid=str(component.get("uid", "")),
        title=str(component.get("summary", "(no title)")),
        start=start.astimezone(UTC),
        end=end.astimezone(UTC),
        attendees=names,
        location=str(component["location"]) if component.get("location") else None,
        notes=str(component["description"]) if component.get("description") else None,
        status=CANCELLED if status == "CANCELLED" else "scheduled",
        origin=origin,
    )


def read_events(data: bytes, tz: ZoneInfo, now: datetime) -> list[Event]:
    """Every event in an .ics file, repeats expanded from a month back to a year ahead (each
    occurrence its own UID: the series UID and the start). Raises ValueError for a file that is not iCalendar."""
    import icalendar
    import recurring_ical_events

    try:
        calendar = icalendar.Calendar.from_ical(data)
    except Exception as exc:
        raise ValueError(f"not an iCalendar file ({str(exc)[:120]})") from None
    out = []
    plain = [c for c in calendar.walk("VEVENT") if c.get("rrule") is None and c.get("recurrence-id") is None]
    for component in plain:
        event = event_from_component(component, tz, origin="import")
        if event is not None:
            out.append(event)
    repeating = {str(c.get("uid")) for c in calendar.walk("VEVENT") if c.get("rrule") is not None}
    if repeating:
        window = recurring_ical_events.of(calendar, skip_bad_series=True).between(
            now - timedelta(days=IMPORT_DAYS_BACK), now + timedelta(days=IMPORT_DAYS_AHEAD)
        )
        for component in window:
            if str(component.get("uid")) not in repeating:
                continue
            event = event_from_component(component, tz, origin="import")
            if event is not None:
                event.uid = f"{event.uid}#{event.start.strftime('%Y%m%dT%H%M%SZ')}"
                out.append(event)
    if not out and not list(calendar.walk("VEVENT")) and calendar.name != "VCALENDAR":
        raise ValueError("not an iCalendar file (no VCALENDAR)")
    return sorted(out, key=lambda e: e.start)
