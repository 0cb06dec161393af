"""`kept history` shows that nothing was lost; two sessions and write passes on
one database lose nothing, show no lock errors, and never read a message in
two passes."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

from agent.session import open_store
from evals.bench import faults
from memory import messages as store
from tests.faults.checks import assert_clean, assert_one_line_error

BERLIN = ZoneInfo("Europe/Berlin")


def _two_chats(home) -> None:
    db = open_store(home / "kept.db")
    me, team = store.get_chat(db), store.get_chat(db, "standup", store.TEAM)
    at = datetime(2026, 10, 6, 9, 30, tzinfo=BERLIN)
    store.add_message(db, me, "user", "me", "private: call the bank", at)
    store.add_message(db, team, "user", "me", "team: standup moved to 10:00", at)
    store.add_message(db, me, "assistant", "kept", "Noted.", at)
    db.conn.close()


def test_history_lists_every_message_oldest_first_as_json(kept_offline, kept_home):
    _two_chats(kept_home)
    proc = kept_offline("history", "--json")
    assert_clean(proc)
    rows = json.loads(proc.stdout)
    assert [(r["chat"], r["role"], r["text"]) for r in rows] == [
        ("me", "user", "private: call the bank"),
        ("standup", "user", "team: standup moved to 10:00"),
        ("me", "assistant", "Noted."),
    ]
    assert all(r["at"].startswith("2026-10-06T09:30") for r in rows)


def test_history_of_one_chat_and_in_text(kept_offline, kept_home):
    _two_chats(kept_home)
    rows = json.loads(kept_offline("history", "--chat", "standup", "--json").stdout)
    assert [r["text"] for r in rows] == ["team: standup moved to 10:00"]
    text = kept_offline("history", "--chat", "me").stdout
    assert "private: call the bank" in text and "Noted." in text and "standup moved" not in text


def test_history_of_an_unknown_chat_is_one_line(kept_offline, kept_home):
    _two_chats(kept_home)
    assert "nowhere" in assert_one_line_error(kept_offline("history", "--chat", "nowhere"))


def test_history_on_a_fresh_install_is_empty_not_an_error(kept_offline):
    proc = kept_offline("history", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == []


def test_two_sessions_and_write_passes_at_once_lose_nothing_and_never_show_a_lock(tmp_path):
    tally = faults.concurrency_trial(3, workdir=tmp_path)
    assert tally.trials == 6  # three messages typed in each of two sessions
    assert tally.clean, "\n".join(tally.problems)
