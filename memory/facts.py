"""The fact log: dated atomic facts, and an event for every change to them.

A fact is one sentence that begins with the date it was said
("2026-10-07: the Atlas launch moved to November 10."). Facts are never
overwritten: an UPDATE supersedes the old row and links the new one to it,
a DELETE marks it deleted, and each change is a row in ``fact_events`` with
the old and new text.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlite_utils

from memory.db import inserted_id
from memory.secrets import redact
from memory.text.dates import undated

ACTIVE, SUPERSEDED, DELETED, ARCHIVED = "active", "superseded", "deleted", "archived"
# A fact is one dated sentence; anything longer is not a fact and would ride in every prompt.
MAX_CHARS = 2000

MIGRATIONS = [
    (
        "m001_facts",
        [
            """CREATE TABLE facts (
                id INTEGER PRIMARY KEY,
                text TEXT NOT NULL,
                said_on TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'deleted', 'archived')),
                replaces INTEGER REFERENCES facts(id),
                source_ids TEXT NOT NULL DEFAULT '[]',
                created_at TEXT NOT NULL,
                touched_at TEXT NOT NULL
            )""",
            "CREATE INDEX facts_status ON facts (status, touched_at)",
            """CREATE TABLE fact_events (
                id INTEGER PRIMARY KEY,
                fact_id INTEGER NOT NULL REFERENCES facts(id),
                event TEXT NOT NULL CHECK (event IN ('ADD', 'UPDATE', 'DELETE', 'ARCHIVE', 'IMPORT')),
                old_text TEXT,
                new_text TEXT,
                at TEXT NOT NULL,
                reason TEXT
            )""",
            "CREATE INDEX fact_events_fact ON fact_events (fact_id)",
        ],
    ),
    # Dedupe on reread looks facts up by the day they were said.
    ("m002_facts_said_on", ["CREATE INDEX facts_said_on ON facts (said_on)"]),
]


@dataclass
class Fact:
    id: int
    text: str
    said_on: str
    status: str
    replaces: int | None
    source_ids: list[int] = field(default_factory=list)
    created_at: str = ""
    touched_at: str = ""


def _fact(row) -> Fact:
    return Fact(
        row["id"],
        row["text"],
        row["said_on"],
        row["status"],
        row["replaces"],
        json.loads(row["source_ids"] or "[]"),
        row["created_at"],
        row["touched_at"],
    )


def by_status(db: sqlite_utils.Database, *statuses: str) -> list[Fact]:
    """Facts with any of ``statuses`` (all when none given), oldest first."""
    sql, args = "SELECT * FROM facts", list(statuses)
    if statuses:
        sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
    return [_fact(r) for r in db.conn.execute(sql + " ORDER BY id", args)]


def get(db: sqlite_utils.Database, fact_id: int) -> Fact | None:
    row = db.conn.execute("SELECT * FROM facts WHERE id = ?", (fact_id,)).fetchone()
    return _fact(row) if row else None


def replaced_by(db: sqlite_utils.Database, fact_id: int) -> Fact | None:
    """The fact that superseded ``fact_id``, if any."""
    row = db.conn.execute("SELECT * FROM facts WHERE replaces = ? ORDER BY id DESC LIMIT 1", (fact_id,)).fetchone()
    return _fact(row) if row else None


# --- writing -------------------------------------------------------------
#
# Every write function takes the connection of a transaction the caller
# holds (``with transaction(db) as conn``), so a whole write pass commits or
# rolls back as one. Each change records exactly one event.


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def dated(text: str, said_on: str) -> str:
    """``text`` as a fact sentence: one line, secrets redacted, beginning with ``said_on``."""
    body = " ".join(redact(undated(text)).split())
    return f"{said_on}: {body}"


def normalise(text: str) -> str:
    """What two facts must share to count as the same fact (date prefix, case, spacing, end punctuation ignored)."""
    body = undated(text).casefold()
    return re.sub(r"[\s\.。!！?？,，;；:：'\"“”‘’]+", " ", body).strip()


def find_same(conn: sqlite3.Connection, text: str, said_on: str) -> int | None:
    """A fact (in any status) with the same normalised text said on the same day.

    Any status counts: a reread must not revive a fact the person deleted or
    one a later fact superseded.
    """
    key = normalise(text)
    for row in conn.execute("SELECT id, text FROM facts WHERE said_on = ? ORDER BY id", (said_on,)):
        if normalise(row["text"]) == key:
            return int(row["id"])
    return None


def _event(
    conn: sqlite3.Connection, fact_id: int, event: str, old: str | None, new: str | None, reason: str | None, at: str
) -> None:
    conn.execute(
        "INSERT INTO fact_events (fact_id, event, old_text, new_text, at, reason) VALUES (?, ?, ?, ?, ?, ?)",
        (fact_id, event, old, new, at, reason),
    )


def add_fact(
    conn: sqlite3.Connection, text: str, said_on: str, source_ids: list[int], reason: str | None = None
) -> int:
    """Store a new active fact (ADD event) and return its id.

    ``text`` is prefixed with ``said_on`` unless it already begins with a
    date, and redacted. When the same fact said on the same day is already
    stored, nothing is written and that fact's id is returned: rereading
    messages after a failed pass creates no duplicates.
    """
    text = dated(text, said_on)
    same = find_same(conn, text, said_on)
    if same is not None:
        return same
    at = _now()
    cur = conn.execute(
        "INSERT INTO facts (text, said_on, status, replaces, source_ids, created_at, touched_at)"
        " VALUES (?, ?, 'active', NULL, ?, ?, ?)",
        (text, said_on, json.dumps(sorted(set(int(i) for i in source_ids))), at, at),
    )
    fact_id = inserted_id(cur)
    _event(conn, fact_id, "ADD", None, text, reason, at)
    return fact_id


def update_fact(
    conn: sqlite3.Connection, old_id: int, new_text: str, said_on: str, source_ids: list[int], reason: str | None = None
) -> int:
    """Supersede ``old_id`` with a new fact linked to it (UPDATE event with old and new text)."""
    old = conn.execute("SELECT id, text, status FROM facts WHERE id = ?", (old_id,)).fetchone()
    if old is None:
        raise KeyError(f"no fact #{old_id}")
    text = dated(new_text, said_on)
    at = _now()
    conn.execute("UPDATE facts SET status = 'superseded', touched_at = ? WHERE id = ?", (at, old_id))
    cur = conn.execute(
        "INSERT INTO facts (text, said_on, status, replaces, source_ids, created_at, touched_at)"
        " VALUES (?, ?, 'active', ?, ?, ?, ?)",
        (text, said_on, old_id, json.dumps(sorted(set(int(i) for i in source_ids))), at, at),
    )
    fact_id = inserted_id(cur)
    _event(conn, fact_id, "UPDATE", old["text"], text, reason or f"replaces #{old_id}", at)
    return fact_id


def delete_fact(conn: sqlite3.Connection, fact_id: int, reason: str | None = None) -> bool:
    """Mark a fact deleted (DELETE event). False when it was already deleted."""
    row = conn.execute("SELECT text, status FROM facts WHERE id = ?", (fact_id,)).fetchone()
    if row is None:
        raise KeyError(f"no fact #{fact_id}")
    if row["status"] == DELETED:
        return False
    at = _now()
    conn.execute("UPDATE facts SET status = 'deleted', touched_at = ? WHERE id = ?", (at, fact_id))
    _event(conn, fact_id, "DELETE", row["text"], None, reason, at)
    return True


def touch(conn: sqlite3.Connection, fact_ids: list[int], at: str | None = None) -> None:
    """Mark facts as used (now, or at ``at``), so the bound archives them last."""
    at = at or _now()
    conn.executemany("UPDATE facts SET touched_at = ? WHERE id = ?", [(at, int(i)) for i in fact_ids])


def archive_over_bound(conn: sqlite3.Connection, max_active: int) -> list[int]:
    """Archive the least recently touched active facts beyond ``max_active`` (ARCHIVE events).

    Archived facts stay in the table and stay searchable; only the active set
    that reconcile compares against is bounded.
    """
    count = conn.execute("SELECT count(*) FROM facts WHERE status = 'active'").fetchone()[0]
    excess = count - max(int(max_active), 0)
    if excess <= 0:
        return []
    rows = conn.execute(
        "SELECT id, text FROM facts WHERE status = 'active' ORDER BY touched_at, id LIMIT ?", (excess,)
    ).fetchall()
    at = _now()
    for row in rows:
        conn.execute("UPDATE facts SET status = 'archived' WHERE id = ?", (row["id"],))
        _event(conn, row["id"], "ARCHIVE", row["text"], row["text"], f"over the bound of {max_active} active facts", at)
    return [int(r["id"]) for r in rows]


# --- reading events --------------------------------------------------------


@dataclass
class FactEvent:
    id: int
    fact_id: int
    event: str
    old_text: str | None
    new_text: str | None
    at: str
    reason: str | None


def events(db: sqlite_utils.Database, limit: int | None = None, fact_id: int | None = None) -> list[FactEvent]:
    """Fact events, newest first."""
    sql, args = "SELECT * FROM fact_events", []
    if fact_id is not None:
        sql += " WHERE fact_id = ?"
        args.append(fact_id)
    sql += " ORDER BY id DESC"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [
        FactEvent(r["id"], r["fact_id"], r["event"], r["old_text"], r["new_text"], r["at"], r["reason"])
        for r in db.conn.execute(sql, args)
    ]


def lineage(db: sqlite_utils.Database, fact_id: int) -> list[Fact]:
    """The chain of versions ending at ``fact_id``, oldest first."""
    chain: list[Fact] = []
    fact = get(db, fact_id)
    while fact is not None and len(chain) < 1000:
        chain.append(fact)
        fact = get(db, fact.replaces) if fact.replaces else None
    return list(reversed(chain))
