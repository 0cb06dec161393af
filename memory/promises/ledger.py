"""The promise ledger: its table, its rows, and the one way a promise opens or closes."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any

from memory.db import inserted_id, transaction

OPEN, DONE, DROPPED = "open", "done", "dropped"

# Message ids are links, not foreign keys: an export carries the ledger
# without the messages, and must import into an empty store.
MIGRATIONS = [
    (
        "m001_promises",
        [
            """CREATE TABLE promises (
                id INTEGER PRIMARY KEY,
                who TEXT NOT NULL,
                to_whom TEXT,
                what TEXT NOT NULL,
                due_on TEXT,
                status TEXT NOT NULL CHECK (status IN ('open', 'done', 'dropped')),
                opened_message_id INTEGER,
                opened_on TEXT NOT NULL,
                evidence_message_id INTEGER,
                evidence_outbox_id INTEGER,
                closed_on TEXT,
                evidence TEXT,
                created_at TEXT NOT NULL
            )""",
            "CREATE INDEX promises_status ON promises (status, due_on)",
            "CREATE INDEX promises_opened ON promises (opened_message_id)",
            # Every change of a promise, so a closing can always be traced.
            """CREATE TABLE promise_events (
                id INTEGER PRIMARY KEY,
                promise_id INTEGER NOT NULL REFERENCES promises(id),
                event TEXT NOT NULL CHECK (event IN ('OPEN', 'DONE', 'DROP')),
                message_id INTEGER,
                outbox_id INTEGER,
                note TEXT,
                at TEXT NOT NULL
            )""",
            "CREATE INDEX promise_events_promise ON promise_events (promise_id)",
        ],
    ),
]


# --- the ledger --------------------------------------------------------------


@dataclass
class Promise:
    id: int
    who: str
    to_whom: str | None
    what: str
    due_on: str | None
    status: str
    opened_message_id: int | None
    opened_on: str
    evidence_message_id: int | None = None
    evidence_outbox_id: int | None = None
    closed_on: str | None = None
    evidence: str | None = None

    def overdue_days(self, today: date) -> int:
        """Days past due for an open promise, 0 when not overdue."""
        if self.status != OPEN or not self.due_on:
            return 0
        return max(0, (today - date.fromisoformat(self.due_on)).days)

    def as_dict(self, today: date | None = None) -> dict[str, Any]:
        row = asdict(self)
        if today is not None:
            row["overdue_days"] = self.overdue_days(today)
        return row


def _promise(row) -> Promise:
    return Promise(
        row["id"],
        row["who"],
        row["to_whom"],
        row["what"],
        row["due_on"],
        row["status"],
        row["opened_message_id"],
        row["opened_on"],
        row["evidence_message_id"],
        row["evidence_outbox_id"],
        row["closed_on"],
        row["evidence"],
    )


def list_promises(db, statuses: tuple[str, ...] = (OPEN,)) -> list[Promise]:
    """Promises with any of ``statuses`` (all when empty): open ones by due date, others oldest first."""
    sql = "SELECT * FROM promises"
    args: list[Any] = list(statuses)
    if statuses:
        sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
    sql += " ORDER BY status = 'open' DESC, due_on IS NULL, due_on, id"
    return [_promise(r) for r in db.conn.execute(sql, args)]


def get(db, promise_id: int) -> Promise | None:
    row = db.conn.execute("SELECT * FROM promises WHERE id = ?", (promise_id,)).fetchone()
    return _promise(row) if row else None


def events(db, promise_id: int) -> list[dict[str, Any]]:
    return [
        dict(r) for r in db.conn.execute("SELECT * FROM promise_events WHERE promise_id = ? ORDER BY id", (promise_id,))
    ]


def today_here(tz=None) -> date:
    """Today in the person's zone: ``tz`` (the configured zone, which the turn and the
    commands pass), else KEPT_TZ / TZ, else the machine's."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if tz is not None:
        return datetime.now(tz).date()
    name = os.environ.get("KEPT_TZ") or os.environ.get("TZ")
    try:
        return datetime.now(ZoneInfo(name)).date() if name else datetime.now().astimezone().date()
    except (ZoneInfoNotFoundError, ValueError):
        return datetime.now().astimezone().date()


def _now_text() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def add(
    conn: sqlite3.Connection,
    who: str,
    what: str,
    opened_on: str,
    *,
    to_whom: str | None = None,
    due_on: str | None = None,
    opened_message_id: int | None = None,
) -> int:
    """Open a promise (inside the caller's transaction) and record the event."""
    cur = conn.execute(
        "INSERT INTO promises (who, to_whom, what, due_on, status, opened_message_id, opened_on, created_at)"
        " VALUES (?, ?, ?, ?, 'open', ?, ?, ?)",
        (who, to_whom or None, what, due_on, opened_message_id, opened_on, _now_text()),
    )
    pid = inserted_id(cur)
    conn.execute(
        "INSERT INTO promise_events (promise_id, event, message_id, at) VALUES (?, 'OPEN', ?, ?)",
        (pid, opened_message_id, _now_text()),
    )
    return pid


def close(
    conn: sqlite3.Connection,
    promise_id: int,
    status: str,
    closed_on: str,
    evidence: str,
    *,
    by: str,
    message_id: int | None = None,
    outbox_id: int | None = None,
) -> bool:
    """Mark an open promise done or dropped with its evidence; False when it was not open.

    ``by`` names the evidence: "message" (the person's words, ``message_id``
    required), "tool" (kept's own action, ``outbox_id`` when there is a row)
    or "person" (the person's own command). That is the invariant of this
    ledger, so it is checked here, not left to callers.
    """
    if status not in (DONE, DROPPED):
        raise ValueError(f"a promise closes as done or dropped, not {status!r}")
    if by not in ("message", "tool", "person") or (by == "message" and message_id is None) or not evidence.strip():
        raise ValueError("a promise closes only on evidence: a message, kept's own action, or the person's command")
    if by == "tool" and status != DONE:
        raise ValueError("a tool action can fulfil a promise, never drop it")
    cur = conn.execute(
        "UPDATE promises SET status = ?, closed_on = ?, evidence = ?, evidence_message_id = ?, evidence_outbox_id = ?"
        " WHERE id = ? AND status = 'open'",
        (status, closed_on, evidence, message_id, outbox_id, promise_id),
    )
    if cur.rowcount == 0:
        return False
    conn.execute(
        "INSERT INTO promise_events (promise_id, event, message_id, outbox_id, note, at) VALUES (?, ?, ?, ?, ?, ?)",
        (promise_id, "DONE" if status == DONE else "DROP", message_id, outbox_id, evidence, _now_text()),
    )
    return True


def close_by_person(db, promise_id: int, status: str, today: date, note: str = "") -> bool:
    """The person closes a promise themselves (`kept promises done|drop ID`)."""
    verb = "marked it done" if status == DONE else "dropped it"
    with transaction(db) as conn:
        return close(
            conn,
            promise_id,
            status,
            today.isoformat(),
            f"the person {verb} with `kept promises`" + (f": {note}" if note else ""),
            by="person",
        )


def describe(p: Promise, today: date) -> str:
    """One line: status with its date and evidence, who owes what to whom, due and overdue."""
    owed = f"{p.who} -> {p.to_whom}" if p.to_whom else p.who
    due = f", due {p.due_on}" if p.due_on else ""
    if p.status == OPEN:
        late = p.overdue_days(today)
        mark = f" OVERDUE by {late} day{'s' if late != 1 else ''}" if late else ""
        return f"#{p.id} open since {p.opened_on} ({owed}): {p.what}{due}{mark}"
    word = "done" if p.status == DONE else "dropped"
    return f"#{p.id} {word} on {p.closed_on} ({owed}): {p.what}{due}; opened {p.opened_on}; evidence: {p.evidence}"
