"""The log of every model call: purpose, tokens, cost, latency, error.

Nothing said to or by the model is stored here, only what the call cost and
how it ended, so no secret a person pastes can reach this table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import sqlite_utils

from memory.db import insert_row, transaction
from memory.secrets import redact

# Stores record these migrations under the module's first name; renaming it must not re-run them.
MIGRATION_SET = "memory.calls"
MIGRATIONS = [
    (
        "m001_model_calls",
        [
            """CREATE TABLE model_calls (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                purpose TEXT NOT NULL,
                provider TEXT NOT NULL,
                model TEXT NOT NULL,
                input_tokens INTEGER,
                output_tokens INTEGER,
                cost_usd REAL,
                latency_ms REAL NOT NULL,
                attempt INTEGER NOT NULL DEFAULT 1,
                error_class TEXT,
                error TEXT
            )""",
        ],
    ),
]


@dataclass
class CallRecord:
    purpose: str
    provider: str
    model: str
    latency_ms: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    attempt: int = 1
    error_class: str | None = None
    error: str | None = None


def log_call(db: sqlite_utils.Database, record: CallRecord) -> None:
    with transaction(db):
        insert_row(
            db,
            "model_calls",
            {
                "at": datetime.now(UTC).isoformat(timespec="milliseconds"),
                **asdict(record),
                "error": redact(record.error or "")[:500] or None,  # every stored error, whoever logs it
            },
        )


def list_calls(db: sqlite_utils.Database, limit: int = 50) -> list[dict]:
    rows = db.conn.execute("SELECT * FROM model_calls ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
    return [dict(r) for r in rows]
