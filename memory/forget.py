"""Forget that forgets: a fact, or every fact and message holding some text.

A forget reaches every place the text lives:

- the fact (every version of it, and any other fact that says the same in
  other words) is marked deleted and its text blanked,
  its events keep only what happened and when (their texts go), and a
  DELETE event says it was forgotten;
- the messages it came from (a fact's source messages and the replies of
  those turns; for ``--matching``, every message holding the text) are
  blanked, marked forgotten and dropped from the full-text index, so
  ``search_memory``, ``kept history`` and exports no longer carry them;
- MEMORY is rewritten without it: the current note by the memory model when
  one is given (its reply is checked, and lines still holding the text are
  removed), every older version and SOUL by removing the lines that hold it;
- promises and counted events that came from those messages or hold the
  text, undo records and model-call errors that hold it are blanked.

What stays is a row in ``forgets``: when, and how many facts and messages.
Outbox, calendar and task rows are records of actions taken, not memory,
and are left alone.
"""

from __future__ import annotations

import re
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlite_utils
from pydantic import Field

from memory import facts as fact_log
from memory import messages, search, summary, undo
from memory.db import transaction
from memory.recall import fact_body
from memory.replies import Reply, Text, ask
from memory.text import tokens

MIGRATIONS = [
    (
        "m001_forgets",
        [
            """CREATE TABLE forgets (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                facts INTEGER NOT NULL,
                messages INTEGER NOT NULL
            )""",
        ],
    ),
]

BLANK = "(forgotten)"
# A MEMORY line holds a fact when it has this share of the fact's words (or the text itself).
LINE_SHARE = 0.6


class NotFound(LookupError):
    """No such fact, or nothing holds the text; the message says which, in one line."""


class Busy(RuntimeError):
    """A write pass is running: it could store again what is being forgotten."""


# How long a forget waits for a running write pass to end before it refuses.
WAIT_FOR_PASS_SECONDS = 30.0


@dataclass
class Target:
    """What one forget will blank."""

    needles: list[str]  # the texts that must not survive anywhere
    fact_ids: set[int] = field(default_factory=set)
    message_ids: set[int] = field(default_factory=set)


@dataclass
class Forgotten:
    facts: int
    messages: int
    memory_lines: int
    at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def holds(text: str, needle: str) -> bool:
    """Whether ``text`` holds ``needle``: the words themselves (any case and
    spacing), or most of the needle's words when it is a whole fact."""
    flat = " ".join(text.casefold().split())
    if " ".join(needle.casefold().split()) in flat:
        return True
    # A fact's added date note ("(2026-12-04)") is not what a line says about it.
    wanted = set(tokens(re.sub(r"\([^)]*\)", " ", needle)))
    if len(wanted) < 3:
        return False
    have = set(tokens(text))
    shared = len(wanted & have)
    # Most of the fact is in the line, or the line (three words or more) is mostly the fact.
    return shared >= LINE_SHARE * len(wanted) or (shared >= 3 and shared >= LINE_SHARE * len(have))


def _lineage_ids(db: sqlite_utils.Database, fact_id: int) -> set[int]:
    """Every version of the fact: the ones it replaced and the ones that replaced it."""
    ids = {f.id for f in fact_log.lineage(db, fact_id)}
    frontier = [fact_id]
    while frontier:
        nxt = [
            r[0]
            for r in db.conn.execute(
                f"SELECT id FROM facts WHERE replaces IN ({', '.join('?' for _ in frontier)})", frontier
            )
        ]
        frontier = [i for i in nxt if i not in ids]
        ids.update(frontier)
    return ids


def _turn_of(db: sqlite_utils.Database, message_id: int) -> set[int]:
    """A message and what answered it in its chat (up to the person's next message)."""
    row = db.conn.execute("SELECT chat_id FROM messages WHERE id = ?", (message_id,)).fetchone()
    if row is None:
        return set()
    ids = {message_id}
    for r in db.conn.execute(
        "SELECT id, role FROM messages WHERE chat_id = ? AND id > ? ORDER BY id LIMIT 20", (row[0], message_id)
    ):
        if r[1] == "user":
            break
        ids.add(int(r[0]))
    return ids


def _messages_holding(db: sqlite_utils.Database, needles: list[str]) -> set[int]:
    found = set()
    for r in db.conn.execute("SELECT id, text FROM messages"):
        if r[1] != BLANK and any(" ".join(n.casefold().split()) in " ".join(r[1].casefold().split()) for n in needles):
            found.add(int(r[0]))
    return found


def for_fact(db: sqlite_utils.Database, fact_id: int) -> Target:
    fact = fact_log.get(db, fact_id)
    if fact is None:
        raise NotFound(f"no fact #{fact_id}; `kept memory facts --all` lists them")
    if fact.text == BLANK:
        raise NotFound(f"fact #{fact_id} was forgotten already")
    ids = _lineage_ids(db, fact_id)
    needles = [fact_body(f.text) for f in (fact_log.get(db, i) for i in sorted(ids)) if f and f.text != BLANK]
    # The same fact kept again in other words ("Atlas ships Nov 17") would still answer for it.
    for other in fact_log.by_status(db):
        if other.id not in ids and other.text != BLANK and any(holds(fact_body(other.text), n) for n in needles):
            ids |= _lineage_ids(db, other.id)
    versions = [fact_log.get(db, i) for i in sorted(ids)]
    target = Target([fact_body(f.text) for f in versions if f and f.text != BLANK], ids)
    for f in versions:
        for mid in f.source_ids if f else []:
            target.message_ids |= _turn_of(db, int(mid))
    # A tool result or a reply that quoted the fact word for word goes too.
    target.message_ids |= _messages_holding(db, target.needles)
    return target


def for_text(db: sqlite_utils.Database, text: str) -> Target:
    needle = " ".join(text.split())
    if len(needle) < 2:
        raise NotFound("give at least two characters to match")
    target = Target([needle])
    for f in fact_log.by_status(db):
        if f.text != BLANK and needle.casefold() in " ".join(f.text.casefold().split()):
            target.fact_ids |= _lineage_ids(db, f.id)
    target.message_ids = _messages_holding(db, [needle])
    if not target.fact_ids and not target.message_ids and not _anywhere_else(db, target.needles):
        raise NotFound(f"nothing kept holds {needle!r}")
    return target


def _anywhere_else(db: sqlite_utils.Database, needles: list[str]) -> bool:
    notes = [r[0] for r in db.conn.execute("SELECT text FROM notes")]
    return any(holds(n, needle) for n in notes for needle in needles)


# --- MEMORY without it ---------------------------------------------------------------------

REWRITE_SYSTEM = """You maintain MEMORY, a short note about one person. The person asked kept to \
forget something. Return the note with everything that states, repeats or implies the forgotten \
items removed; keep every other line exactly as it is. Answer only by calling the tool {tool}."""


def drop_lines(note: str, needles: list[str]) -> tuple[str, int]:
    """The note without the lines that hold any needle, and how many went."""
    kept, dropped = [], 0
    for line in note.splitlines():
        if line.strip() and not line.startswith("## ") and any(holds(line, n) for n in needles):
            dropped += 1
            continue
        kept.append(line)
    if not dropped:
        return note, 0
    # A section left with no lines loses its heading too.
    return summary.render(summary.parse("\n".join(kept))) if note.lstrip().startswith("## ") else "\n".join(
        kept
    ), dropped


class Rewritten(Reply):
    """The MEMORY sections, rewritten without what is forgotten (the summary's own fields, nothing else)."""

    who: Text = Field(description="Who they are.")
    asked: Text = Field(description="What they asked for (standing work requests).")
    keep: Text = Field(description="What to keep: durable, current facts.")
    lately: Text = Field(description="Recent happenings, one dated line each, oldest first.")


def rewrite(llm: Callable | None, note: str, needles: list[str]) -> tuple[str, int]:
    """MEMORY without the needles: the memory model's rewrite when ``llm`` is
    given (checked: lines still holding them go too), else the lines removed.
    A failing model raises; the caller may fall back to ``drop_lines``."""
    if not note or not any(holds(line, n) for line in note.splitlines() for n in needles):
        return note, 0
    if llm is None:
        return drop_lines(note, needles)
    reply = ask(
        llm,
        Rewritten,
        purpose="memory.forget",
        system=REWRITE_SYSTEM.format(tool=summary.TOOL),
        prompt="Forget:\n" + "\n".join(f"- {n}" for n in needles) + f"\n\nMEMORY:\n{note}",
        name=summary.TOOL,
        max_tokens=4096,
    )
    rewritten = summary.render({k: getattr(reply, k) for k, _ in summary.SECTIONS})
    checked, _ = drop_lines(rewritten, needles)
    before = sum(1 for ln in note.splitlines() if ln.strip() and not ln.startswith("## "))
    after = sum(1 for ln in checked.splitlines() if ln.strip() and not ln.startswith("## "))
    return checked, max(before - after, 1)


# --- the forget itself -------------------------------------------------------------------------


def _blank_messages(conn: sqlite3.Connection, ids: set[int], at: str) -> None:
    for mid in sorted(ids):
        row = conn.execute(
            "SELECT m.id, m.role, m.text, c.kind FROM messages m JOIN chats c ON c.id = m.chat_id WHERE m.id = ?",
            (mid,),
        ).fetchone()
        if row is None or row["text"] == BLANK:
            continue
        search.unindex(conn, mid, row["text"], row["role"], row["kind"])
        messages.blank(conn, mid, BLANK, at)


def _blank_facts(conn: sqlite3.Connection, ids: set[int], at: str) -> None:
    for fid in sorted(ids):
        # The events stay (something was added, changed, when), their texts go.
        conn.execute("UPDATE fact_events SET old_text = NULL, new_text = NULL WHERE fact_id = ?", (fid,))
        conn.execute(
            "UPDATE facts SET text = ?, status = 'deleted', source_ids = '[]', touched_at = ? WHERE id = ?",
            (BLANK, at, fid),
        )
        conn.execute(
            "INSERT INTO fact_events (fact_id, event, old_text, new_text, at, reason)"
            " VALUES (?, 'DELETE', NULL, NULL, ?, 'forgotten on request')",
            (fid, at),
        )


def _scrub_text_columns(conn: sqlite3.Connection, needles: list[str], message_ids: set[int]) -> None:
    """Promises, counted events, fact events and model-call errors that still hold the text."""

    def hit(value) -> bool:
        return isinstance(value, str) and any(holds(value, n) for n in needles)

    for r in conn.execute("SELECT id, old_text, new_text FROM fact_events").fetchall():
        if hit(r[1]) or hit(r[2]):
            conn.execute(
                "UPDATE fact_events SET old_text = CASE WHEN ? THEN NULL ELSE old_text END,"
                " new_text = CASE WHEN ? THEN NULL ELSE new_text END WHERE id = ?",
                (hit(r[1]), hit(r[2]), r[0]),
            )
    for r in conn.execute(
        "SELECT id, who, to_whom, what, evidence, opened_message_id, evidence_message_id FROM promises"
    ).fetchall():
        if r[5] in message_ids or r[6] in message_ids or any(hit(v) for v in r[1:5]):
            conn.execute(
                "UPDATE promises SET what = ?, to_whom = NULL, evidence = ?, status = CASE status WHEN 'open'"
                " THEN 'dropped' ELSE status END, closed_on = coalesce(closed_on, ?) WHERE id = ?",
                (BLANK, BLANK, _now()[:10], r[0]),
            )
            conn.execute("UPDATE promise_events SET note = NULL WHERE promise_id = ?", (r[0],))
    for r in conn.execute("SELECT id, note FROM promise_events WHERE note IS NOT NULL").fetchall():
        if hit(r[1]):
            conn.execute("UPDATE promise_events SET note = NULL WHERE id = ?", (r[0],))
    for r in conn.execute("SELECT id, message_id, text FROM series_events").fetchall():
        if r[1] in message_ids or hit(r[2]):
            conn.execute("UPDATE series_events SET text = NULL WHERE id = ?", (r[0],))
    for r in conn.execute("SELECT id, name FROM series").fetchall():
        if hit(r[1]):
            conn.execute("UPDATE series SET name = ? WHERE id = ?", (BLANK, r[0]))
    for r in conn.execute("SELECT id, error FROM model_calls WHERE error IS NOT NULL").fetchall():
        if hit(r[1]):
            conn.execute("UPDATE model_calls SET error = NULL WHERE id = ?", (r[0],))


def forget(db: sqlite_utils.Database, target: Target, llm: Callable | None = None) -> Forgotten:
    """Blank everything ``target`` names, in one transaction (see the module docstring).

    The memory model (``llm``) is called before the transaction; when it
    fails, the lines holding the text are removed instead. The forget holds
    the write pass's lease throughout: a pass that read the messages before
    they were blanked must not commit what it learned from them afterwards.
    """
    from memory import writer

    owner = "forget-" + uuid.uuid4().hex
    deadline = time.monotonic() + WAIT_FOR_PASS_SECONDS
    while not writer.claim(db, owner):
        if time.monotonic() > deadline:
            raise Busy("a memory write pass is running; nothing was forgotten. Try again when it has finished.")
        time.sleep(0.5)
    try:
        return _forget(db, target, llm)
    finally:
        writer.release(db, owner)


def _forget(db: sqlite_utils.Database, target: Target, llm: Callable | None) -> Forgotten:
    current = summary.current(db)
    try:
        new_note, moved = rewrite(llm, current, target.needles)
    except Exception:  # no model reachable, or an unusable reply: the lines go by rule
        new_note, moved = drop_lines(current, target.needles)
    at = _now()
    # Freed and overwritten pages are zeroed, so the old text is not left in the file's free space.
    db.conn.execute("PRAGMA secure_delete = ON")
    with transaction(db) as conn:
        _blank_facts(conn, target.fact_ids, at)
        _blank_messages(conn, target.message_ids, at)
        for r in conn.execute("SELECT id, kind, text FROM notes ORDER BY id").fetchall():
            text, _ = drop_lines(r["text"], target.needles)
            if r["text"] == current and r["kind"] == "memory" and r["id"] == _latest_memory_id(conn):
                text = new_note
            if text != r["text"]:
                conn.execute("UPDATE notes SET text = ? WHERE id = ?", (text, r["id"]))
        _scrub_text_columns(conn, target.needles, target.message_ids)
        undo.scrub(conn, target.fact_ids, target.needles)
        conn.execute(
            "INSERT INTO forgets (at, facts, messages) VALUES (?, ?, ?)",
            (at, len(target.fact_ids), len(target.message_ids)),
        )
        search.compact(conn)  # the index's old segments still hold the deleted words until merged
    # The WAL keeps copies of the old pages until a checkpoint writes them back and truncates it.
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Forgotten(len(target.fact_ids), len(target.message_ids), moved, at)


def _latest_memory_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT max(id) FROM notes WHERE kind = 'memory'").fetchone()
    return row[0] if row else None


def log(db: sqlite_utils.Database) -> list[dict]:
    """Every forget: when, how many facts and messages (never what)."""
    return [dict(r) for r in db.conn.execute("SELECT at, facts, messages FROM forgets ORDER BY id DESC")]
