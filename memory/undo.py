"""What each write pass changed, said in a line or two, and undone on request.

A pass records, inside its own commit, which rows it added (facts, fact
events, note versions, promises, promise events, series, series events) and
the rows it changed (facts archived, deleted, superseded or touched;
promises closed), with their values before and after. ``undo`` takes the
newest pass not yet undone, removes what it added and puts back what it
changed, so those tables hold exactly what they held before the pass; each
reverted change becomes a row in ``undo_events`` (``kept memory log`` shows
them), so nothing vanishes without a trace. The cursor stays where the pass
left it: undone facts do not come back with the next pass.

A pass is undone only while nothing changed its rows since (an edit, a
forget, a later pass that built on them): otherwise undo says what is in the
way and changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlite_utils

from memory.db import transaction

MIGRATIONS = [
    (
        "m001_journal",
        [
            """CREATE TABLE memory_journal (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                label TEXT NOT NULL,
                changes TEXT NOT NULL,
                undone_at TEXT
            )""",
            """CREATE TABLE undo_events (
                id INTEGER PRIMARY KEY,
                journal_id INTEGER NOT NULL REFERENCES memory_journal(id),
                at TEXT NOT NULL,
                kind TEXT NOT NULL,
                ref_id INTEGER,
                text TEXT
            )""",
        ],
    ),
]

# Tables whose new rows a pass adds, children before parents (the order undo deletes in).
ADDED = ("series_events", "series", "promise_events", "promises", "fact_events", "facts", "notes")
FACT_COLUMNS = ("status", "touched_at")
PROMISE_COLUMNS = ("status", "closed_on", "evidence", "evidence_message_id", "evidence_outbox_id")


class NothingToUndo(Exception):
    """No pass is left to undo, or the newest cannot be undone; the text says why."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _table_exists(conn: sqlite3.Connection, table: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
    )


def _rows(conn, table: str, columns: tuple[str, ...], where: str = "", args=()) -> dict[int, list]:
    if not _table_exists(conn, table):
        return {}
    sql = f"SELECT id, {', '.join(columns)} FROM {table} {where}"
    return {int(r[0]): list(r[1:]) for r in conn.execute(sql, args)}


@dataclass
class Snapshot:
    max_ids: dict[str, int]
    facts: dict[int, list]
    promises: dict[int, list]


def snapshot(conn: sqlite3.Connection) -> Snapshot:
    """What a pass may change, read at the start of its commit."""
    max_ids = {
        t: int(conn.execute(f"SELECT coalesce(max(id), 0) FROM {t}").fetchone()[0])
        for t in ADDED
        if _table_exists(conn, t)
    }
    return Snapshot(max_ids, _rows(conn, "facts", FACT_COLUMNS), _rows(conn, "promises", PROMISE_COLUMNS))


def record(conn: sqlite3.Connection, before: Snapshot, label: str) -> int | None:
    """Journal what changed since ``before`` (inside the same transaction); its id, or None when nothing did."""
    new = {
        t: [int(r[0]) for r in conn.execute(f"SELECT id FROM {t} WHERE id > ? ORDER BY id", (m,))]
        for t, m in before.max_ids.items()
    }
    new = {t: ids for t, ids in new.items() if ids}
    facts_now, promises_now = _rows(conn, "facts", FACT_COLUMNS), _rows(conn, "promises", PROMISE_COLUMNS)
    changed = {
        "facts": {i: [old, facts_now.get(i)] for i, old in before.facts.items() if facts_now.get(i) != old},
        "promises": {i: [old, promises_now.get(i)] for i, old in before.promises.items() if promises_now.get(i) != old},
    }
    after_new = {
        "facts": {i: facts_now[i] for i in new.get("facts", []) if i in facts_now},
        "promises": {i: promises_now[i] for i in new.get("promises", []) if i in promises_now},
    }
    if not new and not changed["facts"] and not changed["promises"]:
        return None
    changes = {"new": new, "changed": changed, "after_new": after_new}
    cur = conn.execute(
        "INSERT INTO memory_journal (at, label, changes) VALUES (?, ?, ?)", (_now(), label, json.dumps(changes))
    )
    return int(cur.lastrowid or 0)


# --- what changed, for the person ---------------------------------------------------------


@dataclass
class Changes:
    """One pass's changes, in the person's terms."""

    journal_id: int
    label: str
    added: list[str] = field(default_factory=list)  # fact texts
    updated: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    deleted: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)  # over the bound of active facts
    moved_out: list[str] = field(default_factory=list)  # lines that left MEMORY for the fact log
    memory_rewritten: bool = False
    soul_changed: bool = False
    promises_opened: list[str] = field(default_factory=list)
    promises_closed: list[str] = field(default_factory=list)
    series_events: int = 0

    @property
    def empty(self) -> bool:
        return not (
            self.added
            or self.updated
            or self.deleted
            or self.archived
            or self.moved_out
            or self.memory_rewritten
            or self.soul_changed
            or self.promises_opened
            or self.promises_closed
            or self.series_events
        )

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _load(db: sqlite_utils.Database, journal_id: int) -> tuple[str, dict, str | None] | None:
    row = db.conn.execute("SELECT label, changes, undone_at FROM memory_journal WHERE id = ?", (journal_id,)).fetchone()
    if row is None:
        return None
    return row[0], json.loads(row[1]), row[2]


def changes(db: sqlite_utils.Database, journal_id: int) -> Changes | None:
    """What journal entry ``journal_id`` changed, read back from the rows."""
    loaded = _load(db, journal_id)
    if loaded is None:
        return None
    label, data, _ = loaded
    out = Changes(journal_id, label)
    conn = db.conn
    new_facts = set(data["new"].get("facts", []))
    for fid in sorted(new_facts):
        row = conn.execute("SELECT text, replaces FROM facts WHERE id = ?", (fid,)).fetchone()
        if row is None:
            continue
        reason = conn.execute("SELECT reason FROM fact_events WHERE fact_id = ? ORDER BY id LIMIT 1", (fid,)).fetchone()
        if row["replaces"] is not None:
            old = conn.execute("SELECT text FROM facts WHERE id = ?", (row["replaces"],)).fetchone()
            out.updated.append((old["text"] if old else "?", row["text"]))
        elif reason is not None and reason[0] == "moved out of MEMORY":
            out.moved_out.append(row["text"])
        else:
            out.added.append(row["text"])
    for fid, (old, new) in data["changed"].get("facts", {}).items():
        if not new or old[0] == new[0]:
            continue  # only touched (said again)
        text = conn.execute("SELECT text FROM facts WHERE id = ?", (int(fid),)).fetchone()
        text = text[0] if text else "?"
        if new[0] == "deleted":
            out.deleted.append(text)
        elif new[0] == "archived":
            out.archived.append(text)
    for nid in data["new"].get("notes", []):
        row = conn.execute("SELECT kind FROM notes WHERE id = ?", (nid,)).fetchone()
        if row is not None:
            out.memory_rewritten |= row[0] == "memory"
            out.soul_changed |= row[0] == "soul"
    for pid in data["new"].get("promises", []):
        row = conn.execute("SELECT what FROM promises WHERE id = ?", (pid,)).fetchone()
        if row is not None:
            out.promises_opened.append(row[0])
    for pid, (old, new) in data["changed"].get("promises", {}).items():
        if new and old[0] == "open" and new[0] != "open":
            row = conn.execute("SELECT what FROM promises WHERE id = ?", (int(pid),)).fetchone()
            out.promises_closed.append(f"{row[0] if row else '?'} ({new[0]})")
    out.series_events = len(data["new"].get("series_events", []))
    return out


def latest(db: sqlite_utils.Database) -> int | None:
    """The newest journal entry not yet undone."""
    row = db.conn.execute("SELECT id FROM memory_journal WHERE undone_at IS NULL ORDER BY id DESC LIMIT 1").fetchone()
    return int(row[0]) if row else None


# --- undo ------------------------------------------------------------------------------------


def _in_the_way(conn, data: dict) -> str | None:
    """Why the rows the entry wrote can no longer be put back, or None."""
    facts_now = _rows(conn, "facts", FACT_COLUMNS)
    promises_now = _rows(conn, "promises", PROMISE_COLUMNS)
    for fid, (_, after) in data["changed"].get("facts", {}).items():
        if facts_now.get(int(fid)) != after:
            return f"fact #{fid} changed since"
    for fid, after in data["after_new"].get("facts", {}).items():
        if facts_now.get(int(fid)) != after:
            return f"fact #{fid} changed since"
    for pid, (_, after) in data["changed"].get("promises", {}).items():
        if promises_now.get(int(pid)) != after:
            return f"promise #{pid} changed since"
    for pid, after in data["after_new"].get("promises", {}).items():
        if promises_now.get(int(pid)) != after:
            return f"promise #{pid} changed since"
    new_facts = data["new"].get("facts", [])
    if new_facts:
        marks = ", ".join("?" for _ in new_facts)
        later = conn.execute(
            f"SELECT id FROM facts WHERE replaces IN ({marks}) AND id NOT IN ({marks})", new_facts + new_facts
        ).fetchone()
        if later is not None:
            return f"fact #{later[0]} was built on it since"
    for table, column in (("promise_events", "promise_id"), ("fact_events", "fact_id")):
        parents = data["new"].get("promises" if table == "promise_events" else "facts", [])
        own = set(data["new"].get(table, []))
        if parents:
            marks = ", ".join("?" for _ in parents)
            for (eid,) in conn.execute(f"SELECT id FROM {table} WHERE {column} IN ({marks})", parents):
                if eid not in own:
                    return f"{'a promise' if table == 'promise_events' else 'a fact'} it added changed since"
    return None


def undo(db: sqlite_utils.Database) -> Changes:
    """Revert the newest pass not yet undone; what it had changed. Raises NothingToUndo."""
    journal_id = latest(db)
    if journal_id is None:
        raise NothingToUndo("nothing to undo: no memory write pass has stored anything since the last undo")
    said = changes(db, journal_id)
    assert said is not None
    with transaction(db) as conn:
        _, data, undone = _load(db, journal_id)  # type: ignore[misc]
        if undone:
            raise NothingToUndo("nothing to undo: that pass was undone already")
        blocked = _in_the_way(conn, data)
        if blocked:
            raise NothingToUndo(f"cannot undo {said.label}: {blocked}; nothing was changed")
        at = _now()
        log = []
        for table in ADDED:
            ids = data["new"].get(table, [])
            if table == "facts":
                for fid in ids:
                    row = conn.execute("SELECT text FROM facts WHERE id = ?", (fid,)).fetchone()
                    log.append(("REMOVED FACT", fid, row[0] if row else None))
            elif table == "promises":
                for pid in ids:
                    row = conn.execute("SELECT what FROM promises WHERE id = ?", (pid,)).fetchone()
                    log.append(("REMOVED PROMISE", pid, row[0] if row else None))
            elif table == "notes":
                for nid in ids:
                    row = conn.execute("SELECT kind FROM notes WHERE id = ?", (nid,)).fetchone()
                    log.append(("RESTORED " + (row[0].upper() if row else "NOTE"), nid, "the version before this pass"))
            for rid in sorted(ids, reverse=True):
                conn.execute(f"DELETE FROM {table} WHERE id = ?", (rid,))
        for fid, (before, after) in data["changed"].get("facts", {}).items():
            conn.execute("UPDATE facts SET status = ?, touched_at = ? WHERE id = ?", (*before, int(fid)))
            if before[0] != after[0]:
                text = conn.execute("SELECT text FROM facts WHERE id = ?", (int(fid),)).fetchone()
                log.append((f"RESTORED FACT ({after[0]} -> {before[0]})", int(fid), text[0] if text else None))
        for pid, (before, after) in data["changed"].get("promises", {}).items():
            sets = ", ".join(f"{c} = ?" for c in PROMISE_COLUMNS)
            conn.execute(f"UPDATE promises SET {sets} WHERE id = ?", (*before, int(pid)))
            what = conn.execute("SELECT what FROM promises WHERE id = ?", (int(pid),)).fetchone()
            log.append((f"REOPENED PROMISE ({after[0]} -> {before[0]})", int(pid), what[0] if what else None))
        conn.executemany(
            "INSERT INTO undo_events (journal_id, at, kind, ref_id, text) VALUES (?, ?, ?, ?, ?)",
            [(journal_id, at, kind, ref, text) for kind, ref, text in log],
        )
        conn.execute("UPDATE memory_journal SET undone_at = ? WHERE id = ?", (at, journal_id))
    return said


@dataclass
class UndoEvent:
    at: str
    kind: str
    ref_id: int | None
    text: str | None
    label: str


def undo_events(db: sqlite_utils.Database, limit: int | None = None) -> list[UndoEvent]:
    """Reverted changes, newest first."""
    sql = (
        "SELECT u.at, u.kind, u.ref_id, u.text, j.label FROM undo_events u JOIN memory_journal j ON j.id = u.journal_id"
        " ORDER BY u.id DESC"
    )
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [UndoEvent(*r) for r in db.conn.execute(sql)]


def scrub(conn: sqlite3.Connection, fact_ids: set[int], needles: list[str]) -> None:
    """For a forget: journal entries that touched these facts can no longer be
    undone (they would bring the text back), and no undo event keeps the text."""
    for jid, raw in conn.execute("SELECT id, changes FROM memory_journal").fetchall():
        data = json.loads(raw)
        touched = set(data["new"].get("facts", [])) | {int(i) for i in data["changed"].get("facts", {})}
        if touched & fact_ids:
            conn.execute(
                "UPDATE memory_journal SET undone_at = coalesce(undone_at, ?), changes = ? WHERE id = ?",
                (_now(), json.dumps({"new": {}, "changed": {}, "after_new": {}}), jid),
            )
    rows = conn.execute("SELECT id, ref_id, kind, text FROM undo_events WHERE text IS NOT NULL").fetchall()
    for rid, ref, kind, text in rows:
        hit = (kind.endswith("FACT") or "FACT (" in kind) and ref in fact_ids
        if hit or any(n.casefold() in text.casefold() for n in needles):
            conn.execute("UPDATE undo_events SET text = NULL WHERE id = ?", (rid,))
