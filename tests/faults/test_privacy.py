"""Privacy: in a team chat nothing private reaches the assembled prompt, and
search_memory is refused; the person's files are owner-only."""

from __future__ import annotations

import json
import os
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent import context
from agent.loop import run_turn
from agent.models import scripted
from agent.models.scripted import ScriptedModel
from agent.session import open_session, open_store
from memory import facts, notes, promises, soul
from memory import messages as store
from memory.db import transaction

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 10, 6, 10, 0, tzinfo=BERLIN)

# Each line of private memory carries a word that appears nowhere else.
SOUL_LINE = "Call me Captain Quillon. Never use bullet points."
MEMORY_NOTE = "who: leads the Nightjar programme\nkeep: the Nightjar budget is 48,000 euros"
FACT = "the Nightjar budget is 48,000 euros"
PROMISE = "send Priya the Nightjar timeline"
PRIVATE_MESSAGE = "Between us: the Nightjar launch slips to March, do not tell the team yet."
MARKERS = ("Quillon", "Nightjar", "48,000", "Priya", "slips to March")


def _private_memory(db) -> None:
    with transaction(db) as conn:
        soul.save(conn, SOUL_LINE, "asked in conversation")
        notes.save(conn, notes.MEMORY, MEMORY_NOTE, "write pass")
        facts.add_fact(conn, FACT, "2026-10-01", [])
        promises.add(conn, "me", PROMISE, "2026-10-01", to_whom="Priya")
    store.add_message(db, store.get_chat(db), "user", "me", PRIVATE_MESSAGE, NOW)


def _prompt_text(ctx: context.Context) -> str:
    return ctx.system + "\n" + "\n".join(m.content for m in ctx.messages)


QUESTION = "What is the budget, what did I promise, and when is the launch?"


def test_a_team_chat_prompt_carries_no_soul_memory_fact_promise_or_private_message(db):
    _private_memory(db)
    team = store.get_chat(db, "standup", store.TEAM)
    store.add_message(db, team, "user", "me", "Morning all, standup in five.", NOW)
    ctx = context.build(db, team, QUESTION, NOW, "Europe/Berlin")
    text = _prompt_text(ctx)
    leaked = [m for m in MARKERS if m in text]
    assert not leaked, f"private memory in a team chat prompt: {leaked}"
    assert ctx.recalled == []
    assert "standup in five" in text  # the team chat's own messages are there


def test_the_same_question_in_a_private_chat_does_see_that_memory(db):
    """The control: the team test passes because of the team rule, not because memory is empty."""
    _private_memory(db)
    ctx = context.build(
        db, store.get_chat(db), "What is the Nightjar budget? Did I promise Priya the timeline?", NOW, "Europe/Berlin"
    )
    assert "Quillon" in ctx.system
    assert "48,000" in ctx.system
    assert "Priya" in ctx.system.split("What is the Nightjar")[0] or "Priya the Nightjar timeline" in ctx.system


def test_search_memory_is_refused_in_a_team_chat_and_returns_nothing_private(db):
    _private_memory(db)
    model = ScriptedModel(
        [
            scripted.tool_call("search_memory", query="Nightjar budget"),
            scripted.text("I cannot search private memory here."),
        ]
    )
    session = open_session(model=model, db=db, chat_name="standup", team=True)
    result = run_turn(session, QUESTION)
    model.assert_complete()
    (call,) = result.calls
    assert call.name == "search_memory" and call.is_error
    assert "team chat" in call.result["error"]
    sent = json.dumps([m.content for r in model.requests for m in r.messages]) + model.requests[0].system
    assert not [m for m in MARKERS if m in sent]


def test_search_memory_works_in_a_private_chat(db):
    """The control for the refusal above."""
    _private_memory(db)
    model = ScriptedModel([scripted.tool_call("search_memory", query="Nightjar budget"), scripted.text("48,000.")])
    session = open_session(model=model, db=db)
    result = run_turn(session, "What is the Nightjar budget?")
    (call,) = result.calls
    assert not call.is_error
    assert "48,000" in json.dumps(call.result, ensure_ascii=False)


def test_a_team_chat_never_triggers_a_write_pass_over_its_messages(db):
    from memory import writer

    team = store.get_chat(db, "standup", store.TEAM)
    for i in range(10):
        store.add_message(db, team, "user", "me", f"team note {i}", NOW)
    assert writer.pending(db) == []


def _export(kept_offline, kept_home, tmp_path, group: str, name: str):
    db = open_store(kept_home / "kept.db")
    _private_memory(db)
    db.conn.close()
    target = tmp_path / name
    proc = kept_offline(group, "export", str(target))
    assert proc.returncode == 0, proc.stderr
    return target.stat().st_mode & 0o777


@pytest.mark.parametrize("group, name", [("memory", "memory.json"), ("calendar", "kept.ics")])
def test_an_export_is_readable_by_the_owner_only(kept_offline, kept_home, tmp_path, group, name):
    old = os.umask(0o022)
    try:
        mode = _export(kept_offline, kept_home, tmp_path, group, name)
    finally:
        os.umask(old)
    assert mode == 0o600, oct(mode)


def test_the_store_files_are_readable_by_the_owner_only(kept_home):
    old = os.umask(0o022)
    try:
        db = open_store(kept_home / "kept.db")
        store.add_message(db, store.get_chat(db), "user", "me", PRIVATE_MESSAGE, NOW)
        files = [f for f in kept_home.iterdir() if f.name.startswith("kept.db")]
        assert {f.name for f in files} >= {"kept.db", "kept.db-wal"}
        for f in files:
            assert f.stat().st_mode & 0o077 == 0, f"{f.name}: {oct(f.stat().st_mode)}"
        db.conn.close()
    finally:
        os.umask(old)


# --- a chat's privacy is decided once, by its stored kind ------------------------------


def test_a_chats_kind_is_fixed_when_made_and_asking_for_the_other_kind_is_refused(db):
    store.get_chat(db, "standup")  # made private
    with pytest.raises(store.ChatKindError, match="already exists as a private chat"):
        store.get_chat(db, "standup", store.TEAM)
    team = store.get_chat(db, "retro", store.TEAM)
    with pytest.raises(store.ChatKindError, match="already exists as a team chat"):
        store.get_chat(db, "retro", store.PRIVATE)
    # Opened without a kind, a chat is what it was made as.
    assert store.get_chat(db, "retro").is_team and team.is_team
    assert not store.get_chat(db, "standup").is_team


def test_team_flag_on_an_existing_private_chat_is_one_line_and_sends_nothing(kept, server, kept_home):
    db = open_store(kept_home / "kept.db")
    _private_memory(db)
    store.get_chat(db, "standup")
    db.conn.close()
    proc = kept("ask", "--chat", "standup", "--team", "What is the budget?")
    from tests.faults.checks import assert_one_line_error

    line = assert_one_line_error(proc)
    assert "standup" in line and "private" in line, line
    assert server.model_requests == []  # nothing private went anywhere


def test_a_team_chat_opened_without_the_flag_is_still_a_team_chat(db):
    store.get_chat(db, "standup", store.TEAM)
    _private_memory(db)
    session = open_session(model=ScriptedModel([scripted.text("ok")]), db=db, chat_name="standup")
    assert session.chat.is_team
    ctx = context.build(db, session.chat, QUESTION, NOW, "Europe/Berlin")
    assert not [m for m in MARKERS if m in _prompt_text(ctx)]


def test_no_tool_or_chat_command_in_a_team_chat_reaches_private_data(db):
    """Every tool and every slash command, in a team chat, over private data in every table."""
    from evals.bench import privacy

    tally = privacy.run_pass(db, team=True)
    assert set(tally.tools) >= {t.name for t in __import__("tools").all_tools()}
    leaks = {
        t: (tally.in_requests[t], tally.on_screen[t])
        for t in privacy.MARKERS
        if tally.in_requests[t] or tally.on_screen[t]
    }
    assert leaks == {}, f"private data (in requests, on screen) reached a team chat: {leaks}"


def test_the_same_pass_in_a_private_chat_does_see_the_private_data(kept_home, tmp_path):
    """The control: the team pass finds nothing because of the scope, not because the seed is invisible."""
    from evals.bench import privacy

    tally = privacy.run_pass(open_store(tmp_path / "control.db"), team=False)
    seen = {t for t in privacy.MARKERS if tally.in_requests[t] or tally.on_screen[t]}
    # Everything but the pasted password (redacted wherever it is read back) shows up somewhere.
    assert seen >= set(privacy.MARKERS) - {"secret", "tool messages"}, set(privacy.MARKERS) - seen


def test_a_team_chat_cannot_cancel_or_complete_a_private_row(db):
    from evals.bench import privacy
    from tools import lists
    from tools.base import ToolContext, ToolError
    from tools.calendar import TOOLS as CAL

    ids = privacy.seed(db)
    ctx = ToolContext(db, NOW, BERLIN, "standup", True)
    cancel = next(t for t in CAL if t.name == "cancel_event")
    with pytest.raises(ToolError) as err:
        cancel.call(ctx, {"event_id": ids["event"]})
    assert "no event" in str(err.value) and privacy.MARKERS["event title"] not in str(err.value)
    assert lists.get_event(db, ids["event"]).status == lists.SCHEDULED
