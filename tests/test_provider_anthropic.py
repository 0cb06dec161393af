"""The Anthropic adapter against a fake Anthropic server on 127.0.0.1, through the real SDK."""

from __future__ import annotations

import pytest

from agent.models import base
from agent.models.anthropic import AnthropicModel
from agent.models.base import PLACEHOLDER_KEY, Message, ModelError, ToolCall, ToolSpec
from agent.models.calls import call_model
from agent.models.prices import cost
from memory.call_log import list_calls
from tests.fakeservers import FakeAnthropic

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
    with FakeAnthropic(model="claude-haiku-4-5") as fake:
        yield fake


def make(server, name="claude-haiku-4-5", **kw) -> AnthropicModel:
    return AnthropicModel(name, api_key=FAKE_KEY, base_url=server.base_url, **kw)


def ask(text="Book my one on one with Sam on Tuesday at 10:00"):
    return [Message("user", text)]


def sent_key(request) -> str | None:
    # SDK 0.x sends x-api-key, 2.x a bearer token: either way the key must arrive.
    bearer = request.headers.get("authorization", "")
    return request.headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)


def logged(db):
    return list(reversed(list_calls(db)))


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


def test_streaming_text_arrives_in_pieces_and_whole(server):
    reply = "Sure: Tuesday at 10:00 works for Sam and you."
    server.reply_text(reply)
    pieces = []
    response = make(server).complete(ask(), on_text=pieces.append)
    assert len(pieces) > 3 and "".join(pieces) == reply
    assert response.text == reply and response.model == "claude-haiku-4-5"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 7)
    assert server.model_requests[0].body["stream"] is True


def test_streaming_tool_input_json_is_accumulated(server):
    server.reply_tool_calls([("schedule_meeting", MEETING), ("list_events", {"day": "Tuesday"})], text="Booking.")
    pieces = []
    response = make(server).complete(ask(), tools=[SCHEDULE], on_text=pieces.append)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("schedule_meeting", MEETING),
        ("list_events", {"day": "Tuesday"}),
    ]
    assert all(c.id.startswith("toolu_") for c in response.tool_calls)
    assert response.text == "Booking." == "".join(pieces)
    assert response.stop_reason == "tool_use"


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


def test_rate_limit_then_success_honours_retry_after(server, db):
    server.fail(429, retry_after=2).reply_text("ok")
    sleeps = []
    response = call_model(make(server), ask(), db=db, purpose="chat", sleep=sleeps.append)
    assert response.text == "ok"
    assert sleeps == [2.0]
    assert [(r["attempt"], r["error_class"]) for r in logged(db)] == [(1, base.RATE_LIMIT), (2, None)]
    assert len(server.model_requests) == 2  # the SDK itself did not retry


def test_server_errors_and_overload_are_retried(server, db):
    server.fail(500).fail(503).fail(529).reply_text("ok")
    response = call_model(make(server), ask(), db=db, purpose="chat", sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER, base.SERVER, base.SERVER, None]


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
def test_malformed_tool_input_is_an_error_never_an_answer(server, db, stream):
    server.reply_malformed_tool_call("schedule_meeting").reply_malformed_tool_call("schedule_meeting", '"Tuesday"')
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
    with pytest.raises(ModelError) as caught:
        make(server).complete(ask(), on_text=lambda s: None)
    assert caught.value.kind == base.CONNECTION


def test_overloaded_error_event_inside_a_stream_is_retried(server, db):
    server.error_mid_stream("overloaded_error").reply_text("ok")
    response = call_model(make(server), ask(), db=db, purpose="chat", on_text=lambda s: None, sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER, None]


def test_truncated_stream_is_malformed(server):
    server.truncate_stream()
    with pytest.raises(ModelError) as caught:
        make(server).complete(ask(), on_text=lambda s: None)
    assert caught.value.kind == base.MALFORMED


@pytest.mark.parametrize("stream", [False, True])
def test_usage_recorded_and_cost_computed(server, db, stream):
    server.reply_text("ok", usage=(1200, 300))
    call_model(make(server), ask(), db=db, purpose="chat", on_text=(lambda s: None) if stream else None)
    row = logged(db)[0]
    assert (row["input_tokens"], row["output_tokens"]) == (1200, 300)
    assert row["model"] == "claude-haiku-4-5" and row["provider"] == "anthropic"
    assert row["cost_usd"] == pytest.approx(cost("anthropic", "claude-haiku-4-5", 1200, 300))
    assert row["cost_usd"] == pytest.approx((1200 * 1.0 + 300 * 5.0) / 1e6)


@pytest.mark.parametrize("stream", [False, True])
def test_reply_without_usage_leaves_it_unknown(server, db, stream):
    server.reply_text("ok", usage=None)
    response = call_model(make(server), ask(), db=db, purpose="chat", on_text=(lambda s: None) if stream else None)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (None, None)
    assert (logged(db)[0]["input_tokens"], logged(db)[0]["cost_usd"]) == (None, None)


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
    assert server.model_requests[0].body["tool_choice"] == {"type": "tool", "name": "save_facts"}


def test_a_chat_turn_leaves_the_choice_to_the_model(server):
    server.reply_text("Sure.")
    make(server).complete(ask(), tools=[SCHEDULE])
    assert "tool_choice" not in server.model_requests[0].body
