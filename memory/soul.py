"""SOUL: only what the person asked for about how to be treated.

Name or nickname, tone, format rules ("no bullet points"), language. The
default persona lives in code (agent/context.py) and never in this note, so
no rewrite can erase it. The note is always in the prompt, so it stays short.
Every version is kept in ``notes``.
"""

from __future__ import annotations

import sqlite_utils

from memory import notes
from memory.db import transaction
from memory.secrets import redact

MIGRATIONS: list = []  # SOUL is stored in memory.notes

MAX_CHARS = 2000  # always in the prompt: a long SOUL would crowd out everything else


class SoulTooLong(ValueError):
    pass


def current(db: sqlite_utils.Database) -> str:
    note = notes.latest(db, notes.SOUL)
    return note.text if note else ""


def render(db: sqlite_utils.Database) -> str:
    """The SOUL note as it goes into the prompt; empty when nothing was asked."""
    return current(db).strip()


def clean(text: str) -> str:
    """Redacted, trimmed, refused when longer than ``MAX_CHARS``."""
    text = redact(text).strip()
    if len(text) > MAX_CHARS:
        raise SoulTooLong(f"SOUL is {len(text)} characters; keep it under {MAX_CHARS} (it is in every prompt)")
    return text


def save(conn, text: str, reason: str) -> int | None:
    """Store a new version inside the caller's transaction (None when unchanged)."""
    return notes.save(conn, notes.SOUL, clean(text), reason)


def set_text(db: sqlite_utils.Database, text: str, reason: str = "edited by the person") -> bool:
    """Replace SOUL with ``text``; True when a new version was stored."""
    with transaction(db) as conn:
        return save(conn, text, reason) is not None


def history(db: sqlite_utils.Database) -> list[notes.Note]:
    return notes.history(db, notes.SOUL)
