"""Notes: every version of SOUL and MEMORY, never overwritten.

A note is read as its newest version; saving adds a version. The history is
what ``kept memory show --history`` prints and what export carries.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlite_utils

from memory.db import inserted_id

SOUL, MEMORY = "soul", "memory"

MIGRATIONS = [
    (
        "m001_notes",
        [
            """CREATE TABLE notes (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('soul', 'memory')),
                text TEXT NOT NULL,
                at TEXT NOT NULL,
                reason TEXT
            )""",
            "CREATE INDEX notes_kind ON notes (kind, id)",
        ],
    ),
]


@dataclass
class Note:
    id: int
    kind: str
    text: str
    at: str
    reason: str | None


def _note(row) -> Note:
    return Note(row["id"], row["kind"], row["text"], row["at"], row["reason"])


def latest(db: sqlite_utils.Database, kind: str) -> Note | None:
    row = db.conn.execute("SELECT * FROM notes WHERE kind = ? ORDER BY id DESC LIMIT 1", (kind,)).fetchone()
    return _note(row) if row else None


def history(db: sqlite_utils.Database, kind: str) -> list[Note]:
    """Every version of the note, oldest first."""
    return [_note(r) for r in db.conn.execute("SELECT * FROM notes WHERE kind = ? ORDER BY id", (kind,))]


def save(conn: sqlite3.Connection, kind: str, text: str, reason: str | None = None) -> int | None:
    """Add a version inside the caller's transaction; None when it equals the newest one."""
    if kind not in (SOUL, MEMORY):
        raise ValueError(f"note kind must be 'soul' or 'memory', not {kind!r}")
    row = conn.execute("SELECT text FROM notes WHERE kind = ? ORDER BY id DESC LIMIT 1", (kind,)).fetchone()
    if row is not None and row["text"] == text:
        return None
    cur = conn.execute(
        "INSERT INTO notes (kind, text, at, reason) VALUES (?, ?, ?, ?)",
        (kind, text, datetime.now(UTC).isoformat(timespec="milliseconds"), reason),
    )
    return inserted_id(cur)
