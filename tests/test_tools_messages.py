"""Message tools: the outbox, and consent before a first message to someone new."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools import all_tools, lists
from tools.base import ToolContext, ToolError
from tools.messages import TOOLS

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=BERLIN)
T = {t.name: t for t in TOOLS}


class Approver:
    """Records every question; answers with ``answer``."""

    def __init__(self, answer: bool):
        self.answer = answer
        self.asked: list[str] = []

    def __call__(self, prompt: str) -> bool:
        self.asked.append(prompt)
        return self.answer


def context(db, answer: bool) -> tuple[ToolContext, Approver]:
    approver = Approver(answer)
    return ToolContext(db=db, now=NOW, tz=BERLIN, chat_name="me", approve=approver), approver


def send(ctx, **arguments):
    return T["send_message"].call(ctx, arguments)


def test_message_tools_are_registered():
    assert {"send_message", "list_messages"} <= {t.name for t in all_tools()}


def test_first_message_asks_and_is_stored_when_approved(db):
    ctx, approver = context(db, True)
    result = send(ctx, to="Sam", body="The deck is ready.", subject="Deck")
    assert len(approver.asked) == 1
    assert "first chat message to Sam" in approver.asked[0] and "The deck is ready." in approver.asked[0]
    # Nothing is connected, and 'chat' is no transport: the result says it was recorded, not delivered.
    assert result["status"] == "recorded" and result["first_to_recipient"] is True
    assert "not delivered" in result["delivery"]
    assert result["to"] == "Sam" and result["channel"] == "chat"
    assert result["sent_at"] == "2026-11-30T09:30:00+01:00"
    rows = lists.outbox(db)
    assert [(m.recipient, m.subject, m.body) for m in rows] == [("Sam", "Deck", "The deck is ready.")]


def test_refused_consent_sends_nothing_and_says_so(db):
    ctx, approver = context(db, False)
    with pytest.raises(ToolError) as info:
        send(ctx, to="eve@example.com", body="all my notes")
    text = str(info.value)
    assert "did not approve" in text and "eve@example.com" in text and "--yes" in text
    assert approver.asked and lists.outbox(db) == []


def test_known_recipient_needs_no_consent(db):
    ctx, _ = context(db, True)
    send(ctx, to="Sam", body="first")
    ctx, approver = context(db, False)  # would refuse, but is never asked
    result = send(ctx, to="  sam ", body="second")
    assert approver.asked == []
    assert result["first_to_recipient"] is False
    assert [m.body for m in lists.outbox(db, recipient="SAM")] == ["first", "second"]


def test_each_new_recipient_is_asked_separately(db):
    ctx, approver = context(db, True)
    send(ctx, to="Sam", body="a")
    send(ctx, to="Priya", body="b")
    send(ctx, to="Sam", body="c")
    assert len(approver.asked) == 2


def test_channel_defaults_by_address_and_is_checked(db):
    ctx, _ = context(db, True)
    assert send(ctx, to="sam@example.com", body="hi")["channel"] == "email"
    assert send(ctx, to="Sam", body="hi", channel="Slack")["channel"] == "slack"
    with pytest.raises(ToolError, match="channel: a channel is one word"):
        send(ctx, to="Sam", body="hi", channel="!!")


@pytest.mark.parametrize(
    "arguments, needles",
    [
        ({"body": "hi"}, ["to is required", "'Sam' or 'sam@example.com'"]),
        ({"to": "Sam"}, ["body is required", "message text"]),
        ({"to": "Sam", "body": "   "}, ["body: must not be empty"]),
        ({"to": ["Sam", "Lee"], "body": "hi"}, ["to: send to one recipient per call"]),
    ],
)
def test_invalid_arguments_name_the_argument(db, arguments, needles):
    ctx, approver = context(db, True)
    with pytest.raises(ToolError) as info:
        send(ctx, **arguments)
    for needle in needles:
        assert needle in str(info.value)
    assert approver.asked == [] and lists.outbox(db) == []


def test_aliases_small_models_use(db):
    ctx, _ = context(db, True)
    result = send(ctx, recipient="Sam", message="ping")
    assert (result["to"], result["body"]) == ("Sam", "ping")


def test_list_messages_filters_and_limits(db):
    ctx, _ = context(db, True)
    for i in range(3):
        send(ctx, to="Sam", body=f"s{i}")
    send(ctx, to="Lee", body="l0")
    everything = T["list_messages"].call(ctx, {})
    assert [m["body"] for m in everything["messages"]] == ["s0", "s1", "s2", "l0"]
    assert [m["body"] for m in T["list_messages"].call(ctx, {"to": "sam"})["messages"]] == ["s0", "s1", "s2"]
    assert [m["body"] for m in T["list_messages"].call(ctx, {"limit": 2})["messages"]] == ["s2", "l0"]
    with pytest.raises(ToolError, match="limit"):
        T["list_messages"].call(ctx, {"limit": 0})
