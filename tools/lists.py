"""The lists the tools keep: calendar events, the outbox, tasks (what the tools
did), and the delivery queue beside them. This module owns those four tables;
tools and commands read and write them only through the functions here.

Moments are stored in UTC as fixed-width 'YYYY-MM-DDTHH:MM:SSZ' text, so
string order is time order and overlap tests are plain comparisons; they are
shown in the person's zone when read out (``as_dict(tz)``).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar
from zoneinfo import ZoneInfo

import sqlite_utils

from memory.db import insert_row, transaction
from memory.scope import EVERYTHING, Scope

SCHEDULED, CANCELLED = "scheduled", "cancelled"
OPEN, DONE = "open", "done"
# Delivery states (see the deliveries table): recorded here only; waiting for (another) attempt;
# accepted by the server; given up on until the person retries.
LOCAL, PENDING, DELIVERED, FAILED = "local", "pending", "delivered", "failed"
MESSAGE, EVENT, TASK = "message", "event", "task"

# Stores record these migrations under the module's first name; renaming it must not re-run them.
MIGRATION_SET = "tools.store"
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
    (
        # Delivery to the person's own accounts (tools/delivery/): a queue beside the
        # record. The Message-ID and the task UID are made once, here, so a retried
        # send or PUT carries the same identity as the first attempt.
        "m002_delivery_queue",
        [
            "ALTER TABLE outbox ADD COLUMN message_uid TEXT",
            "UPDATE outbox SET message_uid = '<' || lower(hex(randomblob(16))) || '@kept>'",
            "CREATE UNIQUE INDEX outbox_message_uid ON outbox (message_uid)",
            "ALTER TABLE tasks ADD COLUMN uid TEXT",
            "UPDATE tasks SET uid = lower(hex(randomblob(16))) || '@kept'",
            "CREATE UNIQUE INDEX tasks_uid ON tasks (uid)",
            # 'kept' (booked here) or 'import' (read from an .ics file; never pushed anywhere).
            "ALTER TABLE calendar_events ADD COLUMN origin TEXT NOT NULL DEFAULT 'kept'",
            """CREATE TABLE deliveries (
                kind TEXT NOT NULL CHECK (kind IN ('message', 'event', 'task')),
                item_id INTEGER NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('local', 'pending', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                next_retry TEXT,
                reply TEXT,
                claimed_by INTEGER,
                claimed_until TEXT,
                updated_at TEXT NOT NULL,
                delivered_at TEXT,
                PRIMARY KEY (kind, item_id)
            )""",
            "CREATE INDEX deliveries_state ON deliveries (state, next_retry)",
        ],
    ),
]


def utc(moment: datetime) -> str:
    """Fixed-width UTC text for an aware datetime."""
    if moment.tzinfo is None:
        raise ValueError("a stored moment must be timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def _local(text: str | None, tz: ZoneInfo) -> str | None:
    return from_utc(text).astimezone(tz).isoformat() if text else None


def recipient_key(name: str) -> str:
    """A person's name or address compared case- and spacing-blind ('Sam  Lee' == 'sam lee')."""
    return " ".join(name.split()).casefold()


_T = TypeVar("_T")


def _kept(item: _T | None) -> _T:
    """An item just written or found: rows of these tables are never deleted, so it is there."""
    assert item is not None
    return item


def _row(conn, table: str, row_id: int, scope: Scope) -> sqlite3.Row | None:
    """The row of ``table`` with ``row_id``, or None when there is none or ``scope`` may not see it."""
    cond, args = scope.where()
    return conn.execute(f"SELECT * FROM {table} WHERE id = ?" + cond, (row_id, *args)).fetchone()


# Each kind of item's table, and for those that close, the column saying when.
_TABLE = {MESSAGE: "outbox", EVENT: "calendar_events", TASK: "tasks"}
_CLOSED_AT = {EVENT: "cancelled_at", TASK: "done_at"}


def _add(db: sqlite_utils.Database, kind: str, row: dict, delivery: str, now: datetime) -> int:
    """Write a new item and its first delivery row in one transaction; the item's id."""
    with transaction(db) as conn:
        item_id = insert_row(db, _TABLE[kind], row)
        set_delivery(conn, kind, item_id, delivery, now)
    return item_id


def _close(db: sqlite_utils.Database, kind: str, item_id: int, status: str, now: datetime, scope: Scope) -> None:
    """Give an event or a task its final ``status`` (cancelled, done), and queue the change for the
    server that has (or was getting) it. Raises LookupError (unknown id, or one ``scope`` may not
    see) or ValueError (already so)."""
    table, stamp = _TABLE[kind], _CLOSED_AT[kind]
    with transaction(db) as conn:
        row = _row(conn, table, item_id, scope)
        if row is None:
            raise LookupError(item_id)
        if row["status"] == status:
            raise ValueError(item_id)
        conn.execute(f"UPDATE {table} SET status = ?, {stamp} = ? WHERE id = ?", (status, utc(now), item_id))
        _requeue(conn, kind, item_id, now)


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
    origin: str = "kept"

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
        row["id"],
        row["uid"],
        row["title"],
        from_utc(row["start_utc"]),
        from_utc(row["end_utc"]),
        json.loads(row["attendees"] or "[]"),
        row["location"],
        row["notes"],
        row["status"],
        row["chat"],
        row["created_at"],
        row["cancelled_at"],
        row["origin"],
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
    delivery: str = LOCAL,
    uid: str | None = None,
    origin: str = "kept",
) -> Event:
    """Store an event; ``delivery`` PENDING queues it for the calendar server in the same transaction."""
    event_id = _add(
        db,
        EVENT,
        {
            "uid": uid or f"{uuid.uuid4()}@kept",
            "title": title,
            "start_utc": utc(start),
            "end_utc": utc(end),
            "attendees": json.dumps(attendees or [], ensure_ascii=False),
            "location": location,
            "notes": notes,
            "status": SCHEDULED,
            "chat": chat,
            "created_at": utc(now),
            "origin": origin,
        },
        delivery,
        now,
    )
    return _kept(get_event(db, event_id))


def event_by_uid(db: sqlite_utils.Database, uid: str) -> Event | None:
    row = db.conn.execute("SELECT * FROM calendar_events WHERE uid = ?", (uid,)).fetchone()
    return _event(row) if row else None


def import_event(db: sqlite_utils.Database, event: Event, now: datetime) -> str:
    """Add or update an event read from an .ics file, keyed by its UID, so importing the same
    file twice changes nothing. Returns 'added', 'updated', 'unchanged' or 'skipped'
    (a cancelled event kept never had, or one of kept's own bookings)."""
    with transaction(db) as conn:
        row = conn.execute("SELECT * FROM calendar_events WHERE uid = ?", (event.uid,)).fetchone()
        if row is None:
            if event.status == CANCELLED:
                return "skipped"
            add_event(
                db,
                title=event.title,
                start=event.start,
                end=event.end,
                now=now,
                attendees=event.attendees,
                location=event.location,
                notes=event.notes,
                uid=event.uid,
                origin="import",
            )
            return "added"
        if row["origin"] != "import":
            return "skipped"
        fields = (
            event.title,
            utc(event.start),
            utc(event.end),
            json.dumps(event.attendees, ensure_ascii=False),
            event.location,
            event.notes,
            event.status,
        )
        current = (
            row["title"],
            row["start_utc"],
            row["end_utc"],
            row["attendees"],
            row["location"],
            row["notes"],
            row["status"],
        )
        if fields == current:
            return "unchanged"
        conn.execute(
            "UPDATE calendar_events SET title = ?, start_utc = ?, end_utc = ?, attendees = ?, location = ?, notes = ?,"
            " status = ?, cancelled_at = CASE WHEN ? = 'cancelled' THEN ? ELSE NULL END WHERE id = ?",
            (*fields, event.status, utc(now), row["id"]),
        )
        return "updated"


def get_event(db: sqlite_utils.Database, event_id: int, scope: Scope = EVERYTHING) -> Event | None:
    """The event, or None when there is none or ``scope`` may not see it."""
    row = _row(db.conn, "calendar_events", event_id, scope)
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


def overlapping(
    db: sqlite_utils.Database, start: datetime, end: datetime, exclude_id: int | None = None
) -> list[Event]:
    """Scheduled events sharing any time with [start, end); touching ends do not overlap."""
    return [e for e in events(db, start, end) if e.id != exclude_id]


def cancel_event(db: sqlite_utils.Database, event_id: int, now: datetime, scope: Scope = EVERYTHING) -> Event:
    """Mark an event cancelled. Raises LookupError (unknown id, or one ``scope`` may not see)
    or ValueError (already cancelled).

    An event that reached (or was on its way to) a calendar server is queued
    again, so the server's copy is removed too.
    """
    _close(db, EVENT, event_id, CANCELLED, now, scope)
    return _kept(get_event(db, event_id))


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
    message_uid: str | None = None  # the RFC 5322 Message-ID, made once when the row is written

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
        row["id"],
        row["recipient"],
        row["channel"],
        row["subject"],
        row["body"],
        from_utc(row["sent_at"]),
        row["chat"],
        row["message_uid"],
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
    delivery: str = LOCAL,
    domain: str = "kept.local",
) -> OutboxMessage:
    """Record a message; ``delivery`` PENDING queues it for sending in the same transaction."""
    message_uid = f"<{uuid.uuid4().hex}@{domain}>"
    message_id = _add(
        db,
        MESSAGE,
        {
            "recipient": recipient,
            "recipient_key": recipient_key(recipient),
            "channel": channel,
            "subject": subject,
            "body": body,
            "chat": chat,
            "sent_at": utc(now),
            "message_uid": message_uid,
        },
        delivery,
        now,
    )
    return _kept(get_outbox(db, message_id))


def get_outbox(db: sqlite_utils.Database, message_id: int) -> OutboxMessage | None:
    row = _row(db.conn, "outbox", message_id, EVERYTHING)
    return _outbox(row) if row else None


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


def has_sent_to(db: sqlite_utils.Database, recipient: str, channel: str) -> bool:
    """Whether kept has written to ``recipient`` on ``channel`` before (consent is per both)."""
    row = db.conn.execute(
        "SELECT 1 FROM outbox WHERE recipient_key = ? AND channel = ? LIMIT 1", (recipient_key(recipient), channel)
    ).fetchone()
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
    uid: str | None = None

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
    return (
        datetime.fromisoformat(due).strftime("%A")
        if "T" in due
        else datetime.fromisoformat(due + "T00:00").strftime("%A")
    )


def _task(row) -> Task:
    return Task(
        row["id"],
        row["assignee"],
        row["title"],
        row["due"],
        from_utc(row["due_utc"]) if row["due_utc"] else None,
        row["status"],
        row["notes"],
        row["chat"],
        row["created_at"],
        row["done_at"],
        row["uid"],
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
    delivery: str = LOCAL,
) -> Task:
    """``due`` is what is shown (a day or an ISO moment); ``due_moment`` orders and compares it."""
    task_id = _add(
        db,
        TASK,
        {
            "assignee": assignee,
            "assignee_key": recipient_key(assignee),
            "title": title,
            "due": due,
            "due_utc": utc(due_moment) if due_moment else None,
            "status": OPEN,
            "notes": notes,
            "chat": chat,
            "created_at": utc(now),
            "uid": f"{uuid.uuid4()}@kept",
        },
        delivery,
        now,
    )
    return _kept(get_task(db, task_id))


def get_task(db: sqlite_utils.Database, task_id: int, scope: Scope = EVERYTHING) -> Task | None:
    """The task, or None when there is none or ``scope`` may not see it."""
    row = _row(db.conn, "tasks", task_id, scope)
    return _task(row) if row else None


def tasks(
    db: sqlite_utils.Database, *, assignee: str | None = None, status: str | None = None, scope: Scope = EVERYTHING
) -> list[Task]:
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
    _close(db, TASK, task_id, DONE, now, scope)
    return _kept(get_task(db, task_id))


# --- delivery ---------------------------------------------------------------
# One row per outbox message, event or task that is (or was) meant for a server.
# A worker claims a row (attempts + 1, a lease naming its process) before it
# talks to the server and records the outcome after; a process killed in
# between leaves the claim to expire, and the retry carries the same
# Message-ID / UID, so the server sees the same item again, never a new one.


@dataclass
class Delivery:
    kind: str
    item_id: int
    state: str
    attempts: int = 0
    last_error: str | None = None
    next_retry: datetime | None = None
    reply: str | None = None
    updated_at: str = ""
    delivered_at: str | None = None

    def as_dict(self, tz: ZoneInfo) -> dict:
        return {
            "state": self.state,
            "attempts": self.attempts,
            "last_error": self.last_error,
            "next_retry": self.next_retry.astimezone(tz).isoformat()
            if self.next_retry and self.state == PENDING
            else None,
            "server_reply": self.reply,
            "delivered_at": _local(self.delivered_at, tz),
        }


def _delivery(row) -> Delivery:
    return Delivery(
        row["kind"],
        row["item_id"],
        row["state"],
        row["attempts"],
        row["last_error"],
        from_utc(row["next_retry"]) if row["next_retry"] else None,
        row["reply"],
        row["updated_at"],
        row["delivered_at"],
    )


def set_delivery(conn, kind: str, item_id: int, state: str, now: datetime) -> None:
    """The first delivery row of a new item (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO deliveries (kind, item_id, state, next_retry, updated_at) VALUES (?, ?, ?, ?, ?)",
        (kind, item_id, state, utc(now) if state == PENDING else None, utc(now)),
    )


def _requeue(conn, kind: str, item_id: int, now: datetime) -> None:
    """The item changed after it was queued (an event cancelled, a task done): send its new state."""
    conn.execute(
        # Dropping the claim makes an attempt still running for the old state record nothing.
        "UPDATE deliveries SET state = ?, attempts = 0, last_error = NULL, next_retry = ?, updated_at = ?,"
        " claimed_by = NULL, claimed_until = NULL WHERE kind = ? AND item_id = ? AND state != ?",
        (PENDING, utc(now), utc(now), kind, item_id, LOCAL),
    )


def queue_again(db: sqlite_utils.Database, kind: str, item_id: int, now: datetime) -> Delivery:
    """Make an item due now, whatever its state (a person's explicit retry; an item recorded
    before an account was connected gets its first delivery row)."""
    with transaction(db) as conn:
        found = conn.execute("SELECT 1 FROM deliveries WHERE kind = ? AND item_id = ?", (kind, item_id)).fetchone()
        if found is None:
            set_delivery(conn, kind, item_id, PENDING, now)
        else:
            conn.execute(
                "UPDATE deliveries SET state = ?, next_retry = ?, updated_at = ? WHERE kind = ? AND item_id = ?",
                (PENDING, utc(now), utc(now), kind, item_id),
            )
    return _kept(delivery_of(db, kind, item_id))


def delivery_of(db: sqlite_utils.Database, kind: str, item_id: int) -> Delivery | None:
    row = db.conn.execute("SELECT * FROM deliveries WHERE kind = ? AND item_id = ?", (kind, item_id)).fetchone()
    return _delivery(row) if row else None


def deliveries(db: sqlite_utils.Database, kind: str) -> dict[int, Delivery]:
    """Every delivery row of one kind, by item id (an item without one was only ever local)."""
    return {r["item_id"]: _delivery(r) for r in db.conn.execute("SELECT * FROM deliveries WHERE kind = ?", (kind,))}


def due_deliveries(db: sqlite_utils.Database, now: datetime | None, *, include_failed: bool = False) -> list[Delivery]:
    """Pending items whose retry time has come (all pending when ``now`` is None), oldest first."""
    states = (PENDING, FAILED) if include_failed else (PENDING,)
    sql = f"SELECT * FROM deliveries WHERE state IN ({', '.join('?' * len(states))})"
    args: list = list(states)
    if now is not None:
        sql += " AND (next_retry IS NULL OR next_retry <= ? OR state = ?)"
        args += [utc(now), FAILED]
    return [_delivery(r) for r in db.conn.execute(sql + " ORDER BY updated_at, kind, item_id", args)]


def claim_delivery(
    db: sqlite_utils.Database, kind: str, item_id: int, now: datetime, *, lease_seconds: float, owner: int, alive
) -> bool:
    """Take an item for one attempt. False when it is not waiting, or another live process holds it."""
    from datetime import timedelta

    with transaction(db) as conn:
        row = conn.execute("SELECT * FROM deliveries WHERE kind = ? AND item_id = ?", (kind, item_id)).fetchone()
        if row is None or row["state"] not in (PENDING, FAILED):
            return False
        holder = row["claimed_by"]
        # A live holder's claim stands until its lease ends (this process's own too: another
        # thread of it may be mid-attempt); a dead process's claim is void at once.
        if holder is not None and row["claimed_until"] and row["claimed_until"] > utc(now) and alive(holder):
            return False
        conn.execute(
            "UPDATE deliveries SET attempts = attempts + 1, claimed_by = ?, claimed_until = ?, updated_at = ?"
            " WHERE kind = ? AND item_id = ?",
            (owner, utc(now + timedelta(seconds=lease_seconds)), utc(now), kind, item_id),
        )
    return True


def finish_delivery(
    db: sqlite_utils.Database,
    kind: str,
    item_id: int,
    now: datetime,
    *,
    owner: int,
    state: str,
    reply: str | None = None,
    error: str | None = None,
    next_retry: datetime | None = None,
) -> Delivery:
    """Record one attempt's outcome and release the claim; a no-op when the claim is no longer
    ``owner``'s (the item changed meanwhile, or another process took over an expired lease)."""
    with transaction(db) as conn:
        conn.execute(
            "UPDATE deliveries SET state = ?, reply = COALESCE(?, reply), last_error = ?, next_retry = ?,"
            " claimed_by = NULL, claimed_until = NULL, updated_at = ?,"
            " delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END"
            " WHERE kind = ? AND item_id = ? AND claimed_by = ?",
            (
                state,
                reply,
                error,
                utc(next_retry) if next_retry else None,
                utc(now),
                state,
                utc(now),
                kind,
                item_id,
                owner,
            ),
        )
    return _kept(delivery_of(db, kind, item_id))
