"""Memory the person can see, correct and switch off, through the real CLI and chat.

What reached the prompt and why (/why, `kept ask --json`, --show-memory); what a
write pass saved, and /undo putting the store back exactly; full memory said
once; incognito leaving every table unchanged; a forget leaving no trace on
any path; and one clear line for every refusal.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from typer.testing import CliRunner

from agent.cli import app
from agent.loop import ExecutedCall, Session
from agent.models.scripted import ScriptedModel, text, tool_call
from agent.repl import run_repl
from memory import facts, notes, promises, recall, summary
from memory import messages as store
from memory.db import transaction

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, tzinfo=TZ)
runner = CliRunner()
MEMORY_TABLES = ("facts", "fact_events", "notes", "promises", "promise_events", "series", "series_events")


def kept(*args, **kw):
    result = runner.invoke(app, list(args), **kw)
    assert "Traceback" not in result.output, result.output
    return result


def tables(db, names=None) -> dict[str, list[tuple]]:
    """Every row of every table (or of ``names``), in rowid order: the store as data."""
    if names is None:
        names = [r[0] for r in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {t: sorted((tuple(r) for r in db.conn.execute(f'SELECT * FROM "{t}"')), key=repr) for t in names}


def known_store(db):
    """A store with SOUL, MEMORY, two facts (one replaced) and an open promise."""
    chat = store.get_chat(db, "me")
    m1 = store.add_message(
        db, chat, "user", "me", "The Atlas launch is November 10.", datetime(2026, 10, 7, 9, tzinfo=TZ)
    )
    m2 = store.add_message(
        db, chat, "user", "me", "The Atlas launch moved to November 17.", datetime(2026, 10, 9, 9, tzinfo=TZ)
    )
    r2 = store.add_message(
        db, chat, "assistant", "kept", "Noted: Atlas now launches November 17.", datetime(2026, 10, 9, 9, 1, tzinfo=TZ)
    )
    m3 = store.add_message(db, chat, "user", "me", "Priya owns billing.", datetime(2026, 10, 9, 10, tzinfo=TZ))
    with transaction(db) as conn:
        old = facts.add_fact(conn, "the Atlas launch is November 10", "2026-10-07", [m1])
        atlas = facts.update_fact(conn, old, "the Atlas launch moved to November 17", "2026-10-09", [m2])
        billing = facts.add_fact(conn, "Priya owns billing", "2026-10-09", [m3])
        notes.save(
            conn,
            notes.MEMORY,
            "## Who they are\n- Mo, data engineer\n\n## What to keep\n"
            "- Atlas launch: November 17\n- Priya owns billing",
            "pass",
        )
        notes.save(conn, notes.SOUL, "Call me Mo.", "asked")
        promise = promises.add(conn, "me", "send Priya the timeline doc", "2026-10-09", to_whom="Priya")
    return {"old": old, "atlas": atlas, "billing": billing, "promise": promise, "messages": [m1, m2, r2, m3]}


def session_for(db, steps, **kw) -> tuple[Session, ScriptedModel]:
    model = ScriptedModel(list(steps))
    return Session(db=db, model=model, tools=[], tz=TZ, chat=store.get_chat(db, "me"), clock=lambda: NOW, **kw), model


def chat(session, typed: str, capsys) -> str:
    with create_pipe_input() as inp:
        inp.send_text(typed)
        run_repl(session=session, input=inp, output=DummyOutput())
    return capsys.readouterr().out


def scripted_registry(monkeypatch, chat_model, memory_model=None):
    from agent.models import registry

    def create(spec, memory=False):
        if memory:
            if memory_model is None:
                pytest.fail("no memory model call expected")
            return memory_model
        return chat_model

    monkeypatch.setattr(registry, "create", create)


# --- 1. what was recalled, and why ------------------------------------------------------------


def test_chat_shows_what_reached_the_prompt_and_why(db, capsys):
    ids = known_store(db)
    session, model = session_for(db, [text("November 17, Mo."), text("The timeline doc for Priya.")])
    out = chat(session, "When is the Atlas launch?\r/why\rWhat did I promise?\r/why\r/quit\r", capsys)
    model.assert_complete()
    assert "memory: 1 fact, SOUL, MEMORY · /why" in out
    why = out[out.index("memory: 1 fact") :]
    assert f"fact #{ids['atlas']}: 2026-10-09: the Atlas launch moved to November 17" in why
    assert "name: Atlas; current value of a changed fact" in why
    assert "score " in why
    assert "soul: Call me Mo.  — standing rule" in why
    assert "summary:" in why and "(in every prompt)" in why
    # The old value is not recalled for a question about the current one.
    assert "November 10" not in why.split("What did I promise")[0]
    assert (
        f"promise #{ids['promise']}: #{ids['promise']} open since 2026-10-09 (me -> Priya): send Priya the timeline doc"
        in out
    )
    assert "you asked about promises" in out


def test_ask_json_and_show_memory_list_the_same_items(db, monkeypatch):
    ids = known_store(db)
    scripted_registry(monkeypatch, ScriptedModel([text("November 17.")]))
    result = kept("ask", "--json", "When is the Atlas launch?")
    assert result.exit_code == 0, result.output
    recalled = json.loads(result.stdout)["recalled"]
    assert [r["kind"] for r in recalled] == ["soul", "summary", "fact"]
    fact = recalled[2]
    assert fact["id"] == ids["atlas"] and fact["text"] == "2026-10-09: the Atlas launch moved to November 17"
    # Recall's reason, with the words as the person wrote them ("Atlas", not the index token "atla").
    assert fact["reason"] == "name: Atlas; current value of a changed fact"
    assert fact["score"] > 0
    assert set(fact) == {"kind", "text", "reason", "id", "score"}

    scripted_registry(monkeypatch, ScriptedModel([text("November 17.")]))
    shown = kept("ask", "--show-memory", "When is the Atlas launch?")
    assert shown.exit_code == 0, shown.output
    assert "memory used:" in shown.stdout
    assert (
        f"fact #{ids['atlas']}: 2026-10-09: the Atlas launch moved to November 17  — {fact['reason']}" in shown.stdout
    )


def test_a_question_about_what_changed_brings_the_old_value_and_says_why(db, monkeypatch):
    ids = known_store(db)
    scripted_registry(monkeypatch, ScriptedModel([text("It was November 10.")]))
    recalled = json.loads(kept("ask", "--json", "What was the Atlas launch date before it changed?").stdout)["recalled"]
    old = [r for r in recalled if r["id"] == ids["old"]]
    assert old and old[0]["reason"] == f"earlier value, replaced (see #{ids['atlas']})"


# --- 2. what was saved, and undo ----------------------------------------------------------------


@pytest.fixture
def pass_every_turn(monkeypatch):
    monkeypatch.setenv("KEPT_WRITE_EVERY_TURNS", "2")
    monkeypatch.setenv("KEPT_WRITE_MIN_USER_TURNS", "1")
    monkeypatch.setenv("KEPT_WRITE_MIN_HOURS", "0")


def billing_pass() -> ScriptedModel:
    """A pass over "Billing moved to Sam; the Atlas review is on Friday": one UPDATE, one ADD, MEMORY and SOUL."""
    return ScriptedModel(
        [
            tool_call(
                "save_memory",
                who="- Mo, data engineer",
                asked="",
                keep="- Sam owns billing\n- Atlas review Friday",
                lately="",
                soul="Call me Mo. Keep it short.",
            ),
            tool_call(
                "save_facts",
                facts=[
                    {"text": "Sam owns billing", "messages": [1]},
                    {"text": "the Atlas review is on Friday", "messages": [1]},
                ],
            ),
            tool_call(
                "decide_facts",
                decisions=[
                    {"candidate": 1, "action": "UPDATE", "kept": 1, "text": "Sam owns billing"},
                    {"candidate": 2, "action": "ADD"},
                ],
            ),
        ]
    )


def test_a_pass_says_what_it_saved_and_undo_puts_the_store_back_exactly(db, capsys, pass_every_turn):
    with transaction(db) as conn:
        billing = facts.add_fact(conn, "Priya owns billing", "2026-10-09", [])
        notes.save(conn, notes.MEMORY, "## Who they are\n- Mo", "first")
    before = tables(db, MEMORY_TABLES)
    session, model = session_for(db, [text("Noted.")])
    session.memory_model = memory = billing_pass()
    out = chat(session, "Billing moved to Sam, and the Atlas review is on Friday.\r/undo\r/undo\r/quit\r", capsys)
    model.assert_complete()
    memory.assert_complete()
    saved = [ln for ln in out.splitlines() if ln.startswith(("saved:", "       "))]
    assert 1 <= len(saved) <= 2, out
    assert (
        "+1 fact (“the Atlas review is on Friday (2026-12-04)”)" in saved[0]
        and "1 updated (“Sam owns billing”)" in saved[0]
    )
    assert "MEMORY rewritten" in out and "SOUL changed" in out and "/undo reverts it" in out
    assert (
        "undone the write pass over messages 1-2: 1 added fact removed, 1 update reverted, "
        "MEMORY and SOUL back to the version before" in out
    )
    assert "nothing to undo" in out  # the second /undo
    assert tables(db, MEMORY_TABLES) == before  # exactly as before the pass
    assert facts.get(db, billing).status == facts.ACTIVE
    log = kept("memory", "log").stdout
    assert log.count("UNDO") >= 4 and "removed fact" in log and "the Atlas review is on Friday" in log
    assert "restored fact (superseded -> active)" in log
    # The cursor stays: the undone facts do not come back with the next pass.
    from memory import writer

    assert writer.pending(db) == []


def test_undo_refuses_when_memory_changed_since_and_changes_nothing(db, capsys, pass_every_turn):
    session, model = session_for(db, [text("Noted.")])
    session.memory_model = ScriptedModel(
        [
            tool_call("save_memory", who="", asked="", keep="- Atlas review Friday", lately=""),
            tool_call("save_facts", facts=[{"text": "the Atlas review is on Friday", "messages": [1]}]),
        ]
    )
    chat(session, "The Atlas review is on Friday.\r/quit\r", capsys)
    added = facts.by_status(db, facts.ACTIVE)[0].id
    assert kept("memory", "edit", str(added), "the Atlas review is on Thursday").exit_code == 0
    before = tables(db, MEMORY_TABLES)
    result = kept("memory", "undo")
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert f"fact #{added} changed since" in result.output and "nothing was changed" in result.output
    assert tables(db, MEMORY_TABLES) == before


def test_remember_and_edit_by_hand_are_dated_events_from_the_person(db, capsys):
    session, _ = session_for(db, [])
    out = chat(session, "/remember Priya leads the Atlas launch\r/remember   \r/quit\r", capsys)
    fact = facts.by_status(db, facts.ACTIVE)[0]
    today = NOW.date().isoformat()  # the chat's own clock
    assert fact.text == f"{today}: Priya leads the Atlas launch" and f"remembered #{fact.id}" in out
    assert "the fact is empty" in out
    event = facts.events(db, fact_id=fact.id)[0]
    assert event.event == "ADD" and event.reason == "added by the person"

    added = kept("memory", "add", "Sam owns billing")
    assert added.exit_code == 0 and "Remembered #" in added.stdout
    sam = facts.by_status(db, facts.ACTIVE)[-1]
    edited = kept("memory", "edit", str(sam.id), "Sam and Priya own billing")
    assert edited.exit_code == 0 and "Corrected:" in edited.stdout
    assert facts.get(db, sam.id).status == facts.SUPERSEDED
    new = facts.replaced_by(db, sam.id)
    assert new.text.endswith("Sam and Priya own billing")
    assert facts.events(db, fact_id=new.id)[0].event == "UPDATE"


# --- 3. full memory is said ------------------------------------------------------------------


def test_full_memory_and_the_fact_bound_are_said_once_with_what_moved(db, monkeypatch, pass_every_turn):
    monkeypatch.setenv("KEPT_SUMMARY_CAP", "200")
    monkeypatch.setenv("KEPT_MAX_FACTS", "1")
    monkeypatch.setenv("KEPT_MEMORY_MODEL", "scripted")
    with transaction(db) as conn:
        facts.add_fact(conn, "Priya owns billing", "2026-10-01", [])
    memory = ScriptedModel(
        [
            tool_call(
                "save_memory",
                who="- Mo, data engineer at Northwind in Berlin, on the Atlas launch with Priya and Sam\n"
                "- writes in English and German, prefers short answers",
                asked="",
                keep="- Atlas review Friday",
                lately="- 2026-11-29: offsite planning started",
            ),
            tool_call("save_facts", facts=[{"text": "the Atlas review is on Friday", "messages": [1]}]),
            tool_call("decide_facts", decisions=[{"candidate": 1, "action": "ADD"}]),
        ]
    )
    scripted_registry(monkeypatch, ScriptedModel([text("Noted.")]), memory)
    result = kept("ask", "The Atlas review is on Friday.")
    assert result.exit_code == 0, result.output
    memory.assert_complete()
    err = result.stderr
    assert err.count("MEMORY is full (200 characters)") == 1
    assert "moved to the fact log, still searchable: “offsite planning started”" in err
    assert err.count("Active facts reached their bound (1)") == 1 and "“Priya owns billing”" in err
    assert "`kept memory undo` reverts it" in err
    # Said once: the next turn (no pass due) says nothing about it.
    scripted_registry(monkeypatch, ScriptedModel([text("Hi.")]))
    monkeypatch.setenv("KEPT_WRITE_EVERY_TURNS", "50")
    assert "MEMORY is full" not in kept("ask", "hello").stderr


# --- 4. incognito ------------------------------------------------------------------------------


def test_incognito_chat_and_ask_read_memory_and_leave_every_table_unchanged(db, monkeypatch, pass_every_turn):
    known_store(db)
    monkeypatch.setenv("KEPT_MEMORY_MODEL", "scripted")
    before = tables(db)

    def second(request):
        said = [m.content for m in request.messages]
        assert any("Atlas launch" in s for s in said), said  # the first unsaved turn is in the context
        return text("Friday, as you said.")

    chat_model = ScriptedModel(
        [
            lambda request: text("November 17, Mo.") if "November 17" in request.system else text("unknown"),
            second,
        ]
    )
    scripted_registry(monkeypatch, chat_model)  # any memory-model call fails the test
    result = kept(
        "chat", "--incognito", "--chat", "new-chat", input="When is the Atlas launch?\nAnd the review?\n/quit\n"
    )
    assert result.exit_code == 0, result.output
    chat_model.assert_complete()
    assert "incognito: kept reads your memory but stores nothing" in result.stdout
    assert "November 17, Mo." in result.stdout and "Friday, as you said." in result.stdout
    assert tables(db) == before

    scripted_registry(monkeypatch, ScriptedModel([text("November 17.")]))
    asked = kept("ask", "--incognito", "When is the Atlas launch?")
    assert asked.exit_code == 0 and "November 17." in asked.stdout and "incognito" in asked.stderr
    assert tables(db) == before


def test_incognito_refuses_remember_in_one_line(db, capsys):
    session, _ = session_for(db, [], incognito=True)
    before = tables(db)
    out = chat(session, "/remember Priya leads Atlas\r/quit\r", capsys)
    assert "incognito: nothing is stored" in out
    assert tables(db) == before


# --- 5. forget that forgets ------------------------------------------------------------------


def every_path(db, query: str) -> str:
    """Everything the person or the model can read back: recall, search_memory, show, export, history, log, facts."""
    from tools.base import ToolContext
    from tools.memory_search import SearchMemoryArgs, search_memory

    found = [r.text for r in recall.recall_facts(db, query)]
    searched = search_memory(ToolContext(db=db, now=NOW, tz=TZ), SearchMemoryArgs(query=query, limit=30))
    outputs = [json.dumps(found, ensure_ascii=False), json.dumps(searched, ensure_ascii=False)]
    for args in (
        ("memory", "show", "--history"),
        ("memory", "export", "-"),
        ("history",),
        ("history", "--json"),
        ("memory", "log"),
        ("memory", "facts", "--all"),
        ("memory", "series"),
        ("promises", "--all"),
        ("soul", "show"),
    ):
        result = kept(*args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.stdout)
    return "\n".join(outputs)


def test_forget_a_fact_leaves_no_trace_on_any_path(db):
    ids = known_store(db)
    with transaction(db) as conn:  # the same fact kept again in other words
        facts.add_fact(conn, "Atlas launch pushed to November 17", "2026-10-10", [])
    assert "November 17" in every_path(db, "Atlas launch November 17")  # the check can see it
    result = kept("memory", "forget", str(ids["atlas"]), "--yes", "--no-model")
    assert result.exit_code == 0, result.output
    assert f"Forgot fact #{ids['atlas']}: 3 facts, 3 messages, 1 MEMORY line blanked" in result.stdout
    seen = every_path(db, "Atlas launch November 17")
    for gone in ("November 17", "November 10", "Atlas"):
        assert gone not in seen, gone
    # What is not about it stays.
    assert "Priya owns billing" in seen and "Mo, data engineer" in summary.current(db)
    assert facts.get(db, ids["billing"]).status == facts.ACTIVE
    log = kept("memory", "log").stdout
    assert "forgotten on request" in log
    # Not in the file either: not in free pages, old index segments or the write-ahead log.
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    raw = b"".join(Path(p).read_bytes() for p in (path, path + "-wal") if os.path.exists(p))
    assert b"November 17" not in raw and b"Atlas" not in raw
    again = kept("memory", "forget", str(ids["atlas"]), "--yes")
    assert again.exit_code == 1 and again.output.strip() == f"kept: fact #{ids['atlas']} was forgotten already"


def test_forget_matching_chinese_text_rewrites_memory_through_the_model(db, monkeypatch):
    chat_ = store.get_chat(db, "me")
    m1 = store.add_message(
        db, chat_, "user", "me", "Q3 预算是四十万，别告诉别人。", datetime(2026, 10, 7, 9, tzinfo=TZ)
    )
    store.add_message(
        db, chat_, "assistant", "kept", "好的，记下了：Q3 预算四十万。", datetime(2026, 10, 7, 9, 1, tzinfo=TZ)
    )
    store.add_message(db, chat_, "user", "me", "周五和 Anna 开会。", datetime(2026, 10, 7, 10, tzinfo=TZ))
    with transaction(db) as conn:
        facts.add_fact(conn, "Q3 预算是四十万", "2026-10-07", [m1])
        facts.add_fact(conn, "周五和 Anna 开会", "2026-10-07", [m1 + 2])
        notes.save(conn, notes.MEMORY, "## What to keep\n- Q3 预算：四十万\n- 周五和 Anna 开会", "pass")
    assert "四十万" in every_path(db, "Q3 预算")
    memory = ScriptedModel([tool_call("save_memory", who="", asked="", keep="- 周五和 Anna 开会", lately="")])
    scripted_registry(monkeypatch, ScriptedModel([]), memory)
    result = kept("memory", "forget", "--matching", "预算", "--yes")
    assert result.exit_code == 0, result.output
    memory.assert_complete()
    assert "forget" in memory.requests[0].system.lower() and "预算" in memory.requests[0].messages[0].content
    seen = every_path(db, "Q3 预算 四十万")
    assert "预算" not in seen and "四十万" not in seen
    assert summary.current(db) == "## What to keep\n- 周五和 Anna 开会"
    assert "Anna" in seen
    twice = kept("memory", "forget", "--matching", "预算", "--yes")
    assert twice.exit_code == 1 and twice.output.strip() == "kept: nothing kept holds '预算'"


def test_forget_in_the_chat_takes_the_number_from_why(db, capsys):
    ids = known_store(db)
    session, model = session_for(db, [text("November 17.")])
    out = chat(
        session,
        f"/forget 1\rWhen is the Atlas launch?\r/why\r/forget 1\r/forget 3\r/why\r/forget #{ids['atlas']}\r"
        "/facts\r/forget 9\r/quit\r",
        capsys,
    )
    model.assert_complete()
    assert "run one of them first" in out  # /forget before any list
    assert "item 1 is the soul, not a fact" in out
    assert f"Forgot fact #{ids['atlas']}" in out
    # /why after the forget does not show the last reply's items again.
    assert "November 17" not in out[out.index("Forgot fact #") :]
    assert f"fact #{ids['atlas']} was forgotten already" in out
    assert "no item 9: the last list had 1" in out  # /facts: only the billing fact is left
    assert "November 17" not in summary.current(db)


def test_forget_wins_over_undo(db, capsys, pass_every_turn):
    session, _ = session_for(db, [text("Noted.")])
    session.memory_model = ScriptedModel(
        [
            tool_call("save_memory", who="", asked="", keep="- Atlas review Friday", lately=""),
            tool_call("save_facts", facts=[{"text": "the Atlas review is on Friday", "messages": [1]}]),
        ]
    )
    chat(session, "The Atlas review is on Friday.\r/quit\r", capsys)
    added = facts.by_status(db, facts.ACTIVE)[0].id
    assert kept("memory", "forget", str(added), "--yes", "--no-model").exit_code == 0
    result = kept("memory", "undo")
    assert result.exit_code == 1 and "nothing to undo" in result.output
    assert "Friday" not in every_path(db, "Atlas review Friday")


# --- refusals: one clear line each -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args, line",
    [
        (("memory", "forget", "999"), "kept: no fact #999; `kept memory facts --all` lists them"),
        (("memory", "forget"), "kept: give a fact id or --matching TEXT (one of them)"),
        (("memory", "forget", "--matching", "nowhere-said"), "kept: nothing kept holds 'nowhere-said'"),
        (
            (
                "memory",
                "undo",
            ),
            "kept: nothing to undo: no memory write pass has stored anything since the last undo",
        ),
        (("memory", "edit", "999", "x"), "kept: no fact #999; `kept memory facts` lists them"),
        (("memory", "add", "  "), 'kept: the fact is empty: give its text, e.g. "Priya leads the Atlas launch"'),
    ],
)
def test_refusals_are_one_line(db, args, line):
    result = kept(*args)
    assert result.exit_code == 1
    assert result.output.strip() == line


def test_undo_with_nothing_to_undo_in_the_chat_is_one_line(db, capsys):
    session, _ = session_for(db, [])
    out = chat(session, "/undo\r/quit\r", capsys)
    assert "nothing to undo: no memory write pass has stored anything" in out


# --- 6. a sentence after a tool result -------------------------------------------------------------


def test_the_embedded_models_raw_fields_become_a_sentence_from_the_tool_result(db, capsys):
    from tools import all_tools

    model = ScriptedModel(
        [
            tool_call("schedule_meeting", title="Q3 budget", start="Tuesday 15:00", attendees=["Anna"]),
            text('{"event_id": 1, "title": "Q3 budget", "start": "2026-12-01T15:00:00+01:00"}'),
        ],
        provider="local",
    )
    session = Session(db=db, model=model, tools=all_tools(), tz=TZ, chat=store.get_chat(db, "me"), clock=lambda: NOW)
    out = chat(session, "Book the Q3 budget with Anna on Tuesday at 15:00\r/quit\r", capsys)
    model.assert_complete()
    sentence = "Booked: Tue 1 Dec 15:00–15:30, Q3 budget with Anna."
    assert f"✓ {sentence}" in out  # the tool line
    assert store.history(db)[-1].text == sentence  # the reply kept stored and showed
    assert out.count(sentence) == 2
    assert "event_id" not in out  # the unusable text was never streamed to the screen


def test_sentences_for_each_action_and_only_for_what_happened():
    from agent import confirm

    assert (
        confirm.describe("send_message", {}, {"to": "Priya", "channel": "email", "body": "The doc is attached."})
        == "Sent to Priya by email: “The doc is attached.”"
    )
    assert (
        confirm.describe("send_message", {}, {"to": "Sam", "channel": "chat", "body": "Call me"})
        == "Sent to Sam by chat: “Call me”."
    )
    assert (
        confirm.describe("assign_task", {}, {"assignee": "Sam", "title": "draft the report", "due": "2026-12-04"})
        == "Task for Sam: draft the report, due Fri 4 Dec."
    )
    assert confirm.describe("schedule_meeting", {}, {"error": "start is in the past"}) is None
    failed = ExecutedCall("schedule_meeting", {}, {"error": "start is in the past"}, True)
    assert confirm.settle("", [failed]) == ""  # nothing happened: nothing is claimed
    booked = ExecutedCall(
        "schedule_meeting",
        {},
        {
            "event_id": 3,
            "title": "Sync",
            "start": "2026-12-01T10:00:00+01:00",
            "end": "2026-12-01T10:30:00+01:00",
            "attendees": [],
        },
        False,
    )
    assert confirm.settle("Done, see you there.", [booked]) == "Done, see you there."
    assert confirm.settle("event_id: 3, start: 2026-12-01T10:00", [booked]) == "Booked: Tue 1 Dec 10:00–10:30, Sync."
    # The embedded model's own written-out fields count as raw fields too.
    raw = "schedule_meeting done: event id: 3; title: Sync; start: 2026-12-01T10:00:00+01:00"
    assert confirm.settle(raw, [booked]) == "Booked: Tue 1 Dec 10:00–10:30, Sync."


def test_ask_and_chat_show_a_tool_call_in_the_same_line(db, monkeypatch):
    """One terminal module: the tool line `kept ask` writes beside its reply is the chat's tool line."""
    from datetime import date, timedelta

    # A due day weeks ahead, written out in full: the screen checks the call's day against the
    # request's, so a fixed calendar day would fail once it had passed.
    due = date.today() + timedelta(days=30)
    asked = f"Ask Sam to draft the report by {due.day} {due:%B} {due.year}"
    lines = {}
    for command in ("ask", "chat"):
        steps = [
            tool_call("assign_task", assignee="Sam", title="draft the report", due=due.isoformat()),
            text("Done."),
        ]
        scripted_registry(monkeypatch, ScriptedModel(steps))
        if command == "ask":
            result = kept("ask", asked)
            lines[command] = [ln for ln in result.stderr.splitlines() if "✓" in ln]
        else:
            result = kept("chat", input=asked + "\n/quit\n")
            # Piped input is not echoed: the line follows the prompt.
            lines[command] = [ln.removeprefix("you> ") for ln in result.stdout.splitlines() if "✓" in ln]
        assert result.exit_code == 0, result.output
    expected = f"  ✓ Task for Sam: draft the report, due {due:%a} {due.day} {due:%b}."
    assert lines["ask"] == lines["chat"] == [expected]


def test_in_a_live_terminal_what_a_pass_saved_is_said_when_it_commits(db, capsys, pass_every_turn):
    """With the prompt patched (a real terminal), the pass's own thread says it at once, not at the next prompt."""
    from agent.repl import Repl

    session, _ = session_for(db, [text("Noted.")])
    session.memory_model = ScriptedModel(
        [
            tool_call("save_memory", who="", asked="", keep="- Atlas review Friday", lately=""),
            tool_call("save_facts", facts=[{"text": "the Atlas review is on Friday", "messages": [1]}]),
        ]
    )
    said: list[str] = []
    repl = Repl(session, write=said.append, color=False)
    repl.live = True
    repl.turn("The Atlas review is on Friday.")
    repl.write_pass.join(30)
    assert any(s.startswith("saved: +1 fact") for s in said), said  # no prompt came in between
    repl.show_saved()
    assert sum(s.startswith("saved:") for s in said) == 1  # said once


def test_a_forget_waits_for_a_running_pass_and_refuses_in_one_line(db, monkeypatch):
    """A pass that read the messages before the forget must not store them again after it."""
    from memory import forget, writer

    ids = known_store(db)
    assert writer.claim(db, "a-running-pass")
    monkeypatch.setattr(forget, "WAIT_FOR_PASS_SECONDS", 0.6)
    before = tables(db)
    result = kept("memory", "forget", str(ids["atlas"]), "--yes", "--no-model")
    assert result.exit_code == 1
    assert result.output.strip() == (
        "kept: a memory write pass is running; nothing was forgotten. Try again when it has finished."
    )
    assert tables(db) == before
    writer.release(db, "a-running-pass")
    assert kept("memory", "forget", str(ids["atlas"]), "--yes", "--no-model").exit_code == 0
    # While the forget held the lease no pass could start; now it is free again.
    assert writer.claim(db, "the-next-pass")


def test_forget_at_a_terminal_asks_first_and_no_keeps_everything(db, monkeypatch):
    from agent.commands import memory as memory_commands

    ids = known_store(db)
    monkeypatch.setattr(memory_commands, "_interactive", lambda: True)
    before = tables(db)
    result = kept("memory", "forget", str(ids["atlas"]), "--no-model", input="n\n")
    assert result.exit_code == 1
    assert "This forgets 2 facts and 3 messages for good. Go on? [y/N]" in result.output
    assert result.output.strip().splitlines()[-1] == "kept: nothing was forgotten"
    assert tables(db) == before
    assert kept("memory", "forget", str(ids["atlas"]), "--no-model", input="y\n").exit_code == 0
    assert facts.get(db, ids["atlas"]).text == "(forgotten)"
