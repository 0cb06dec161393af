"""Chats and every message in them, verbatim, dated, forever.

The person's own messages hold most answers, so nothing here is ever
rewritten or deleted; the memory passes only read it. The one exception is
the person's own forget (memory/forget.py): ``blank`` empties a message and
marks it forgotten, keeping its row so the ids that point at it stay valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import sqlite_utils

from memory.db import inserted_id, transaction

PRIVATE, TEAM = "private", "team"
DEFAULT_CHAT = "me"

MIGRATIONS = [
    (
        "m001_chats_messages",
        [
            """CREATE TABLE chats (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL CHECK (kind IN ('private', 'team')),
                created_at TEXT NOT NULL
            )""",
            """CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                chat_id INTEGER NOT NULL REFERENCES chats(id),
                role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
                author TEXT NOT NULL,
                text TEXT NOT NULL,
                at TEXT NOT NULL,
                meta TEXT
            )""",
            "CREATE INDEX messages_chat ON messages (chat_id, id)",
        ],
    ),
]


@dataclass
class Chat:
    id: int
    name: str
    kind: str

    @property
    def is_team(self) -> bool:
        return self.kind == TEAM


@dataclass
class StoredMessage:
    id: int
    chat_id: int
    role: Literal["user", "assistant", "tool"]  # the table's CHECK allows these only
    author: str
    text: str
    at: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def when(self) -> datetime:
        return datetime.fromisoformat(self.at)


class ChatKindError(ValueError):
    """A chat was asked for as the other kind than it is; the message says so in one line."""


def get_chat(
    db: sqlite_utils.Database, name: str = DEFAULT_CHAT, kind: str | None = None, now: datetime | None = None
) -> Chat:
    """The chat called ``name``; created with ``kind`` (default private) if it does not exist yet.

    A chat's kind is fixed when it is made and decides its scope (memory/scope.py)
    for good: asking for an existing chat as the other kind is refused, never
    ignored, because a private chat's messages would then be read as a team's (or
    a team chat's turns written into the person's memory).
    """
    if kind not in (None, PRIVATE, TEAM):
        raise ValueError(f"chat kind must be 'private' or 'team', not {kind!r}")
    row = db.conn.execute("SELECT id, name, kind FROM chats WHERE name = ?", (name,)).fetchone()
    if row is None:
        created = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
        with transaction(db) as conn:
            conn.execute(
                "INSERT OR IGNORE INTO chats (name, kind, created_at) VALUES (?, ?, ?)",
                (name, kind or PRIVATE, created),
            )
        row = db.conn.execute("SELECT id, name, kind FROM chats WHERE name = ?", (name,)).fetchone()
    if kind is not None and row["kind"] != kind:
        hint = (
            "start a team chat under a new name, e.g. --chat " + f"{name}-team"
            if kind == TEAM
            else "leave out the kind to open it as it is"
        )
        raise ChatKindError(f"chat {name!r} already exists as a {row['kind']} chat and stays one; {hint}")
    return Chat(row["id"], row["name"], row["kind"])


def list_chats(db: sqlite_utils.Database) -> list[Chat]:
    return [
        Chat(r["id"], r["name"], r["kind"]) for r in db.conn.execute("SELECT id, name, kind FROM chats ORDER BY id")
    ]


def add_message(
    db: sqlite_utils.Database,
    chat: Chat,
    role: str,
    author: str,
    text: str,
    at: datetime,
    meta: dict[str, Any] | None = None,
) -> int:
    """Store one message and return its id. Commits on its own unless the caller holds a transaction."""
    if at.tzinfo is None:
        raise ValueError("message time must carry a time zone")
    with transaction(db) as conn:
        cur = conn.execute(
            "INSERT INTO messages (chat_id, role, author, text, at, meta) VALUES (?, ?, ?, ?, ?, ?)",
            (chat.id, role, author, text, at.isoformat(timespec="seconds"), json.dumps(meta) if meta else None),
        )
        message_id = inserted_id(cur)
        for hook in _AFTER_INSERT:
            hook(conn, message_id, role, text, chat)
    return message_id


# Modules that index messages (full-text search) register here, so adding a
# message updates their index in the same transaction without this module
# knowing about them. They register when imported, and memory.db imports every
# table owner when it opens a store (MEMORY_OWNERS), so no store misses them.
_AFTER_INSERT: list = []


def on_insert(hook) -> None:
    if hook not in _AFTER_INSERT:
        _AFTER_INSERT.append(hook)


def _row(r) -> StoredMessage:
    return StoredMessage(
        r["id"], r["chat_id"], r["role"], r["author"], r["text"], r["at"], json.loads(r["meta"]) if r["meta"] else {}
    )


def recent(db: sqlite_utils.Database, chat: Chat, limit: int = 14) -> list[StoredMessage]:
    """The last ``limit`` user and assistant messages of the chat, oldest first."""
    rows = db.conn.execute(
        "SELECT * FROM messages WHERE chat_id = ? AND role IN ('user', 'assistant') ORDER BY id DESC LIMIT ?",
        (chat.id, limit),
    ).fetchall()
    return [_row(r) for r in reversed(rows)]


def generated_replies(db: sqlite_utils.Database, limit: int = 40) -> list[str]:
    """The last ``limit`` replies a model wrote, in every chat, oldest first: not the lines kept wrote
    itself (meta ``from_code``) nor the honest lines shown after failed generations (``failed``)."""
    rows = db.conn.execute(
        "SELECT text FROM messages WHERE role = 'assistant' AND text != '' AND (meta IS NULL OR "
        "(json_extract(meta, '$.from_code') IS NULL AND json_extract(meta, '$.failed') IS NULL)) "
        "ORDER BY id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [r[0] for r in reversed(rows)]


def since(
    db: sqlite_utils.Database, after_id: int, limit: int | None = None, private_only: bool = True
) -> list[StoredMessage]:
    """Messages with id greater than ``after_id``, oldest first (what a write pass reads)."""
    sql = (
        "SELECT m.* FROM messages m JOIN chats c ON c.id = m.chat_id WHERE m.id > ? AND m.role IN ('user', 'assistant')"
    )
    if private_only:
        sql += " AND c.kind = 'private'"
    sql += " ORDER BY m.id"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [_row(r) for r in db.conn.execute(sql, (after_id,))]


def history(db: sqlite_utils.Database, chat: Chat | None = None, limit: int | None = None) -> list[StoredMessage]:
    """Every stored message (optionally of one chat), oldest first."""
    sql, args = "SELECT * FROM messages", []
    if chat is not None:
        sql += " WHERE chat_id = ?"
        args.append(chat.id)
    sql += " ORDER BY id"
    rows = [_row(r) for r in db.conn.execute(sql, args)]
    return rows[-limit:] if limit else rows


def blank(conn, message_id: int, text: str, at: str) -> None:
    """Replace a message's text with ``text`` and mark it forgotten (inside the caller's transaction)."""
    conn.execute(
        "UPDATE messages SET text = ?, meta = ? WHERE id = ?", (text, json.dumps({"forgotten": at}), message_id)
    )


def get(db: sqlite_utils.Database, message_id: int) -> StoredMessage | None:
    r = db.conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
    return _row(r) if r else None


def last_id(db: sqlite_utils.Database) -> int:
    return db.conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0]
