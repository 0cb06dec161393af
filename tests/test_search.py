"""memory.search and the search_memory tool: FTS5 over private messages, facts of every status."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory import messages, search
from memory.db import transaction
from tools.base import ToolContext, ToolError
from tools.memory_search import TOOLS

AT = datetime(2026, 10, 7, 9, 30, tzinfo=UTC)


def _say(db, text, chat=None, role="user"):
    chat = chat or messages.get_chat(db)
    return messages.add_message(db, chat, role, "me", text, AT)


def _fact(db, text, status="active"):
    with transaction(db) as conn:
        return conn.execute(
            "INSERT INTO facts (text, said_on, status, source_ids, created_at, touched_at) VALUES (?, ?, ?, '[7]', ?, ?)",
            (text, text[:10], status, "2026-10-07", "2026-10-07"),
        ).lastrowid


def _ctx(db, team=False):
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Europe/Berlin")
    return ToolContext(db=db, now=AT.astimezone(tz), tz=tz, chat_name="team-x" if team else "me", chat_is_team=team)


def _tool():
    (tool,) = [t for t in TOOLS if t.name == "search_memory"]
    return tool


def test_a_new_message_is_searchable_at_once(db):
    mid = _say(db, "The Billing cutover moved to November 10.")
    hits = search.search_messages(db, "when is the billing cutover")
    assert [h.message_ids for h in hits] == [[mid]]
    assert hits[0].date == "2026-10-07"


def test_numbers_chinese_and_times_match_across_spellings(db):
    money = _say(db, "Budget approved: $5,000 for the Q3 offsite.")
    chinese = _say(db, "我们和华为的续签会议定在下周三上午十点。")
    assert search.search_messages(db, "5k budget")[0].message_ids == [money]
    hits = search.search_messages(db, "华为续签会议 10am")
    assert hits[0].message_ids == [chinese]


def test_team_chat_and_tool_messages_are_not_indexed(db):
    team = messages.get_chat(db, "eng", kind=messages.TEAM)
    _say(db, "Orion launch secret date is June 3.", chat=team)
    _say(db, '{"facts": ["Orion launch ..."]}', role="tool")
    assert search.search_messages(db, "Orion launch") == []


def test_a_message_marked_forgotten_takes_no_place_in_the_limit(db):
    import json

    kept = _say(db, "The Vega budget review is on Friday.")
    dropped = [_say(db, f"Vega budget Vega budget note {i}") for i in range(3)]
    # Marked forgotten but (as after an interrupted forget) still in the index, and matching better.
    with transaction(db) as conn:
        for mid in dropped:
            conn.execute("UPDATE messages SET meta = ? WHERE id = ?", (json.dumps({"forgotten": True}), mid))
    assert [h.message_ids for h in search.search_messages(db, "Vega budget", limit=1)] == [[kept]]


def test_messages_stored_before_the_index_existed_are_backfilled(kept_home):
    from agent.session import open_store
    from memory.db import MEMORY_OWNERS, open_db

    path = kept_home / "old.db"
    db = open_db(path, owners=tuple(o for o in MEMORY_OWNERS if o != "memory.search"))
    mid = _say(db, "The Helios pipeline runs nightly at 2am UTC.")  # no index table yet: skipped, not failed
    db.conn.close()
    db = open_store(path)
    assert search.search_messages(db, "Helios pipeline")[0].message_ids == [mid]


def test_search_memory_marks_each_fact_status(db):
    _fact(db, "2026-09-02: The Billing cutover is on October 20.", status="superseded")
    _fact(db, "2026-09-20: The Billing cutover moved to November 10.")
    _fact(db, "2026-03-01: The Billing cutover owner was Sam.", status="archived")
    _fact(db, "2026-03-02: The Billing cutover is cancelled.", status="deleted")
    result = _tool().call(_ctx(db), {"query": "Billing cutover"})
    statuses = sorted(f["status"] for f in result["facts"])
    assert statuses == ["active", "archived", "superseded"]
    assert all(f["date"] and f["text"][:4] == "2026" for f in result["facts"])


def test_search_memory_returns_dated_message_snippets_with_ids(db):
    long_text = "Notes from the sync. " + "Filler words here. " * 40 + "The Zephyr project uses Terraform for infra."
    mid = _say(db, long_text)
    result = _tool().call(_ctx(db), {"query": "Zephyr Terraform"})
    (hit,) = result["messages"]
    assert hit["message_ids"] == [mid] and hit["date"] == "2026-10-07"
    assert "Zephyr" in hit["text"] and len(hit["text"]) <= 242


def test_search_memory_is_refused_in_a_team_chat(db):
    _fact(db, "2026-09-20: The Billing cutover moved to November 10.")
    with pytest.raises(ToolError, match="team chat"):
        _tool().call(_ctx(db, team=True), {"query": "Billing cutover"})


def test_search_memory_says_when_nothing_matches(db):
    result = _tool().call(_ctx(db), {"query": "dog's name"})
    assert result["facts"] == [] and result["messages"] == [] and "nothing" in result["note"]


def test_adding_a_message_does_not_rebuild_the_index(db):
    for i in range(20):
        _say(db, f"status update {i}")
    before = db.conn.execute("SELECT count(*) FROM message_index_data").fetchone()[0]
    _say(db, "one more status update")
    after = db.conn.execute("SELECT count(*) FROM message_index_data").fetchone()[0]
    # One new row segment at most; a rebuild would rewrite the segments instead.
    assert after - before <= 2
    assert len(search.search_messages(db, "status update", limit=50)) == 21


def test_messages_indexed_with_older_tokens_are_read_again(kept_home):
    from agent.session import open_store
    from memory.db import apply_migrations

    path = kept_home / "older.db"
    db = open_store(path)
    mid = _say(db, "User paid the plumber 80 euros on Monday.")
    # As an older build indexed it: the word as written, no lemma ("paid", not "pay").
    with transaction(db) as conn:
        conn.execute(
            f"INSERT INTO {search.TABLE} ({search.TABLE}, rowid, tokens) VALUES ('delete', ?, ?)",
            (mid, search._indexed_tokens("User paid the plumber 80 euros on Monday.")),
        )
        conn.execute(
            f"INSERT INTO {search.TABLE} (rowid, tokens) VALUES (?, ?)", (mid, "user paid plumber 80 euro monday")
        )
        conn.execute(
            "DELETE FROM _migrations WHERE migration_set = 'memory.search' AND name = 'm002_reindex_stems_and_lemmas'"
        )
    assert search.search_messages(db, "pays") == []
    apply_migrations(db, "memory.search", search.MIGRATIONS)
    assert search.search_messages(db, "pays")[0].message_ids == [mid]
