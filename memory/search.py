"""Raw search: every private message, dated, forever findable; and the facts.

Messages are indexed in an FTS5 table holding their ``memory.text.tokens``
(joined by spaces), so Chinese n-grams, normalised numbers, times and dates
match exactly as they do in recall. The table is contentless (the text lives
in ``messages``) and its rowid is the message id. A hook registered with
``memory.messages.on_insert`` adds each new message inside the insert's own
transaction: adding a message costs one FTS insert, never a rebuild.

Only messages of private chats, from the person or the assistant, are
indexed: tool results would echo old snippets back into later searches, and
team chats are not the person's memory.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from memory import messages
from memory.secrets import redact
from memory.text import query_terms, tokens

TABLE = "message_index"
# A message is indexed up to this many characters (what one message may put into the prompt,
# agent.loop.MAX_MESSAGE_CHARS): a 1 MB pasted log would otherwise take seconds to tokenise.
MAX_INDEXED_CHARS = 100_000


def _indexed_tokens(text: str) -> str:
    if len(text) > MAX_INDEXED_CHARS:
        cut = text[:MAX_INDEXED_CHARS]
        if not text[MAX_INDEXED_CHARS].isspace():  # do not index half a word
            cut = cut[: max(cut.rfind(" "), cut.rfind("\n"), 0)] or cut
        text = cut
    return " ".join(tokens(text))


def _create_and_backfill(conn: sqlite3.Connection) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE {TABLE} USING fts5(tokens, content='', "
        "tokenize = \"unicode61 remove_diacritics 0 tokenchars '.:'\")"
    )
    _backfill(conn)


def _reindex(conn: sqlite3.Connection) -> None:
    # The index holds memory.text.tokens of each message: when tokens change (Snowball stems,
    # lemmas of irregular forms), messages indexed before must be read again or queries miss them.
    conn.execute(f"INSERT INTO {TABLE} ({TABLE}) VALUES ('delete-all')")
    _backfill(conn)


def _backfill(conn: sqlite3.Connection) -> None:
    rows = conn.execute(
        "SELECT m.id, m.text FROM messages m JOIN chats c ON c.id = m.chat_id"
        " WHERE c.kind = 'private' AND m.role IN ('user', 'assistant') ORDER BY m.id"
    ).fetchall()
    conn.executemany(
        f"INSERT INTO {TABLE} (rowid, tokens) VALUES (?, ?)", ((r[0], _indexed_tokens(r[1])) for r in rows)
    )


MIGRATIONS = [("m001_message_index", _create_and_backfill), ("m002_reindex_stems_and_lemmas", _reindex)]


def _index_message(conn: sqlite3.Connection, message_id: int, role: str, text: str, chat) -> None:
    if chat.kind != messages.PRIVATE or role == "tool":
        return
    try:
        conn.execute(f"INSERT INTO {TABLE} (rowid, tokens) VALUES (?, ?)", (message_id, _indexed_tokens(text)))
    except sqlite3.OperationalError as exc:
        # A store opened without this module's migration has no index to keep.
        if "no such table" not in str(exc):
            raise


messages.on_insert(_index_message)


def unindex(conn: sqlite3.Connection, message_id: int, text: str, role: str, chat_kind: str) -> None:
    """Drop a message from the index (a forget), given the text it was indexed with.

    The table is contentless: FTS5 deletes a row by being told its tokens.
    Only what ``_index_message`` indexed is deleted, so the index's counts stay true.
    """
    if chat_kind != messages.PRIVATE or role == "tool":
        return
    conn.execute(
        f"INSERT INTO {TABLE} ({TABLE}, rowid, tokens) VALUES ('delete', ?, ?)", (message_id, _indexed_tokens(text))
    )


def compact(conn: sqlite3.Connection) -> None:
    """Merge the index into one segment, so deleted rows' words are gone from the file, not only marked."""
    conn.execute(f"INSERT INTO {TABLE} ({TABLE}) VALUES ('optimize')")


@dataclass
class Hit:
    kind: str  # "fact" or "message"
    text: str
    date: str  # YYYY-MM-DD
    status: str  # facts: active, superseded, archived; messages: the author
    fact_id: int | None = None
    message_ids: list[int] | None = None
    chat: str | None = None
    score: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "date": self.date, "text": self.text}
        if self.kind == "fact":
            out["status"] = self.status
            out["fact_id"] = self.fact_id
            if self.message_ids:
                out["message_ids"] = self.message_ids
        else:
            out["author"] = self.status
            out["chat"] = self.chat
            out["message_ids"] = self.message_ids
        return out


def _match_expression(terms: list[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


# Which messages search may show: those of private chats, not forgotten. A forgotten message is
# out of the index; the meta check keeps it out whatever the index says.
_PRIVATE_AND_KEPT = "c.kind = 'private' AND (m.meta IS NULL OR json_extract(m.meta, '$.forgotten') IS NULL)"


def _matching(db, terms: list[str], columns: str, limit: int, also: str = "1") -> list[tuple]:
    """``columns`` of the indexed messages matching any of ``terms`` that search may show (and
    ``also``), best BM25 first. The checks come before the limit, so a message they drop does
    not take a place."""
    return db.conn.execute(
        f"SELECT {columns} FROM {TABLE}"
        f" JOIN messages m ON m.id = {TABLE}.rowid JOIN chats c ON c.id = m.chat_id"
        f" WHERE {TABLE} MATCH ? AND {_PRIVATE_AND_KEPT} AND {also}"
        f" ORDER BY bm25({TABLE}) LIMIT ?",
        (_match_expression(terms), int(limit)),
    ).fetchall()


def search_messages(db, query: str, limit: int = 10) -> list[Hit]:
    """Private messages that match ``query`` (any of its tokens), best BM25 first."""
    terms = query_terms(query)
    if not terms:
        return []
    rows = _matching(db, terms, f"m.id, m.text, m.at, m.author, c.name, -bm25({TABLE})", limit)
    return [
        Hit(
            "message",
            snippet(redact(r[1]), terms),
            r[2][:10],
            r[3],
            message_ids=[r[0]],
            chat=r[4],
            score=round(r[5], 4),
        )
        for r in rows
    ]


def own_messages(db, query: str, limit: int = 50) -> list[messages.StoredMessage]:
    """The person's own messages (role user, private chats, not forgotten) matching ``query``, best BM25 first.

    Unlike ``search_messages`` the text is whole and not redacted: the caller
    (memory.said) cuts and redacts what it quotes."""
    terms = query_terms(query)
    if not terms:
        return []
    # The role is checked before the limit too: the assistant's longer replies would take the places.
    rows = _matching(db, terms, "m.id, m.chat_id, m.author, m.text, m.at", limit, "m.role = 'user'")
    return [messages.StoredMessage(r[0], r[1], "user", r[2], r[3], r[4]) for r in rows]


def search_facts(db, query: str, limit: int = 10) -> list[Hit]:
    """Facts of any status but deleted, ranked by BM25, each marked with its status."""
    from memory.facts import ACTIVE, ARCHIVED, SUPERSEDED, by_status
    from memory.recall import fact_body, rank

    facts = by_status(db, ACTIVE, SUPERSEDED, ARCHIVED)
    if not facts:
        return []
    ranked = rank(query, [fact_body(f.text) for f in facts], limit)
    return [
        Hit(
            "fact",
            redact(facts[i].text),
            facts[i].said_on[:10],
            facts[i].status,
            fact_id=facts[i].id,
            message_ids=list(facts[i].source_ids),
            score=round(score, 4),
        )
        for i, score in ranked
    ]


def search(db, query: str, limit: int = 10) -> list[Hit]:
    """Facts first (they are distilled), then the messages they may have missed."""
    return search_facts(db, query, limit) + search_messages(db, query, limit)


def snippet(text: str, terms: list[str], width: int = 240) -> str:
    """The part of ``text`` around its first matching word, at most ``width`` characters."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    wanted = set(terms)
    words = text.split(" ")
    pos = 0
    for w in words:
        if wanted.intersection(tokens(w)):
            break
        pos += len(w) + 1
    else:
        pos = 0
    start = max(0, min(pos - width // 3, len(text) - width))
    piece = text[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
