"""The OpenAI adapter against a fake OpenAI server on 127.0.0.1, through the real SDK."""

from __future__ import annotations

import json

import pytest

from agent.models import base
from agent.models.base import PLACEHOLDER_KEY, Message, ModelError, ToolCall, ToolSpec
from agent.models.calls import call_model
from agent.models.openai import OpenAIModel
from agent.models.prices import cost
from memory.call_log import list_calls
from tests.fakeservers import FakeOpenAI

FAKE_KEY = "test-key-not-real"
MEETING = {"title": "1:1 with Sam", "start": "Tuesday 10:00", "attendees": ["Sam"]}
SCHEDULE = ToolSpec(
    "schedule_meeting",
    "Book a meeting.",
    {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "start": {"type": "string"},
            "attendees": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title", "start"],
    },
)


@pytest.fixture
def server():
    with FakeOpenAI(model="gpt-4.1-mini") as fake:
        yield fake


def make(server, name="gpt-4.1-mini", **kw) -> OpenAIModel:
    return OpenAIModel(name, api_key=FAKE_KEY, base_url=server.base_url, **kw)


def ask(text="Book my one on one with Sam on Tuesday at 10:00"):
    return [Message("user", text)]


def logged(db):
    return list(reversed(list_calls(db)))


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


def test_streaming_text_arrives_in_pieces_and_whole(server):
    reply = "Sure: Tuesday at 10:00 works for Sam and you."
    server.reply_text(reply)
    pieces = []
    response = make(server).complete(ask(), on_text=pieces.append)
    assert len(pieces) > 3 and "".join(pieces) == reply
    assert response.text == reply
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 7)
    body = server.model_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_streaming_tool_call_arguments_are_accumulated(server):
    server.reply_tool_calls([("schedule_meeting", MEETING), ("list_events", {"day": "Tuesday"})], text="Booking.")
    pieces = []
    response = make(server).complete(ask(), tools=[SCHEDULE], on_text=pieces.append)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("schedule_meeting", MEETING),
        ("list_events", {"day": "Tuesday"}),
    ]
    assert all(c.id.startswith("call_") for c in response.tool_calls)
    assert response.text == "Booking." == "".join(pieces)


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


def test_rate_limit_then_success_honours_retry_after(server, db):
    server.fail(429, retry_after=3).reply_text("ok")
    sleeps = []
    response = call_model(make(server), ask(), db=db, purpose="chat", sleep=sleeps.append)
    assert response.text == "ok"
    assert sleeps == [3.0]
    assert [(r["attempt"], r["error_class"]) for r in logged(db)] == [(1, base.RATE_LIMIT), (2, None)]
    assert len(server.model_requests) == 2  # the SDK itself did not retry


def test_server_errors_are_retried(server, db):
    server.fail(500).fail(503).reply_text("ok")
    response = call_model(make(server), ask(), db=db, purpose="chat", sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER, base.SERVER, None]


@pytest.mark.parametrize(("status", "kind"), [(401, base.AUTH), (403, base.AUTH), (400, base.BAD_REQUEST)])
def test_client_errors_are_classed_and_not_retried(server, db, status, kind):
    server.fail(status)
    with pytest.raises(ModelError) as caught:
        call_model(make(server), ask(), db=db, purpose="chat", sleep=lambda s: None)
    assert caught.value.kind == kind
    assert len(server.model_requests) == 1


def test_timeout_is_mapped(server):
    server.hang(5)
    with pytest.raises(ModelError) as caught:
        make(server, timeout=0.3).complete(ask())
    assert caught.value.kind == base.TIMEOUT


@pytest.mark.parametrize("stream", [False, True])
def test_malformed_tool_arguments_are_an_error_never_an_answer(server, db, stream):
    server.reply_malformed_tool_call("schedule_meeting").reply_malformed_tool_call("schedule_meeting", "[1, 2]")
    with pytest.raises(ModelError) as caught:
        call_model(
            make(server),
            ask(),
            db=db,
            purpose="chat",
            tools=[SCHEDULE],
            max_attempts=2,
            on_text=(lambda s: None) if stream else None,
            sleep=lambda s: None,
        )
    assert caught.value.kind == base.MALFORMED
    assert [r["error_class"] for r in logged(db)] == [base.MALFORMED, base.MALFORMED]


def test_plain_text_where_a_tool_call_was_expected_is_text(server):
    server.reply_text("I would book it for Tuesday.")
    response = make(server).complete(ask(), tools=[SCHEDULE])
    assert response.tool_calls == [] and response.text == "I would book it for Tuesday."


@pytest.mark.parametrize("stream", [False, True])
def test_empty_reply_is_empty_reply(server, db, stream):
    server.reply_empty()
    with pytest.raises(ModelError) as caught:
        call_model(
            make(server), ask(), db=db, purpose="chat", max_attempts=1, on_text=(lambda s: None) if stream else None
        )
    assert caught.value.kind == base.EMPTY
    assert [r["error_class"] for r in logged(db)] == [base.EMPTY]


def test_connection_dropped_mid_stream_is_connection(server):
    server.disconnect_mid_stream()
    pieces = []
    with pytest.raises(ModelError) as caught:
        make(server).complete(ask(), on_text=pieces.append)
    assert caught.value.kind == base.CONNECTION


def test_error_event_inside_a_stream_is_retried(server, db):
    server.error_mid_stream("server_error").reply_text("ok")
    response = call_model(make(server), ask(), db=db, purpose="chat", on_text=lambda s: None, sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER, None]


def test_truncated_stream_is_malformed(server):
    server.truncate_stream()
    with pytest.raises(ModelError) as caught:
        make(server).complete(ask(), on_text=lambda s: None)
    assert caught.value.kind == base.MALFORMED


def test_unreachable_server_is_connection():
    with FakeOpenAI() as fake:
        url = fake.base_url
    with pytest.raises(ModelError) as caught:
        OpenAIModel("m", api_key=FAKE_KEY, base_url=url).complete(ask())
    assert caught.value.kind == base.CONNECTION


@pytest.mark.parametrize("stream", [False, True])
def test_usage_recorded_and_cost_computed(server, db, stream):
    server.reply_text("ok", usage=(1200, 300))
    call_model(make(server), ask(), db=db, purpose="chat", on_text=(lambda s: None) if stream else None)
    row = logged(db)[0]
    assert (row["input_tokens"], row["output_tokens"]) == (1200, 300)
    assert row["model"] == "gpt-4.1-mini" and row["provider"] == "openai"
    assert row["cost_usd"] == pytest.approx(cost("openai", "gpt-4.1-mini", 1200, 300))
    assert row["cost_usd"] == pytest.approx((1200 * 0.4 + 300 * 1.6) / 1e6)


@pytest.mark.parametrize("stream", [False, True])
def test_server_without_usage_leaves_it_unknown(server, db, stream):
    server.reply_text("ok", usage=None)
    response = call_model(make(server), ask(), db=db, purpose="chat", on_text=(lambda s: None) if stream else None)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (None, None)
    row = logged(db)[0]
    assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (None, None, None)


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


def test_memory_writing_forces_its_one_tool(server, db):
    from agent.memory_llm import ModelMemoryLLM
    from memory.replies import Reply

    class Facts(Reply):  # a memory pass's reply: its schema is what the tool offers
        facts: list[str]

    schema = Facts
    server.reply_tool_call("save_facts", {"facts": ["The launch is on December 3."]})
    got = ModelMemoryLLM(make(server), db=db)(
        purpose="memory.extract",
        system="Extract.",
        prompt="1. me: launch Dec 3",
        schema=schema,
        schema_name="save_facts",
    )
    assert got == Facts(facts=["The launch is on December 3."])
    assert server.model_requests[0].body["tool_choice"] == {"type": "function", "function": {"name": "save_facts"}}


def test_a_chat_turn_leaves_the_choice_to_the_model(server):
    server.reply_text("Sure.")
    make(server).complete(ask(), tools=[SCHEDULE])
    assert "tool_choice" not in server.model_requests[0].body
