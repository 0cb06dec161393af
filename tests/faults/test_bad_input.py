"""Bad input through the real `kept ask`: each works or gets one clear line,
and no traceback reaches the person."""

from __future__ import annotations

import random
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent.loop import InputError, run_turn
from agent.models import scripted
from agent.models.scripted import ScriptedModel
from agent.session import open_session
from evals.bench import harness
from memory import messages as store
from tests.faults.checks import assert_clean, assert_one_line_error


def _sent_user_text(server) -> str:
    """What the model was sent as the person's last message."""
    body = server.model_requests[-1].body
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def test_a_one_megabyte_paste_is_stored_whole_and_the_prompt_stays_bounded(kept, server, kept_home):
    paste = ("log line 42: worker restarted after OOM\n" * 30_000)[:1_000_000]
    server.reply_text("That is a long log.")
    proc = kept("ask", "-", input=paste)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    stored = [r for r in harness.stored(kept_home) if r["role"] == "user"]
    assert len(stored) == 1 and stored[0]["text"] == paste
    # The model gets a bounded slice, not the megabyte.
    assert len(_sent_user_text(server)) <= 200_000


def test_a_one_megabyte_paste_is_indexed_up_to_a_bound_and_a_normal_message_in_full(db, monkeypatch):
    """Tokenising a megabyte for the search index took seconds; only its head is indexed now."""
    from memory import search

    real_tokens, tokenised = search.tokens, []
    monkeypatch.setattr(search, "tokens", lambda text: (tokenised.append(len(text)), real_tokens(text))[1])
    chat = store.get_chat(db)
    at = datetime(2026, 10, 6, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    paste = ("deploy log: worker restarted after OOM on node kestrel\n" * 20_000)[:1_000_000]
    paste_id = store.add_message(db, chat, "user", "me", paste, at)
    assert max(tokenised) <= search.MAX_INDEXED_CHARS
    assert [h.message_ids for h in search.search_messages(db, "kestrel OOM")] == [[paste_id]]
    normal = (
        "Notes from the offsite: "
        + "we talked about the roadmap and hiring. " * 150
        + "The quokka budget is 7,500 euros."
    )
    normal_id = store.add_message(db, chat, "user", "me", normal, at)
    assert len(normal) > 6_000
    assert [h.message_ids for h in search.search_messages(db, "quokka budget")][0] == [normal_id]
    assert [h.message_ids for h in search.search_messages(db, "7500")] == [[normal_id]]


def test_binary_bytes_on_stdin_are_stored_as_text_without_control_characters(kept, server, kept_home):
    blob = bytes(random.Random(7).randrange(256) for _ in range(4096)) + b"\x00\x01\x1b[2J and some words"
    server.reply_text("Received.")
    proc = kept("ask", "-", input=blob)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    (stored,) = [r["text"] for r in harness.stored(kept_home) if r["role"] == "user"]
    assert "and some words" in stored
    assert not any(ord(ch) < 32 and ch not in "\n\t" for ch in stored)
    assert "\x7f" not in stored


def test_invalid_utf8_on_stdin_is_kept_with_replacement_characters(kept, server, kept_home):
    server.reply_text("Noted.")
    proc = kept("ask", "-", input=b"caf\xe9 meeting at \xff\xfe3pm with J\xc3\xbcrgen")
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    (stored,) = [r["text"] for r in harness.stored(kept_home) if r["role"] == "user"]
    assert stored == "caf\ufffd meeting at \ufffd\ufffd3pm with J\u00fcrgen"


@pytest.mark.parametrize("via", ["argument", "stdin"])
def test_control_characters_are_dropped_but_newlines_and_tabs_stay(kept, server, kept_home, via):
    server.reply_text("Sure.")
    text = "\x1b[31mred\x1b[0m\x07 line one\n\tline two\x7f"
    # A NUL byte cannot be part of a command-line argument at all; it can only arrive on stdin.
    proc = kept("ask", text) if via == "argument" else kept("ask", "-", input=text + "\x00")
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    (stored,) = [r["text"] for r in harness.stored(kept_home) if r["role"] == "user"]
    assert stored == "[31mred[0m line one\n\tline two"


@pytest.mark.parametrize("text", ["", "   ", " \n\t \n", "\x00\x07\x1b"])
def test_an_empty_or_blank_message_gets_one_line_and_is_not_stored_or_sent(kept, server, kept_home, text):
    proc = kept("ask", "-", input=text)
    line = assert_one_line_error(proc)
    assert "empty" in line
    assert server.model_requests == []
    assert harness.stored(kept_home) == []


def test_a_burst_of_1000_messages_is_stored_once_each_in_order(kept_home):
    model = ScriptedModel([scripted.text(f"ack {i}") for i in range(1000)])
    session = open_session(model=model)
    sent = [f"burst message {i}: ping {i * 7}" for i in range(1000)]
    for text in sent:
        result = run_turn(session, text)
        assert result.error is None
    model.assert_complete()
    rows = harness.history(kept_home)  # through the real CLI, after the burst
    assert [r["text"] for r in rows if r["role"] == "user"] == sent
    assert len([r for r in rows if r["role"] == "assistant"]) == 1000


def test_a_blank_message_is_refused_before_anything_is_stored(db):
    model = ScriptedModel([])
    session = open_session(model=model, db=db)
    with pytest.raises(InputError):
        run_turn(session, " \t\n")
    assert store.history(db) == []
    assert model.requests == []


def test_a_message_with_every_unicode_plane_round_trips(kept, server, kept_home):
    text = "日程 📅 Ωmega — naïve \u200b zero-width, RTL \u202e reversed, 𝕏 math"
    server.reply_text("好的")
    proc = kept("ask", text)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    (stored,) = [r["text"] for r in harness.stored(kept_home) if r["role"] == "user"]
    assert stored == text
    assert "好的" in proc.stdout
