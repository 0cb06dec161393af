"""The calendar as an RFC 5545 iCalendar file that calendar apps import.

Times are written in UTC ('...Z'), which every importer reads without a
VTIMEZONE block. Each event keeps the UID it got when booked, and a
cancelled event is exported with STATUS:CANCELLED and a higher SEQUENCE, so
importing a newer export updates the events instead of duplicating them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from tools.store import CANCELLED, Event

PRODID = "-//kept//kept calendar//EN"
LINE_OCTETS = 75


def escape_text(value: str) -> str:
    """TEXT value escaping (RFC 5545 3.3.11): backslash, semicolon, comma, newline."""
    return (
        value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
        .replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")
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
    return moment.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


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
    stamp = now or datetime.now(timezone.utc)
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
    """A VTODO for a kept task (``tools.store.Task``); the assignee travels in the description
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
