"""The Anthropic adapter against a fake Anthropic server on 127.0.0.1, through the real SDK."""

from __future__ import annotations

import pytest

from agent.models import base
from agent.models.anthropic import AnthropicModel
from agent.models.base import PLACEHOLDER_KEY, Message, ModelError, ToolCall
from tests.fakeservers import FakeAnthropic
from tests.specs import FAKE_KEY, MEETING, SCHEDULE, ask


@pytest.fixture
def server():
    with FakeAnthropic(model="claude-haiku-4-5") as fake:
        yield fake


def make(server, name="claude-haiku-4-5", **kw) -> AnthropicModel:
    return AnthropicModel(name, api_key=FAKE_KEY, base_url=server.base_url, **kw)


def sent_key(request) -> str | None:
    # SDK 0.x sends x-api-key, 2.x a bearer token: either way the key must arrive.
    bearer = request.headers.get("authorization", "")
    return request.headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)


def test_text_reply(server):
    server.reply_text("Hello, how can I help?")
    response = make(server).complete(ask("hi"), system="You are kept.", max_tokens=300)
    assert response.text == "Hello, how can I help?"
    assert response.tool_calls == [] and response.stop_reason == "end_turn"
    request = server.model_requests[0]
    assert request.body == {
        "model": "claude-haiku-4-5",
        "max_tokens": 300,
        "system": "You are kept.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert sent_key(request) == FAKE_KEY
    assert "anthropic-version" in request.headers
    server.assert_complete()


def test_tool_call_parsed_and_tools_sent(server):
    server.reply_tool_call("schedule_meeting", MEETING, id="toolu_abc", text="Booking it.")
    response = make(server).complete(ask(), tools=[SCHEDULE])
    assert response.tool_calls == [ToolCall("toolu_abc", "schedule_meeting", MEETING)]
    assert response.text == "Booking it." and response.stop_reason == "tool_use"
    assert server.model_requests[0].body["tools"] == [
        {"name": "schedule_meeting", "description": "Book a meeting.", "input_schema": SCHEDULE.parameters}
    ]


def test_tool_round_trip_sends_tool_results_merged_in_one_user_turn(server):
    server.reply_text("Booked, and Tuesday has no conflicts.")
    calls = [ToolCall("toolu_1", "schedule_meeting", MEETING), ToolCall("toolu_2", "list_events", {"day": "Tuesday"})]
    convo = ask() + [
        Message("assistant", "Let me book that.", tool_calls=calls),
        Message("tool", '{"id": 3}', tool_call_id="toolu_1", name="schedule_meeting"),
        Message("tool", '{"error": "day must be a date"}', tool_call_id="toolu_2", name="list_events", is_error=True),
    ]
    make(server).complete(convo, tools=[SCHEDULE])
    sent = server.model_requests[0].body["messages"]
    assert [turn["role"] for turn in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"] == [
        {"type": "text", "text": "Let me book that."},
        {"type": "tool_use", "id": "toolu_1", "name": "schedule_meeting", "input": MEETING},
        {"type": "tool_use", "id": "toolu_2", "name": "list_events", "input": {"day": "Tuesday"}},
    ]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"id": 3}'},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": '{"error": "day must be a date"}',
            "is_error": True,
        },
    ]


def test_without_tools_past_tool_calls_are_sent_as_text(server):
    # The API refuses tool_use blocks in a request that defines no tools (the loop's last round).
    server.reply_text("Done.")
    convo = ask() + [
        Message("assistant", "", tool_calls=[ToolCall("toolu_1", "schedule_meeting", MEETING)]),
        Message("tool", '{"id": 3}', tool_call_id="toolu_1", name="schedule_meeting"),
    ]
    make(server).complete(convo, tools=None)
    body = server.model_requests[0].body
    assert "tools" not in body
    blocks = [block for turn in body["messages"] for block in turn["content"]]
    assert {block["type"] for block in blocks} == {"text"}
    assert "schedule_meeting" in blocks[1]["text"] and '{"id": 3}' in blocks[2]["text"]


def test_base_url_env_honoured(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    server.reply_text("from the compatible server")
    assert AnthropicModel("claude-haiku-4-5").complete(ask()).text == "from the compatible server"
    assert sent_key(server.model_requests[0]) == FAKE_KEY


def test_base_url_without_key_uses_placeholder(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    server.reply_text("ok")
    AnthropicModel("claude-haiku-4-5").complete(ask())
    assert sent_key(server.model_requests[0]) == PLACEHOLDER_KEY


def test_no_key_is_not_configured():
    with pytest.raises(ModelError) as caught:
        AnthropicModel("claude-haiku-4-5")
    assert caught.value.kind == base.NOT_CONFIGURED
