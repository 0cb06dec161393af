"""The write pass: rewrite MEMORY, extract and reconcile facts, promises, series.

Staged so that model calls never hold the write lock: every stage first
*plans* (model calls and reads, no writes), then all plans apply in ONE
transaction that also advances the cursor. So a pass is at-least-once:
a model error, an unparseable reply, a crash or kill -9 before that commit
leaves the cursor where it was, and the next pass rereads the same messages;
facts are deduplicated by their normalised text and date, so a reread adds
nothing twice.

Only one pass runs at a time, across processes: a lease row in ``state``
is claimed in a short transaction, carries an expiry and its holder's pid
and host (so a killed pass does not block the next one), and is checked
again inside the commit.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta

import sqlite_utils

from memory import embedded_writer, promises, reconcile, series, state, summary, undo
from memory import messages as store
from memory.db import transaction
from memory.secrets import redact
from memory.stages import Batch

# The stages of a pass, in the order they plan and apply (memory/stages.py says what each has).
STAGES = (summary, reconcile, promises, series)
# For a memory model that writes memory badly (agent/models/choices.py ``memory_in_code``):
# facts, SOUL and MEMORY in code (memory/embedded_writer.py), then the same ledgers with their
# plans read in code too (promises.IN_CODE, series.IN_CODE): a pass makes no model call. This is
# the one place where a model's stages are chosen; the hosted path keeps its model calls.
IN_CODE_STAGES = (embedded_writer, promises.IN_CODE, series.IN_CODE)

CURSOR = "writer.cursor"  # id of the last message a committed pass read
LAST_PASS = "writer.last_pass_at"
LEASE = "writer.lease"
LEASE_SECONDS = 15 * 60

# One pass reads at most this much; a forced rewrite runs passes until caught up.
MAX_MESSAGES = 150
MAX_CHARS = 40_000
MAX_MESSAGE_CHARS = 4_000  # one pasted log must not crowd out the rest


class PassAborted(Exception):
    """The pass lost its lease or another pass committed first; nothing was written."""


@dataclass
class Schedule:
    every_turns: int = 8
    min_user_turns: int = 4
    min_hours: float = 3.0


@dataclass
class PassResult:
    ran: bool
    reason: str
    messages: int = 0
    cursor_from: int = 0
    cursor_to: int = 0
    note_changed: bool = False
    soul_changed: bool = False
    overflow: int = 0
    added: int = 0
    updated: int = 0
    deleted: int = 0
    archived: int = 0
    candidates: int = 0
    already_kept: int = 0
    unused_decisions: int = 0
    remaining: int = 0  # private messages still unread after this pass
    extra: dict = field(default_factory=dict)  # what promises and series report


def _now() -> datetime:
    return datetime.now().astimezone()


def cursor(db: sqlite_utils.Database) -> int:
    return int(state.get(db, CURSOR) or 0)


def last_pass_at(db: sqlite_utils.Database) -> datetime | None:
    raw = state.get(db, LAST_PASS)
    return datetime.fromisoformat(raw) if raw else None


def reread_from(db: sqlite_utils.Database, message_id: int) -> None:
    """Move the cursor back so the next pass reads messages from ``message_id`` on again."""
    with transaction(db):
        if cursor(db) >= message_id:
            state.put(db, CURSOR, str(message_id - 1))


def pending(db: sqlite_utils.Database) -> list[store.StoredMessage]:
    """Private messages no committed pass has read yet (team chats are never written to memory)."""
    return store.since(db, cursor(db), private_only=True)


def due(db: sqlite_utils.Database, schedule: Schedule, now: datetime | None = None) -> tuple[bool, str]:
    """Whether a pass should run now, and why (or why not)."""
    now = now or _now()
    new = pending(db)
    users = sum(1 for m in new if m.role == "user")
    if len(new) < schedule.every_turns:
        return False, f"{len(new)} new turns, a pass waits for {schedule.every_turns}"
    if users < schedule.min_user_turns:
        return False, f"{users} new turns from the person, a pass waits for {schedule.min_user_turns}"
    last = last_pass_at(db)
    if last is not None and last.tzinfo is None:
        last = last.astimezone()
    if last is not None and last > now + timedelta(minutes=1):
        # A clock that was ahead dated the last pass in the future; waiting for it would stop
        # passes until that day comes. It counts as now: passes wait min_hours from here.
        logging.getLogger("kept.memory").warning(
            "the last memory pass is dated %s, in the future (was the clock ahead?); counting it as now",
            last.isoformat(timespec="minutes"),
        )
        state.put(db, LAST_PASS, now.isoformat())
        last = now
    if last is not None and now - last < timedelta(hours=schedule.min_hours):
        return (
            False,
            f"the last pass was {(now - last).total_seconds() / 3600:.1f} h ago, passes wait {schedule.min_hours:g} h",
        )
    return True, f"{len(new)} new turns, {users} from the person"


# --- the lease ------------------------------------------------------------


def _read_lease(conn) -> dict:
    row = conn.execute("SELECT value FROM state WHERE key = ?", (LEASE,)).fetchone()
    try:
        return json.loads(row[0]) if row and row[0] else {}
    except ValueError:
        return {}


def _holder_gone(lease: dict) -> bool:
    """The lease's process is known to be dead (same host, no such pid): it can never commit."""
    if lease.get("host") != socket.gethostname() or not isinstance(lease.get("pid"), int):
        return False
    try:
        os.kill(lease["pid"], 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, but another user's
        return False
    return False


def claim(db: sqlite_utils.Database, owner: str, now: datetime | None = None, seconds: int = LEASE_SECONDS) -> bool:
    """Take (or renew) the pass lease; False when another live pass holds it.

    A lease lapses at its expiry, or at once when its process is gone (a
    pass killed with -9 must not block the next one for the whole lease).
    """
    now = now or _now()
    with transaction(db) as conn:
        lease = _read_lease(conn)
        if (
            lease
            and lease.get("owner") != owner
            and datetime.fromisoformat(lease["expires"]) > now
            and not _holder_gone(lease)
        ):
            return False
        state.put(
            db,
            LEASE,
            json.dumps(
                {
                    "owner": owner,
                    "expires": (now + timedelta(seconds=seconds)).isoformat(),
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                }
            ),
        )
        return True


def release(db: sqlite_utils.Database, owner: str) -> None:
    with transaction(db) as conn:
        if _read_lease(conn).get("owner") == owner:
            state.put(db, LEASE, "")


def _holds(conn, owner: str, now: datetime) -> bool:
    lease = _read_lease(conn)
    return lease.get("owner") == owner and datetime.fromisoformat(lease["expires"]) > now


# --- the pass -------------------------------------------------------------


def _batch(messages: list[store.StoredMessage]) -> list[store.StoredMessage]:
    out: list[store.StoredMessage] = []
    size = 0
    for m in messages:
        size += min(len(m.text), MAX_MESSAGE_CHARS)
        if out and (len(out) >= MAX_MESSAGES or size > MAX_CHARS):
            break
        out.append(m)
    return out


def transcript(messages: list[store.StoredMessage]) -> str:
    """Messages numbered from 1 (never by id), dated, redacted: what the memory model reads."""
    lines = []
    for n, m in enumerate(messages, 1):
        text = redact(m.text)
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS] + " […]"
        # "me" is how the person is stored; to the memory model it is "person".
        who = "assistant" if m.role == "assistant" else ("person" if m.author in ("me", "") else m.author)
        lines.append(f"[{n}] {m.at[:16].replace('T', ' ')} {who}: {text}")
    return "\n".join(lines)


def run_pass(
    db: sqlite_utils.Database,
    llm,
    *,
    cap: int,
    max_active: int,
    schedule: Schedule | None = None,
    force: bool = False,
    now: datetime | None = None,
    progress: Callable[[str], None] | None = None,
    before_commit: Callable[[], None] | None = None,
    in_code: bool = False,
) -> PassResult:
    """Run one write pass if one is due (always when ``force``); see the module docstring.

    ``before_commit`` runs after every model call and before the commit; tests
    use it to fail a pass at the last moment. ``in_code``: facts, SOUL and
    MEMORY are written by memory/embedded_writer.py (the model only judges
    SOUL requests), and a ledger stage whose bounded call fails is skipped
    and reported rather than failing the pass.
    """
    say = progress or (lambda _msg: None)
    now = now or _now()
    if not force:
        ok, why = due(db, schedule or Schedule(), now)
        if not ok:
            return PassResult(False, why)
    owner = uuid.uuid4().hex
    # The lease runs on the wall clock, whatever ``now`` the pass is told it is.
    if not claim(db, owner):
        return PassResult(False, "another write pass is running")
    try:
        start = cursor(db)
        unread = store.since(db, start, private_only=True)
        if not unread:
            return PassResult(False, "no new messages")
        batch = _batch(unread)
        result = PassResult(
            True,
            "forced" if force else "due",
            messages=len(batch),
            cursor_from=start,
            cursor_to=batch[-1].id,
            remaining=len(unread) - len(batch),
        )
        work = Batch(
            batch, transcript(batch), cap=cap, max_active=max_active, hosted=bool(getattr(llm, "hosted", False))
        )
        today = now.date()
        if work.hosted:
            # A hosted model reads the commitments in the extraction call itself.
            work.read["extract_with"] = promises.READ_WITH_FACTS
        plans = []
        for stage in IN_CODE_STAGES if in_code else STAGES:
            say(f"{stage.DOING} from {len(batch)} messages")
            try:
                plans.append((stage, stage.plan(db, work, llm, today)))
            except Exception as exc:
                if not in_code or stage is embedded_writer or getattr(exc, "kind", None) == "cancelled":
                    raise
                # A small model's bounded call may not fit: the facts still commit, and the report says so.
                result.extra[stage.NAME] = f"skipped: {type(exc).__name__}: {exc}"
            _renew(db, owner)

        if before_commit:
            before_commit()
        say("committing")
        with transaction(db) as conn:
            if not _holds(conn, owner, _now()):
                raise PassAborted("the write pass lost its lease; nothing was written")
            if cursor(db) != start:
                raise PassAborted("another write pass committed these messages first; nothing was written")
            before = undo.snapshot(conn)  # what the pass changes is journaled, so /undo can revert it
            for stage, plan in plans:
                _report(result, stage.NAME, stage.apply(conn, plan))
            result.extra["journal_id"] = undo.record(
                conn, before, f"the write pass over messages {batch[0].id}-{batch[-1].id}"
            )
            state.put(db, CURSOR, str(batch[-1].id))
            state.put(db, LAST_PASS, now.isoformat())
            state.put(db, LEASE, "")
        return result
    finally:
        release(db, owner)


_RESULT_FIELDS = {f.name for f in fields(PassResult)}


def _report(result: PassResult, name: str, counts: dict) -> None:
    """A stage's counts: those PassResult names go there (note_changed, added, ...), the rest under extra[name]."""
    own = {k: v for k, v in counts.items() if k not in _RESULT_FIELDS}
    for key, value in counts.items():
        if key in _RESULT_FIELDS:
            setattr(result, key, value)
    if own:
        result.extra[name] = own


def _renew(db: sqlite_utils.Database, owner: str) -> None:
    if not claim(db, owner):
        raise PassAborted("another write pass took over the lease; nothing was written")


def run_until_caught_up(
    db: sqlite_utils.Database,
    llm,
    *,
    cap: int,
    max_active: int,
    progress: Callable[[str], None] | None = None,
    max_passes: int = 100,
) -> list[PassResult]:
    """Forced passes until every private message has been read (``kept memory rewrite``)."""
    results = []
    for _ in range(max_passes):
        result = run_pass(db, llm, cap=cap, max_active=max_active, force=True, progress=progress)
        results.append(result)
        if not result.ran or result.remaining == 0:
            break
    return results
