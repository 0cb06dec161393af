"""The OpenAI adapter against a fake OpenAI server on 127.0.0.1, through the real SDK."""

from __future__ import annotations

import json

import pytest

from agent.models import base
from agent.models.base import PLACEHOLDER_KEY, Message, ModelError, ToolCall
from agent.models.openai import OpenAIModel
from tests.fakeservers import FakeOpenAI
from tests.specs import FAKE_KEY, MEETING, SCHEDULE, ask


@pytest.fixture
def server():
    with FakeOpenAI(model="gpt-4.1-mini") as fake:
        yield fake


def make(server, name="gpt-4.1-mini", **kw) -> OpenAIModel:
    return OpenAIModel(name, api_key=FAKE_KEY, base_url=server.base_url, **kw)


def test_text_reply(server):
    server.reply_text("Hello, how can I help?")
    response = make(server).complete(ask("hi"), system="You are kept.", max_tokens=300)
    assert response.text == "Hello, how can I help?"
    assert response.tool_calls == []
    assert response.stop_reason == "stop"
    body = server.model_requests[0].body
    assert body["model"] == "gpt-4.1-mini"
    assert body["messages"] == [{"role": "system", "content": "You are kept."}, {"role": "user", "content": "hi"}]
    assert body["max_tokens"] == 300  # a compatible server on a base URL gets max_tokens
    assert "stream" not in body and "tools" not in body
    assert server.model_requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"
    server.assert_complete()


def test_tool_call_parsed_and_tools_sent(server):
    server.reply_tool_call("schedule_meeting", MEETING, id="call_abc")
    response = make(server).complete(ask(), tools=[SCHEDULE])
    assert response.tool_calls == [ToolCall("call_abc", "schedule_meeting", MEETING)]
    assert response.stop_reason == "tool_calls"
    assert server.model_requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "schedule_meeting",
                "description": "Book a meeting.",
                "parameters": SCHEDULE.parameters,
            },
        }
    ]


def test_tool_round_trip_sends_the_result_in_wire_shape(server):
    server.reply_text("Booked Tuesday 10:00 with Sam.")
    call = ToolCall("call_7", "schedule_meeting", MEETING)
    convo = ask() + [
        Message("assistant", "", tool_calls=[call]),
        Message(
            "tool", '{"id": 3, "start": "2026-12-01T10:00:00+01:00"}', tool_call_id="call_7", name="schedule_meeting"
        ),
    ]
    make(server).complete(convo, system="sys", tools=[SCHEDULE])
    assistant, tool = server.model_requests[0].body["messages"][2:]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_7",
                "type": "function",
                "function": {"name": "schedule_meeting", "arguments": json.dumps(MEETING)},
            }
        ],
    }
    assert tool == {
        "role": "tool",
        "tool_call_id": "call_7",
        "content": '{"id": 3, "start": "2026-12-01T10:00:00+01:00"}',
    }


def test_plain_text_where_a_tool_call_was_expected_is_text(server):
    server.reply_text("I would book it for Tuesday.")
    response = make(server).complete(ask(), tools=[SCHEDULE])
    assert response.tool_calls == [] and response.text == "I would book it for Tuesday."


def test_unreachable_server_is_connection():
    with FakeOpenAI() as fake:
        url = fake.base_url
    with pytest.raises(ModelError) as caught:
        OpenAIModel("m", api_key=FAKE_KEY, base_url=url).complete(ask())
    assert caught.value.kind == base.CONNECTION


def test_base_url_env_honoured_with_placeholder_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.reply_text("from the local server")
    model = OpenAIModel("qwen2.5")
    assert model.complete(ask()).text == "from the local server"
    assert server.model_requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_api_key_env_used_when_set(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    server.reply_text("ok")
    OpenAIModel("m").complete(ask())
    assert server.model_requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"


def test_official_api_gets_max_completion_tokens(monkeypatch):
    model = OpenAIModel("gpt-5-mini", api_key=FAKE_KEY)
    sent = {}

    def capture(**params):
        sent.update(params)
        raise LookupError("captured")  # not a provider failure, so it is not dressed up as one

    monkeypatch.setattr(model._client.chat.completions, "create", capture)
    with pytest.raises(LookupError):
        model.complete(ask(), max_tokens=99)
    assert sent["max_completion_tokens"] == 99 and "max_tokens" not in sent


def test_no_key_and_no_base_url_is_not_configured():
    with pytest.raises(ModelError) as caught:
        OpenAIModel("gpt-4.1")
    assert caught.value.kind == base.NOT_CONFIGURED
