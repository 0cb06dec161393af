"""The fact log: dated atomic facts, and an event for every change to them.

A fact is one sentence that begins with the date it was said
("2026-10-07: the Atlas launch moved to November 10."). Facts are never
overwritten: an UPDATE supersedes the old row and links the new one to it,
a DELETE marks it deleted, and each change is a row in ``fact_events`` with
the old and new text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlite_utils

ACTIVE, SUPERSEDED, DELETED, ARCHIVED = "active", "superseded", "deleted", "archived"

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
        row["id"], row["text"], row["said_on"], row["status"], row["replaces"],
        json.loads(row["source_ids"] or "[]"), row["created_at"], row["touched_at"],
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
