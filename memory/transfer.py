"""Export and import of what the write passes kept: notes, facts, events, promises, series.

An export is plain JSON that keeps every row with its id, so an import into
an empty store reproduces it exactly (exporting again gives the same data).
Importing into a store that already holds any of it is refused: merging two
histories would renumber ids that events and links point to.
Messages are not part of it; they stay in the database they were said in.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from memory.db import transaction
from memory.secrets import redact

FORMAT = 1
# Tables of the other owners carried along: every table of the owner whose name
# starts with the prefix (promises, promise_events; series, series_events).
OTHERS = {"promises": "promise", "series": "series"}
# An FTS5 index's shadow tables are rebuilt by the index, never carried.
_SHADOW = ("_fts", "_data", "_idx", "_docsize", "_config", "_content")


class ImportRefused(Exception):
    """The file cannot be imported; the message says why in one line."""


NOT_EMPTY = (
    "this store already holds memory (notes, facts, promises or series); "
    "import only into an empty store, e.g. with KEPT_HOME pointing at a new folder"
)


def _rows(db: sqlite_utils.Database, table: str) -> list[dict[str, Any]]:
    return list(db.table(table).rows_where(order_by="rowid"))


def _tables(db: sqlite_utils.Database, key: str) -> list[str]:
    # Creation order (sqlite_master's), so a table another references is filled first on import.
    return [t for t in db.table_names() if t.startswith(OTHERS[key]) and not t.endswith(_SHADOW)]


def export_data(db: sqlite_utils.Database) -> dict[str, Any]:
    return {
        "kept_export": FORMAT,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "notes": _rows(db, "notes"),
        "facts": _rows(db, "facts"),
        "events": _rows(db, "fact_events"),
        **{key: {t: _rows(db, t) for t in _tables(db, key)} for key in OTHERS},
    }


def is_empty(db: sqlite_utils.Database) -> bool:
    tables = ["notes", "facts", "fact_events", *(t for key in OTHERS for t in _tables(db, key))]
    return all(db.table(t).count == 0 for t in tables)


def _insert(db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]]) -> None:
    # One row at a time, not insert_all: a batch gives every row the batch's columns, so a
    # field one row leaves out would be written NULL instead of taking its column's default,
    # and a constraint failure could not say which row broke it.
    for i, row in enumerate(rows, 1):
        try:
            db.table(table).insert(row)
        except sqlite3.IntegrityError as exc:  # a rule only the schema knows (a CHECK): name the row
            raise ImportRefused(f"{table} row {i}{_id_of(row)}: {exc}") from None


def _id_of(row: dict) -> str:
    return f" (id {row['id']})" if "id" in row else ""


# --- validation: everything is checked before the first row is written ------------------

MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_TEXT_CHARS = 100_000  # any one text field; facts and SOUL have tighter limits of their own
# Text columns that hold JSON, and what the JSON must be.
JSON_COLUMNS = {("facts", "source_ids"): "a JSON list of message ids (whole numbers)"}


def _text_limit(table: str, column: str, row: dict) -> int:
    from memory import facts, soul

    if table == "facts" and column == "text":
        return facts.MAX_CHARS
    if table == "notes" and column == "text" and row.get("kind") == "soul":
        return soul.MAX_CHARS
    return MAX_TEXT_CHARS


def _schema(db: sqlite_utils.Database, table: str) -> dict[str, Any]:
    t = db.table(table)
    return {
        # column: (declared type, required: NOT NULL with no default and not the rowid key)
        "columns": {
            c.name: (c.type.upper(), bool(c.notnull) and c.default_value is None and not c.is_pk) for c in t.columns
        },
        "references": {fk.column: fk.other_table for fk in t.foreign_keys},
    }


def _check_value(table: str, i: int, row: dict, column: str, kind: str, value: Any) -> None:
    where = f"{table} row {i}{_id_of(row)}, field {column!r}"
    if value is None:
        return
    if kind == "INTEGER" and (isinstance(value, bool) or not isinstance(value, int)):
        raise ImportRefused(f"{where}: {_show(value)} is not a whole number")
    if kind == "INTEGER" and not -(2**63) <= value < 2**63:
        raise ImportRefused(f"{where}: {value} is out of range")
    if kind == "REAL" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ImportRefused(f"{where}: {_show(value)} is not a number")
    if kind == "TEXT":
        if not isinstance(value, str):
            raise ImportRefused(f"{where}: {_show(value)} is not text")
        limit = _text_limit(table, column, row)
        if len(value) > limit:
            raise ImportRefused(f"{where}: {len(value):,} characters, over the limit of {limit:,}")
        if (table, column) in JSON_COLUMNS:
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if not isinstance(parsed, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in parsed):
                raise ImportRefused(f"{where}: {_show(value)} is not {JSON_COLUMNS[(table, column)]}")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def validate(db: sqlite_utils.Database, tables: dict[str, Any]) -> None:
    """Refuse ``tables`` ({table: rows}, in insert order) unless every row can be written:
    objects of known columns, each value of its column's type and size, JSON fields that
    parse, required fields present, ids unique, and every reference pointing at a row of
    the same import. The message names the table, the row (1-based) and the field."""
    ids: dict[str, set] = {}
    for table, rows in tables.items():
        if not isinstance(rows, list):
            raise ImportRefused(f"{table!r} must be a list of rows, not {type(rows).__name__}")
        schema = _schema(db, table)
        seen: dict[Any, int] = {}
        for i, row in enumerate(rows, 1):
            if not isinstance(row, dict):
                raise ImportRefused(f"{table} row {i} is {_show(row)}, not an object of fields")
            unknown = sorted(set(row) - set(schema["columns"]))
            if unknown:
                raise ImportRefused(
                    f"{table} row {i}{_id_of(row)}: unknown field {unknown[0]!r} "
                    f"(this kept knows {', '.join(schema['columns'])})"
                )
            for column, (kind, required) in schema["columns"].items():
                if required and row.get(column) is None:
                    raise ImportRefused(
                        f"{table} row {i}{_id_of(row)}, field {column!r}: required, but missing or null"
                    )
                if column in row:
                    _check_value(table, i, row, column, kind, row[column])
            if row.get("id") is not None:
                if row["id"] in seen:
                    raise ImportRefused(f"{table} row {i}: id {row['id']} is already used by row {seen[row['id']]}")
                seen[row["id"]] = i
        ids[table] = set(seen)
    for table, rows in tables.items():
        for column, target in _schema(db, table)["references"].items():
            known = ids.get(target, set())
            for i, row in enumerate(rows, 1):
                ref = row.get(column)
                if ref is not None and ref not in known:
                    raise ImportRefused(
                        f"{table} row {i}{_id_of(row)}, field {column!r}: {target} id {ref} is not in the import"
                    )


def load_file(path: str | os.PathLike) -> Any:
    """The parsed JSON of an export file, or ImportRefused saying in one line why not."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ImportRefused(f"{path} is not a regular file")
        if size > MAX_FILE_BYTES:
            raise ImportRefused(f"{path} is {size:,} bytes; an export is at most {MAX_FILE_BYTES:,}")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ImportRefused(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ImportRefused(f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ImportRefused(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise ImportRefused(f"{path} is nested too deeply to be a kept export") from None


def import_data(db: sqlite_utils.Database, data: Any) -> dict[str, int]:
    """Load an export into an empty store, in one transaction; counts of rows per kind.

    Every row is validated first (``validate``): a refused import writes nothing
    and says which row and field, in one line.
    """
    if not isinstance(data, dict) or data.get("kept_export") != FORMAT:
        raise ImportRefused("not a kept memory export (format 1)")
    tables: dict[str, Any] = {}
    for key, table in (("notes", "notes"), ("facts", "facts"), ("events", "fact_events")):
        tables[table] = data.get(key) or []
    counts_of: dict[str, list[str]] = {"notes": ["notes"], "facts": ["facts"], "events": ["fact_events"]}
    for key in OTHERS:
        part = data.get(key) or {}
        if not isinstance(part, dict):
            raise ImportRefused(f"{key!r} must be an object of tables")
        known = _tables(db, key)
        for table in part:
            if table not in known:
                raise ImportRefused(f"unknown {key} table {table!r}")
        # Insert in the store's creation order, so a table another references is filled first.
        for table in known:
            if table in part:
                tables[table] = part[table]
        counts_of[key] = [t for t in known if t in part]
    if not is_empty(db):
        raise ImportRefused(NOT_EMPTY)
    validate(db, tables)
    tables = {t: [_redacted(t, r) for r in rows] for t, rows in tables.items()}
    with transaction(db):
        if not is_empty(db):
            raise ImportRefused(NOT_EMPTY)
        for table, rows in tables.items():
            _insert(db, table, rows)
    return {key: sum(len(tables[t]) for t in names) for key, names in counts_of.items()}


# Text that may hold what a person pasted: redacted on the way in, as a write pass would.
_REDACTED_FIELDS = {"notes": ("text",), "facts": ("text",), "fact_events": ("old_text", "new_text")}


def _redacted(table: str, row: dict) -> dict:
    fields = [k for k in _REDACTED_FIELDS.get(table, ()) if row.get(k)]
    return {**row, **{k: redact(row[k]) for k in fields}} if fields else row
