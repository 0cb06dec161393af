"""Small named values that must survive restarts: cursors, last-pass times."""

from __future__ import annotations

import sqlite_utils

MIGRATIONS = [
    ("m001_state", ["CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]),
]


def get(db: sqlite_utils.Database, key: str, default: str | None = None) -> str | None:
    row = db.conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def put(db: sqlite_utils.Database, key: str, value: str) -> None:
    """Write inside the caller's transaction, if there is one."""
    db.conn.execute(
        "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
