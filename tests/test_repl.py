"""The chat screen driven through prompt-toolkit's pipe input."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent.loop import Session
from agent.models.scripted import ScriptedModel, text
from agent.repl import Repl, run_repl
from memory import messages as store

TZ = ZoneInfo("Europe/Berlin")


def make_session(db, steps):
    model = ScriptedModel(list(steps))
    chat = store.get_chat(db, "me")
    return Session(
        db=db, model=model, tools=[], tz=TZ, chat=chat, clock=lambda: datetime(2026, 11, 30, 9, tzinfo=TZ)
    ), model


def test_a_message_typed_at_the_prompt_is_answered_and_stored(db, capsys):
    session, model = make_session(db, [text("Hello, Ana.")])
    with create_pipe_input() as inp:
        inp.send_text("Hi there\r/quit\r")
        run_repl(session=session, input=inp, output=DummyOutput())
    model.assert_complete()
    out = capsys.readouterr().out
    assert "Hello, Ana." in out
    assert [m.text for m in store.history(db)] == ["Hi there", "Hello, Ana."]


def test_alt_enter_adds_a_line_instead_of_sending(db):
    session, model = make_session(db, [text("ok")])
    with create_pipe_input() as inp:
        inp.send_text("line one\x1b\rline two\r/quit\r")
        run_repl(session=session, input=inp, output=DummyOutput())
    model.assert_complete()
    assert store.history(db)[0].text == "line one\nline two"


def test_slash_commands_run_by_unique_prefix_and_unknown_ones_are_explained(db, capsys):
    session, model = make_session(db, [])
    with create_pipe_input() as inp:
        inp.send_text("/hel\r/frobnicate\r/mod\r/quit\r")
        run_repl(session=session, input=inp, output=DummyOutput())
    out = capsys.readouterr().out
    assert "/promises" in out and "/calendar" in out  # the help listing
    assert "unknown command /frobnicate" in out
    assert "scripted:scripted" in out
    assert store.history(db) == []  # commands are not messages


def test_slash_completion_offers_matching_commands(db):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    session, _ = make_session(db, [])
    repl = Repl(session, write=lambda s: None)
    from agent import repl as repl_module

    with create_pipe_input() as inp:
        read = repl_module._prompt_reader(repl, input=inp, output=DummyOutput())
        completer = read.prompt_session.completer
        names = [c.text for c in completer.get_completions(Document("/pr"), CompleteEvent())]
        assert names == ["/promises"]
        assert [c.text for c in completer.get_completions(Document("hello /pr"), CompleteEvent())] == []


def test_end_of_input_leaves_cleanly(db):
    session, model = make_session(db, [])
    with create_pipe_input() as inp:
        inp.close()
        run_repl(session=session, input=inp, output=DummyOutput())
    model.assert_complete()


def test_cancel_stops_the_turn_without_storing_a_reply(db):
    import threading

    session, model = make_session(db, [text("too late")])
    cancel = threading.Event()
    cancel.set()
    repl = Repl(session, write=lambda s: None)
    repl.handle("a message", cancel)
    assert [m.role for m in store.history(db)] == ["user"]
