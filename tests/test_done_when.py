"""Issue 2's acceptance, on a fresh store, through the real `kept` command:
a model server on 127.0.0.1 answers with a schedule_meeting tool call, the
event is stored, and `kept calendar list --json` shows it with Sam at an
absolute time on a Tuesday at 10:00."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

import pytest

from tests.fakeservers import FakeAnthropic, FakeOpenAI

REQUEST = "Book my one on one with Sam on Tuesday at 10:00"
MEETING = {"title": "One on one with Sam", "start": "Tuesday 10:00", "attendees": ["Sam"]}


def kept(args, env, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "agent.cli", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _env(kept_home, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "KEPT_MODEL"))}
    env.update(KEPT_HOME=str(kept_home), KEPT_TZ="Europe/Berlin", KEPT_WRITE_EVERY_TURNS="1000", **extra)
    return env


def _check_calendar(env):
    listed = kept(["calendar", "list", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    events = json.loads(listed.stdout)
    assert len(events) == 1
    event = events[0]
    assert "Sam" in event["attendees"]
    start = datetime.fromisoformat(event["start"])
    assert start.tzinfo is not None and start.utcoffset() is not None
    assert (start.strftime("%A"), start.hour, start.minute) == ("Tuesday", 10, 0)
    assert event["weekday"] == "Tuesday"


@pytest.mark.parametrize(
    "server_class, env_vars",
    [
        (FakeOpenAI, lambda url: {"OPENAI_BASE_URL": url}),
        (FakeAnthropic, lambda url: {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test-key-not-real"}),
    ],
)
def test_kept_ask_books_the_meeting_and_the_calendar_shows_it(kept_home, server_class, env_vars):
    with server_class() as server:
        server.reply_tool_call("schedule_meeting", MEETING)
        server.reply_text("Booked your one on one with Sam for Tuesday at 10:00.")
        env = _env(kept_home, **env_vars(server.base_url))
        asked = kept(["ask", REQUEST, "--json"], env)
        assert asked.returncode == 0, asked.stderr
        out = json.loads(asked.stdout)
        assert out["error"] is None
        assert [c["name"] for c in out["tool_calls"]] == ["schedule_meeting"]
        assert out["tool_calls"][0]["is_error"] is False
        server.assert_complete()
        # The tools were offered and the request carried the person's words.
        first = server.model_requests[0].body
        assert REQUEST in json.dumps(first, ensure_ascii=False)
        assert "schedule_meeting" in json.dumps(first.get("tools", []))
    _check_calendar(env)
