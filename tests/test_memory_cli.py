"""`kept memory ...` and `kept soul ...` through the real CLI."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from agent.cli import app
from memory import facts, soul, summary
from memory import messages as store
from memory.db import transaction

runner = CliRunner()


def kept(*args, **kw):
    return runner.invoke(app, list(args), catch_exceptions=False, **kw)


def _fill(db):
    with transaction(db) as conn:
        a = facts.add_fact(conn, "the Atlas launch is November 10", "2026-10-07", [1])
        b = facts.update_fact(conn, a, "the Atlas launch moved to November 17", "2026-10-09", [2])
        c = facts.add_fact(conn, "Priya owns billing", "2026-10-09", [3])
        from memory import notes

        notes.save(conn, notes.MEMORY, "## Who they are\n- Mo", "first")
        notes.save(conn, notes.MEMORY, "## Who they are\n- Mo, data engineer", "second")
        notes.save(conn, notes.SOUL, "Call me Mo.", "asked")
    return a, b, c


def test_every_memory_and_soul_command_and_option_has_help():
    import typer.main

    root = typer.main.get_command(app)
    for group in ("memory", "soul"):
        commands = root.commands[group].commands
        assert commands, group
        for name, command in commands.items():
            assert command.help and command.help.strip(), (group, name)
            for param in command.params:
                if param.param_type_name == "option":
                    assert param.help, (group, name, param.name)
            assert kept(group, name, "--help").exit_code == 0


def test_show_prints_the_note_and_its_history(db):
    assert "MEMORY is empty" in kept("memory", "show").output
    _fill(db)
    out = kept("memory", "show").output
    assert out.strip() == "## Who they are\n- Mo, data engineer"
    hist = kept("memory", "show", "--history").output
    assert hist.index("- Mo\n") < hist.index("- Mo, data engineer") and "version #" in hist
    assert [v["reason"] for v in json.loads(kept("memory", "show", "--history", "--json").output)] == [
        "first",
        "second",
    ]


def test_facts_lists_active_by_default_and_all_with_the_flag(db):
    a, b, c = _fill(db)
    out = kept("memory", "facts").output
    assert f"#{b} 2026-10-09: the Atlas launch moved to November 17 (replaces #{a})" in out
    assert "November 10" not in out
    assert f"#{a} [superseded] 2026-10-07: the Atlas launch is November 10" in kept("memory", "facts", "--all").output
    rows = json.loads(kept("memory", "facts", "--all", "--json").output)
    assert [(r["id"], r["status"]) for r in rows] == [(a, "superseded"), (b, "active"), (c, "active")]


def test_forget_marks_deleted_and_the_log_shows_it_newest_first(db):
    a, b, c = _fill(db)
    assert f"Forgot fact #{c}" in kept("memory", "forget", str(c)).output
    assert facts.get(db, c).status == facts.DELETED
    log = kept("memory", "log").output.splitlines()
    assert "DELETE" in log[0] and f"#{c}" in log[0] and "forgotten on request" in log[0]
    assert "UPDATE" in log[2] and "November 10" in log[2] and "November 17" in log[2]
    events = json.loads(kept("memory", "log", "--json").output)
    assert [e["event"] for e in events] == ["DELETE", "ADD", "UPDATE", "ADD"]
    missing = runner.invoke(app, ["memory", "forget", "9999"])
    assert missing.exit_code == 1 and "no fact #9999" in missing.output and "Traceback" not in missing.output


def test_export_then_import_into_an_empty_store_reproduces_it(db, tmp_path, monkeypatch):
    from memory import promises

    _fill(db)
    with transaction(db) as conn:
        promises.add(
            conn,
            "me",
            "send Priya the timeline",
            "2026-10-07",
            to_whom="Priya",
            due_on="2026-10-09",
            opened_message_id=12,
        )
    file = tmp_path / "memory.json"
    assert kept("memory", "export", str(file)).exit_code == 0
    assert stat.S_IMODE(os.stat(file).st_mode) == 0o600  # the person's whole memory: owner only
    exported = json.loads(file.read_text())
    assert set(exported) >= {"notes", "facts", "events", "promises", "series"}

    refused = runner.invoke(app, ["memory", "import", str(file)])
    assert refused.exit_code == 1 and "already holds memory" in refused.output

    monkeypatch.setenv("KEPT_HOME", str(tmp_path / "other-home"))
    assert kept("memory", "import", str(file)).exit_code == 0
    again = tmp_path / "again.json"
    kept("memory", "export", str(again))
    reexported = json.loads(again.read_text())
    assert exported["promises"]["promises"][0]["what"] == "send Priya the timeline"
    assert exported["promises"]["promise_events"], "the promise's OPEN event travels with it"
    for key in ("notes", "facts", "events", "promises", "series"):
        assert reexported[key] == exported[key], key


def test_import_refuses_what_is_not_an_export(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    result = runner.invoke(app, ["memory", "import", str(bad)])
    assert result.exit_code == 1 and "not a kept memory export" in result.output
    bad.write_text("not json")
    assert "is not JSON" in runner.invoke(app, ["memory", "import", str(bad)]).output


def test_rewrite_forces_a_pass_and_reports_progress(db, monkeypatch):
    from agent.models import registry
    from agent.models.scripted import ScriptedModel, tool_call

    chat = store.get_chat(db)
    store.add_message(
        db, chat, "user", "me", "Priya owns billing now.", datetime(2026, 10, 7, 9, tzinfo=ZoneInfo("Europe/Berlin"))
    )
    model = ScriptedModel(
        [
            tool_call("save_memory", who="- Mo", asked="", keep="- Priya owns billing", lately=""),
            tool_call("save_facts", facts=[{"text": "Priya owns billing", "messages": [1]}]),
        ]
    )
    monkeypatch.setattr(registry, "create", lambda spec, memory=False: model)
    result = kept("memory", "rewrite")
    model.assert_complete()
    assert "rewriting MEMORY from 1 messages" in result.output
    assert "+1 added" in result.output
    assert "Priya owns billing" in summary.current(db)
    monkeypatch.setattr(registry, "create", lambda spec, memory=False: pytest.fail("no model needed"))
    assert "Nothing to do" in kept("memory", "rewrite").output


def test_rewrite_failure_is_one_line_and_writes_nothing(db, monkeypatch):
    from agent.models import registry
    from agent.models.scripted import ScriptedModel, text

    chat = store.get_chat(db)
    store.add_message(db, chat, "user", "me", "hello", datetime(2026, 10, 7, 9, tzinfo=ZoneInfo("Europe/Berlin")))
    monkeypatch.setattr(registry, "create", lambda spec, memory=False: ScriptedModel([text("I refuse to use tools")]))
    result = runner.invoke(app, ["memory", "rewrite"])
    assert result.exit_code == 1 and "could not be used" in result.output and "Traceback" not in result.output
    assert summary.current(db) == ""


def test_soul_set_show_and_history(db):
    assert "SOUL is empty" in kept("soul", "show").output
    assert "SOUL saved" in kept("soul", "edit", "--set", "Call me Mo. No bullet points.").output
    assert kept("soul", "show").output.strip() == "Call me Mo. No bullet points."
    kept("soul", "edit", "--set", "Call me Mo.")
    assert [v["text"] for v in json.loads(kept("soul", "show", "--history", "--json").output)] == [
        "Call me Mo. No bullet points.",
        "Call me Mo.",
    ]
    too_long = runner.invoke(app, ["soul", "edit", "--set", "x" * 5000])
    assert too_long.exit_code == 1 and "keep it under" in too_long.output


def test_soul_edit_opens_the_editor(db, tmp_path, monkeypatch):
    editor = tmp_path / "fake-editor"
    editor.write_text("#!/bin/sh\nprintf '# a comment\\nAnswer in German.\\n' > \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.setenv("VISUAL", str(editor))
    result = kept("soul", "edit")
    assert "SOUL saved" in result.output, result.output
    assert soul.render(db) == "Answer in German."
