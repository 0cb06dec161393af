"""The turn: tool round trips, tool errors fed back, the five-round limit,
and the person's message stored before the model is called."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from pydantic import BaseModel

from agent.loop import MAX_TOOL_ROUNDS, InputError, Session, run_turn
from agent.models import base
from agent.models.scripted import ScriptedModel, error, text, tool_call
from memory import messages as store
from tools.base import Tool, ToolError

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)


class EchoArgs(BaseModel):
    word: str


def _echo(ctx, args: EchoArgs):
    if args.word == "boom":
        raise ToolError("boom is not allowed; send another word")
    return {"echoed": args.word}


ECHO = Tool("echo", "Echo a word back.", EchoArgs, _echo)


def session(db, steps, chat="me", team=False):
    model = ScriptedModel(list(steps))
    chat_row = store.get_chat(db, chat, store.TEAM if team else store.PRIVATE)
    return Session(db=db, model=model, tools=[ECHO], tz=TZ, chat=chat_row, clock=lambda: NOW), model


def test_tool_round_trip_feeds_the_result_back_and_stores_everything(db):
    s, model = session(db, [tool_call("echo", word="hi"), text("It said hi.")])
    result = run_turn(s, "Echo hi please")
    model.assert_complete()
    assert result.reply == "It said hi."
    assert [(c.name, c.result, c.is_error) for c in result.calls] == [("echo", {"echoed": "hi"}, False)]
    second = model.requests[1].messages
    assert second[-2].tool_calls[0].name == "echo"
    assert second[-1].role == "tool" and '"echoed": "hi"' in second[-1].content
    assert second[-1].tool_call_id == second[-2].tool_calls[0].id
    roles = [(m.role, m.text) for m in store.history(db)]
    assert roles[0] == ("user", "Echo hi please")
    assert roles[-1] == ("assistant", "It said hi.")
    assert any(r == "tool" for r, _ in roles)


def test_tool_error_goes_back_to_the_model_as_the_result(db):
    s, model = session(db, [tool_call("echo", word="boom"), tool_call("echo", word="ok"), text("Done.")])
    result = run_turn(s, "Echo boom")
    model.assert_complete()
    assert result.calls[0].is_error and "boom is not allowed" in result.calls[0].result["error"]
    assert model.requests[1].messages[-1].is_error
    assert result.reply == "Done."


def test_invalid_arguments_and_unknown_tools_are_errors_the_model_sees(db):
    s, model = session(db, [tool_call("echo"), tool_call("launch_rocket", target="moon"), text("Sorry.")])
    result = run_turn(s, "do things")
    model.assert_complete()
    assert "word" in result.calls[0].result["error"]
    assert "unknown tool 'launch_rocket'" in result.calls[1].result["error"]
    assert "echo" in result.calls[1].result["error"]


def test_five_tool_rounds_then_the_model_must_answer_in_text(db):
    steps = [tool_call("echo", word=f"w{i}") for i in range(MAX_TOOL_ROUNDS)] + [text("Stopping here.")]
    s, model = session(db, steps)
    result = run_turn(s, "loop forever")
    model.assert_complete()
    assert len(result.calls) == MAX_TOOL_ROUNDS
    assert all(r.tools for r in model.requests[:MAX_TOOL_ROUNDS])
    assert model.requests[MAX_TOOL_ROUNDS].tools is None
    assert result.reply == "Stopping here."


def test_provider_failure_keeps_the_message_and_says_so(db):
    s, model = session(db, [error(base.AUTH, "invalid key")])
    result = run_turn(s, "Book lunch with Ana")
    model.assert_complete()
    assert result.reply == "" and "refused the API key" in result.error and "saved" in result.error
    assert [m.text for m in store.history(db)] == ["Book lunch with Ana"]
    calls = db.conn.execute("SELECT error_class FROM model_calls").fetchall()
    assert [c[0] for c in calls] == ["auth"]


def test_retryable_failure_then_success_is_retried_and_logged(db, monkeypatch):
    monkeypatch.setattr("agent.models.calls.time.sleep", lambda s: None)
    s, model = session(db, [error(base.SERVER, "503"), text("Hello.")])
    assert run_turn(s, "hi").reply == "Hello."
    rows = db.conn.execute("SELECT attempt, error_class FROM model_calls ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [(1, "server_error"), (2, None)]


def test_empty_and_control_only_input_is_refused_before_anything_is_stored(db):
    s, model = session(db, [])
    for bad in ["", "   \n\t", "\x00\x07"]:
        with pytest.raises(InputError):
            run_turn(s, bad)
    assert store.history(db) == []


def test_context_carries_date_time_zone_and_recent_messages(db):
    s, model = session(db, [text("first"), text("second")])
    run_turn(s, "Remember the Atlas launch is on Friday")
    run_turn(s, "What did I just say?")
    request = model.requests[1]
    assert "2026-11-30" in request.system and "Europe/Berlin" in request.system and "Monday" in request.system
    contents = [m.content for m in request.messages]
    assert contents == ["Remember the Atlas launch is on Friday", "first", "What did I just say?"]
