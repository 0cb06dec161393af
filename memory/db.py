"""Open the person's SQLite file and bring its schema up to date.

Each table belongs to one module, which declares the table's history as a
list of named migrations (``MIGRATIONS``). A migration and the row recording
it commit in one transaction, so a crash leaves either both or neither.
A file whose schema has migrations this build does not know came from a
newer kept: it is refused, never altered.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeGuard

import sqlite_utils

# Modules that own memory tables, in the order their migrations apply.
MEMORY_OWNERS: tuple[str, ...] = (
    "memory.messages",
    "memory.call_log",
    "memory.state",
    "memory.notes",
    "memory.facts",
    "memory.meaning",
    "memory.promises",
    "memory.series",
    "memory.search",
    "memory.undo",
    "memory.forget",
)

# A migration is a name and either SQL statements or a function of the connection.
Migration = tuple[str, "Sequence[str] | Callable[[sqlite3.Connection], None]"]


class StoreError(Exception):
    """The database cannot be used; the message says why, in one line."""


def connect(path: str | os.PathLike) -> sqlite3.Connection:
    """A connection in autocommit mode: writers open their own transactions.

    ``isolation_level=None`` keeps Python's sqlite3 from opening implicit
    transactions, so ``transaction()`` decides exactly what commits together.
    """
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


@contextlib.contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception.

    IMMEDIATE takes the write lock up front, so two writers wait on the busy
    timeout instead of failing on a read-to-write upgrade. Nested use joins
    the outer transaction.
    """
    conn = db.conn
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException as exc:
        # After a full disk or an I/O error SQLite has already rolled back;
        # a second ROLLBACK would raise and hide the real error.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if _fatal(exc):
            raise StoreError(_explain(_file_of(conn), exc)) from exc
        raise
    else:
        try:
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            # A full disk can fail the COMMIT itself; SQLite may or may not have rolled back.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if _fatal(exc):
                raise StoreError(_explain(_file_of(conn), exc)) from exc
            raise


def _fatal(exc: BaseException) -> TypeGuard[sqlite3.DatabaseError]:
    """A store failure the person must be told about in one line (not a bug, not a constraint)."""
    return (
        isinstance(exc, sqlite3.DatabaseError)
        and not isinstance(exc, sqlite3.IntegrityError)
        and any(w in str(exc).lower() for w in ("full", "readonly", "disk i/o", "malformed", "not a database"))
    )


def inserted_id(cur: sqlite3.Cursor) -> int:
    """The rowid the INSERT just run on ``cur`` made (sqlite3 leaves it None until a row is inserted)."""
    if cur.lastrowid is None:
        raise sqlite3.InterfaceError("the statement inserted no row")
    return cur.lastrowid


def held(conn: sqlite3.Connection, table: str, column: str, values) -> set:
    """Those of ``values`` that some row of ``table`` has in ``column`` (one query; none for no values)."""
    values = list(values)
    if not values:
        return set()
    marks = ", ".join("?" for _ in values)
    return {r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN ({marks})", values)}


def insert_row(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> int:
    """Insert ``row`` ({column: value}) into ``table``; the new row's rowid.

    Through sqlite-utils' Table API, which pairs each value with its column's name
    instead of a list of placeholders to count. Inside ``transaction()`` it joins the
    caller's transaction (as a savepoint), so what else the caller writes commits with it.
    """
    rowid = db.table(table).insert(row).last_rowid
    if rowid is None:
        raise sqlite3.InterfaceError(f"no row was inserted into {table}")
    return rowid


def _file_of(conn: sqlite3.Connection) -> Path:
    try:
        return Path(conn.execute("PRAGMA database_list").fetchone()[2] or ":memory:")
    except sqlite3.Error:
        return Path("the database")


def open_db(path: str | os.PathLike, owners: Sequence[str] = MEMORY_OWNERS) -> sqlite_utils.Database:
    """Open (creating if needed) the database at ``path`` and migrate it."""
    path = Path(path)
    if str(path) != ":memory:":
        from memory.files import make_private_dir

        try:
            make_private_dir(path.parent)  # the person's folder: owner-only, like the file
        except OSError as exc:
            raise StoreError(f"cannot make the folder for {path}: {exc.strerror or exc}") from None
        new = not path.exists()
    else:
        new = False
    try:
        conn = connect(path)
        if new:
            # The person's memory is theirs: owner-only from the first byte.
            os.chmod(path, 0o600)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        db = sqlite_utils.Database(conn)
        migrate(db, owners)
    except sqlite3.DatabaseError as exc:
        raise StoreError(_explain(path, exc)) from exc
    return db


def _explain(path: Path, exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return f"{path} is not a readable kept database ({text}); it was left untouched."
    if "readonly" in text or "unable to open" in text:
        return f"cannot write to {path} ({text}); check the permissions of the data directory."
    if "disk is full" in text or "full" in text:
        # Only the change that failed was rolled back: what was saved before it stays.
        return f"the disk holding {path} is full; this change was not saved (what was saved before it is kept)."
    if "disk i/o" in text.lower():
        return f"cannot use {path} ({text}); is its disk full or failing? This change was not saved."
    return f"cannot use {path}: {text}"


def migrate(db: sqlite_utils.Database, owners: Sequence[str]) -> None:
    conn = db.conn
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " migration_set TEXT NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL"
        " DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), PRIMARY KEY (migration_set, name))"
    )
    for owner in owners:
        module = importlib.import_module(owner)
        migrations: list[Migration] = list(module.MIGRATIONS)
        apply_migrations(db, migration_set(module), migrations)


def migration_set(module) -> str:
    """The name ``_migrations`` records an owner's migrations under: its module name, or,
    for a module renamed after stores recorded it, the old name they recorded (``MIGRATION_SET``)."""
    return getattr(module, "MIGRATION_SET", module.__name__)


def apply_migrations(db: sqlite_utils.Database, migration_set: str, migrations: Sequence[Migration]) -> None:
    conn = db.conn
    applied = {row[0] for row in conn.execute("SELECT name FROM _migrations WHERE migration_set = ?", (migration_set,))}
    known = {name for name, _ in migrations}
    unknown = sorted(applied - known)
    if unknown:
        raise StoreError(
            f"this database was written by a newer kept ({migration_set}: {', '.join(unknown)}); "
            "upgrade kept to open it. The file was left untouched."
        )
    for name, step in migrations:
        if name in applied:
            continue
        with transaction(db):
            if callable(step):
                step(conn)
            else:
                for statement in step:
                    conn.execute(statement)
            conn.execute("INSERT INTO _migrations (migration_set, name) VALUES (?, ?)", (migration_set, name))
