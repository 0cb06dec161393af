"""What the tools did: calendar events, the outbox, tasks. This module owns
those three tables; tools and commands read and write them only through the
functions here.

Moments are stored in UTC as fixed-width 'YYYY-MM-DDTHH:MM:SSZ' text, so
string order is time order and overlap tests are plain comparisons; they are
shown in the person's zone when read out (``as_dict(tz)``).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import sqlite_utils

from memory.db import transaction
from memory.scope import EVERYTHING, Scope

SCHEDULED, CANCELLED = "scheduled", "cancelled"
OPEN, DONE = "open", "done"

MIGRATIONS = [
    (
        "m001_calendar_outbox_tasks",
        [
            """CREATE TABLE calendar_events (
                id INTEGER PRIMARY KEY,
                uid TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                start_utc TEXT NOT NULL,
                end_utc TEXT NOT NULL,
                attendees TEXT NOT NULL DEFAULT '[]',
                location TEXT,
                notes TEXT,
                status TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled')),
                chat TEXT,
                created_at TEXT NOT NULL,
                cancelled_at TEXT,
                CHECK (end_utc > start_utc)
            )""",
            "CREATE INDEX calendar_events_start ON calendar_events (status, start_utc)",
            """CREATE TABLE outbox (
                id INTEGER PRIMARY KEY,
                recipient TEXT NOT NULL,
                recipient_key TEXT NOT NULL,
                channel TEXT NOT NULL,
                subject TEXT,
                body TEXT NOT NULL,
                chat TEXT,
                sent_at TEXT NOT NULL
            )""",
            "CREATE INDEX outbox_recipient ON outbox (recipient_key)",
            "CREATE INDEX outbox_sent ON outbox (sent_at)",
            """CREATE TABLE tasks (
                id INTEGER PRIMARY KEY,
                assignee TEXT NOT NULL,
                assignee_key TEXT NOT NULL,
                title TEXT NOT NULL,
                due TEXT,
                due_utc TEXT,
                status TEXT NOT NULL CHECK (status IN ('open', 'done')),
                notes TEXT,
                chat TEXT,
                created_at TEXT NOT NULL,
                done_at TEXT
            )""",
            "CREATE INDEX tasks_status ON tasks (status, due_utc)",
            "CREATE INDEX tasks_assignee ON tasks (assignee_key)",
        ],
    ),
]


def utc(moment: datetime) -> str:
    """Fixed-width UTC text for an aware datetime."""
    if moment.tzinfo is None:
        raise ValueError("a stored moment must be timezone-aware")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def _local(text: str | None, tz: ZoneInfo) -> str | None:
    return from_utc(text).astimezone(tz).isoformat() if text else None


def recipient_key(name: str) -> str:
    """A person's name or address compared case- and spacing-blind ('Sam  Lee' == 'sam lee')."""
    return " ".join(name.split()).casefold()


# --- calendar ---------------------------------------------------------------


@dataclass
class Event:
    id: int
    uid: str
    title: str
    start: datetime  # aware, UTC
    end: datetime
    attendees: list[str] = field(default_factory=list)
    location: str | None = None
    notes: str | None = None
    status: str = SCHEDULED
    chat: str | None = None
    created_at: str = ""
    cancelled_at: str | None = None

    def as_dict(self, tz: ZoneInfo) -> dict:
        start, end = self.start.astimezone(tz), self.end.astimezone(tz)
        return {
            "event_id": self.id,
            "title": self.title,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "weekday": start.strftime("%A"),
            "duration_minutes": int((self.end - self.start).total_seconds() // 60),
            "attendees": list(self.attendees),
            "location": self.location,
            "notes": self.notes,
            "status": self.status,
            "created_at": _local(self.created_at, tz),
            "cancelled_at": _local(self.cancelled_at, tz),
        }


def _event(row) -> Event:
    return Event(
        row["id"], row["uid"], row["title"], from_utc(row["start_utc"]), from_utc(row["end_utc"]),
        json.loads(row["attendees"] or "[]"), row["location"], row["notes"], row["status"], row["chat"],
        row["created_at"], row["cancelled_at"],
    )


def add_event(
    db: sqlite_utils.Database,
    *,
    title: str,
    start: datetime,
    end: datetime,
    now: datetime,
    attendees: list[str] | None = None,
    location: str | None = None,
    notes: str | None = None,
    chat: str | None = None,
) -> Event:
    with transaction(db) as conn:
        cursor = conn.execute(
            "INSERT INTO calendar_events (uid, title, start_utc, end_utc, attendees, location, notes,"
            " status, chat, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                f"{uuid.uuid4()}@kept", title, utc(start), utc(end),
                json.dumps(attendees or [], ensure_ascii=False), location, notes, SCHEDULED, chat, utc(now),
            ),
        )
        event_id = cursor.lastrowid
    return get_event(db, event_id)


def get_event(db: sqlite_utils.Database, event_id: int, scope: Scope = EVERYTHING) -> Event | None:
    """The event, or None when there is none or ``scope`` may not see it."""
    cond, args = scope.where()
    row = db.conn.execute("SELECT * FROM calendar_events WHERE id = ?" + cond, (event_id, *args)).fetchone()
    return _event(row) if row else None


def events(
    db: sqlite_utils.Database,
    start: datetime | None = None,
    end: datetime | None = None,
    *,
    include_cancelled: bool = False,
    scope: Scope = EVERYTHING,
) -> list[Event]:
    """Events overlapping [start, end) (either bound optional) that ``scope`` sees, earliest first."""
    cond, args = scope.where()
    sql = "SELECT * FROM calendar_events WHERE 1 = 1" + cond
    if not include_cancelled:
        sql += " AND status = ?"
        args.append(SCHEDULED)
    if start is not None:
        sql += " AND end_utc > ?"
        args.append(utc(start))
    if end is not None:
        sql += " AND start_utc < ?"
        args.append(utc(end))
    return [_event(r) for r in db.conn.execute(sql + " ORDER BY start_utc, id", args)]


def overlapping(db: sqlite_utils.Database, start: datetime, end: datetime, exclude_id: int | None = None) -> list[Event]:
    """Scheduled events sharing any time with [start, end); touching ends do not overlap."""
    return [e for e in events(db, start, end) if e.id != exclude_id]


def cancel_event(db: sqlite_utils.Database, event_id: int, now: datetime, scope: Scope = EVERYTHING) -> Event:
    """Mark an event cancelled. Raises LookupError (unknown id, or one ``scope`` may not see)
    or ValueError (already cancelled)."""
    cond, args = scope.where()
    with transaction(db) as conn:
        row = conn.execute("SELECT status FROM calendar_events WHERE id = ?" + cond, (event_id, *args)).fetchone()
        if row is None:
            raise LookupError(event_id)
        if row["status"] == CANCELLED:
            raise ValueError(event_id)
        conn.execute(
            "UPDATE calendar_events SET status = ?, cancelled_at = ? WHERE id = ?", (CANCELLED, utc(now), event_id)
        )
    return get_event(db, event_id)


# --- outbox -----------------------------------------------------------------


@dataclass
class OutboxMessage:
    id: int
    recipient: str
    channel: str
    subject: str | None
    body: str
    sent_at: datetime  # aware, UTC
    chat: str | None = None

    def as_dict(self, tz: ZoneInfo) -> dict:
        return {
            "message_id": self.id,
            "to": self.recipient,
            "channel": self.channel,
            "subject": self.subject,
            "body": self.body,
            "sent_at": self.sent_at.astimezone(tz).isoformat(),
            "chat": self.chat,
        }


def _outbox(row) -> OutboxMessage:
    return OutboxMessage(
        row["id"], row["recipient"], row["channel"], row["subject"], row["body"], from_utc(row["sent_at"]), row["chat"]
    )


def add_outbox(
    db: sqlite_utils.Database,
    *,
    recipient: str,
    body: str,
    now: datetime,
    channel: str = "chat",
    subject: str | None = None,
    chat: str | None = None,
) -> OutboxMessage:
    with transaction(db) as conn:
        cursor = conn.execute(
            "INSERT INTO outbox (recipient, recipient_key, channel, subject, body, chat, sent_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (recipient, recipient_key(recipient), channel, subject, body, chat, utc(now)),
        )
        message_id = cursor.lastrowid
    row = db.conn.execute("SELECT * FROM outbox WHERE id = ?", (message_id,)).fetchone()
    return _outbox(row)


def outbox(
    db: sqlite_utils.Database,
    *,
    recipient: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
    scope: Scope = EVERYTHING,
) -> list[OutboxMessage]:
    """Sent messages that ``scope`` sees, oldest first; ``limit`` keeps the newest N."""
    cond, args = scope.where()
    sql = "SELECT * FROM outbox WHERE 1 = 1" + cond
    if recipient is not None:
        sql += " AND recipient_key = ?"
        args.append(recipient_key(recipient))
    if since is not None:
        sql += " AND sent_at >= ?"
        args.append(utc(since))
    sql += " ORDER BY id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [_outbox(r) for r in db.conn.execute(sql, args)][::-1]


def has_sent_to(db: sqlite_utils.Database, recipient: str) -> bool:
    row = db.conn.execute("SELECT 1 FROM outbox WHERE recipient_key = ? LIMIT 1", (recipient_key(recipient),)).fetchone()
    return row is not None


# --- tasks ------------------------------------------------------------------


@dataclass
class Task:
    id: int
    assignee: str
    title: str
    due: str | None  # 'YYYY-MM-DD' (a day) or ISO with offset (a moment), as resolved
    due_utc: datetime | None
    status: str
    notes: str | None = None
    chat: str | None = None
    created_at: str = ""
    done_at: str | None = None

    def as_dict(self, tz: ZoneInfo) -> dict:
        due = self.due
        if due and "T" in due and self.due_utc is not None:
            due = self.due_utc.astimezone(tz).isoformat()
        return {
            "task_id": self.id,
            "assignee": self.assignee,
            "title": self.title,
            "due": due,
            "due_weekday": _due_weekday(due),
            "status": self.status,
            "notes": self.notes,
            "created_at": _local(self.created_at, tz),
            "done_at": _local(self.done_at, tz),
        }


def _due_weekday(due: str | None) -> str | None:
    if not due:
        return None
    return datetime.fromisoformat(due).strftime("%A") if "T" in due else datetime.fromisoformat(due + "T00:00").strftime("%A")


def _task(row) -> Task:
    return Task(
        row["id"], row["assignee"], row["title"], row["due"], from_utc(row["due_utc"]) if row["due_utc"] else None,
        row["status"], row["notes"], row["chat"], row["created_at"], row["done_at"],
    )


def add_task(
    db: sqlite_utils.Database,
    *,
    assignee: str,
    title: str,
    now: datetime,
    due: str | None = None,
    due_moment: datetime | None = None,
    notes: str | None = None,
    chat: str | None = None,
) -> Task:
    """``due`` is what is shown (a day or an ISO moment); ``due_moment`` orders and compares it."""
    with transaction(db) as conn:
        cursor = conn.execute(
            "INSERT INTO tasks (assignee, assignee_key, title, due, due_utc, status, notes, chat, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (assignee, recipient_key(assignee), title, due, utc(due_moment) if due_moment else None, OPEN, notes, chat, utc(now)),
        )
        task_id = cursor.lastrowid
    return get_task(db, task_id)


def get_task(db: sqlite_utils.Database, task_id: int, scope: Scope = EVERYTHING) -> Task | None:
    """The task, or None when there is none or ``scope`` may not see it."""
    cond, args = scope.where()
    row = db.conn.execute("SELECT * FROM tasks WHERE id = ?" + cond, (task_id, *args)).fetchone()
    return _task(row) if row else None


def tasks(db: sqlite_utils.Database, *, assignee: str | None = None, status: str | None = None,
          scope: Scope = EVERYTHING) -> list[Task]:
    """Tasks that ``scope`` sees, soonest due first (undated last), then oldest first."""
    cond, args = scope.where()
    sql = "SELECT * FROM tasks WHERE 1 = 1" + cond
    if assignee is not None:
        sql += " AND assignee_key = ?"
        args.append(recipient_key(assignee))
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    sql += " ORDER BY due_utc IS NULL, due_utc, id"
    return [_task(r) for r in db.conn.execute(sql, args)]


def complete_task(db: sqlite_utils.Database, task_id: int, now: datetime, scope: Scope = EVERYTHING) -> Task:
    """Mark a task done. Raises LookupError (unknown id, or one ``scope`` may not see)
    or ValueError (already done)."""
    cond, args = scope.where()
    with transaction(db) as conn:
        row = conn.execute("SELECT status FROM tasks WHERE id = ?" + cond, (task_id, *args)).fetchone()
        if row is None:
            raise LookupError(task_id)
        if row["status"] == DONE:
            raise ValueError(task_id)
        conn.execute("UPDATE tasks SET status = ?, done_at = ? WHERE id = ?", (DONE, utc(now), task_id))
    return get_task(db, task_id)
