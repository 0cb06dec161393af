"""Export and import of what the write passes kept: notes, facts, events, promises, series.

An export is plain JSON that keeps every row with its id, so an import into
an empty store reproduces it exactly (exporting again gives the same data).
Importing into a store that already holds any of it is refused: merging two
histories would renumber ids that events and links point to.
Messages are not part of it; they stay in the database they were said in.
"""

from __future__ import annotations

import importlib
from datetime import datetime, timezone
from typing import Any

import sqlite_utils

from memory.db import transaction
from memory.secrets import redact

FORMAT = 1
# Tables of the other owners carried along, by owner module. An owner may
# provide ``export_rows(db) -> {table: rows}`` and ``import_rows(conn, data)``;
# otherwise its tables are copied row by row.
OTHERS = {"promises": "memory.promises", "series": "memory.series"}


class ImportRefused(Exception):
    """The file cannot be imported; the message says why in one line."""


def _rows(db: sqlite_utils.Database, table: str) -> list[dict[str, Any]]:
    return [dict(r) for r in db.conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')]


def _tables(db: sqlite_utils.Database, prefix: str) -> list[str]:
    # Creation order, so a table another references is filled first on import.
    return [r[0] for r in db.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? ORDER BY rowid", (prefix + "%",))
        if not r[0].endswith(("_fts", "_data", "_idx", "_docsize", "_config", "_content"))]


def _other_rows(db: sqlite_utils.Database, key: str) -> dict[str, list[dict[str, Any]]]:
    module = importlib.import_module(OTHERS[key])
    if hasattr(module, "export_rows"):
        return module.export_rows(db)
    prefix = "promise" if key == "promises" else "series"
    return {t: _rows(db, t) for t in _tables(db, prefix)}


def export_data(db: sqlite_utils.Database) -> dict[str, Any]:
    return {
        "kept_export": FORMAT,
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "notes": _rows(db, "notes"),
        "facts": _rows(db, "facts"),
        "events": _rows(db, "fact_events"),
        "promises": _other_rows(db, "promises"),
        "series": _other_rows(db, "series"),
    }


def is_empty(db: sqlite_utils.Database) -> bool:
    tables = ["notes", "facts", "fact_events"] + _tables(db, "promise") + _tables(db, "series")
    return all(db.conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() is None for t in tables)


def _insert(conn, table: str, rows: list[dict[str, Any]], columns: set[str]) -> None:
    for row in rows:
        unknown = set(row) - columns
        if unknown:
            raise ImportRefused(f"{table} rows carry columns this kept does not know: {', '.join(sorted(unknown))}")
        keys = list(row)
        conn.execute(
            f'INSERT INTO "{table}" ({", ".join(keys)}) VALUES ({", ".join("?" for _ in keys)})',
            [row[k] for k in keys],
        )


def _columns(db: sqlite_utils.Database, table: str) -> set[str]:
    return {r[1] for r in db.conn.execute(f'PRAGMA table_info("{table}")')}


def import_data(db: sqlite_utils.Database, data: Any) -> dict[str, int]:
    """Load an export into an empty store, in one transaction; counts of rows per kind."""
    if not isinstance(data, dict) or data.get("kept_export") != FORMAT:
        raise ImportRefused("not a kept memory export (format 1)")
    for key in ("notes", "facts", "events"):
        if not isinstance(data.get(key, []), list):
            raise ImportRefused(f"'{key}' must be a list")
    counts: dict[str, int] = {}
    with transaction(db) as conn:
        if not is_empty(db):
            raise ImportRefused("this store already holds memory (notes, facts, promises or series); "
                                "import only into an empty store, e.g. with KEPT_HOME pointing at a new folder")
        notes = [{**r, "text": redact(r.get("text") or "")} for r in data.get("notes", [])]
        facts = [{**r, "text": redact(r.get("text") or "")} for r in data.get("facts", [])]
        events = [{**r, **{k: redact(r[k]) for k in ("old_text", "new_text") if r.get(k)}} for r in data.get("events", [])]
        _insert(conn, "notes", notes, _columns(db, "notes"))
        _insert(conn, "facts", facts, _columns(db, "facts"))
        _insert(conn, "fact_events", events, _columns(db, "fact_events"))
        counts.update(notes=len(notes), facts=len(facts), events=len(events))
        for key, owner in OTHERS.items():
            part = data.get(key) or {}
            if not isinstance(part, dict):
                raise ImportRefused(f"'{key}' must be an object of tables")
            module = importlib.import_module(owner)
            if hasattr(module, "import_rows"):
                module.import_rows(conn, part)
            else:
                known = set(_tables(db, "promise" if key == "promises" else "series"))
                for table, rows in part.items():
                    if table not in known:
                        raise ImportRefused(f"unknown {key} table {table!r}")
                    _insert(conn, table, rows, _columns(db, table))
            counts[key] = sum(len(rows) for rows in part.values())
    return counts
