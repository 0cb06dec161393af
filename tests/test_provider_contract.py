"""What every SDK provider does the same way, each against its fake server on 127.0.0.1
through the real SDK: retries and error classes, timeouts, malformed and empty replies,
streams (pieces, tool calls put together, streams cut short), usage and cost, and
memory's forced tool. What differs (the wire shapes, keys and base URLs) is in
test_provider_anthropic.py and test_provider_openai.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent.models import base
from agent.models.anthropic import AnthropicModel
from agent.models.base import ModelError
from agent.models.calls import call_model
from agent.models.openai import OpenAIModel
from agent.models.prices import cost
from agent.models.sdk import SDKModel
from memory.call_log import list_calls
from tests.fakeservers import FakeAnthropic, FakeOpenAI, FakeServer
from tests.specs import FAKE_KEY, MEETING, SCHEDULE, ask


@dataclass
class Provider:
    name: str
    model_class: type[SDKModel]
    fake_class: type[FakeServer]
    model: str
    server_errors: tuple[int, ...]  # statuses retried as SERVER
    stream_error: str  # the error event a stream can carry
    price: tuple[float, float]  # dollars per million tokens in, out
    forced_choice: dict[str, Any]  # the tool_choice that forces one tool
    stream_body: dict[str, Any]  # what a streamed request's body says
    call_ids: str  # how the server's tool-call ids begin
    tool_stop: str  # the stop reason of a reply that calls tools


PROVIDERS = [
    Provider(
        "anthropic",
        AnthropicModel,
        FakeAnthropic,
        "claude-haiku-4-5",
        (500, 503, 529),  # 529: Anthropic's overloaded
        "overloaded_error",
        (1.0, 5.0),
        {"type": "tool", "name": "save_facts"},
        {"stream": True},
        "toolu_",
        "tool_use",
    ),
    Provider(
        "openai",
        OpenAIModel,
        FakeOpenAI,
        "gpt-4.1-mini",
        (500, 503),
        "server_error",
        (0.4, 1.6),
        {"type": "function", "function": {"name": "save_facts"}},
        {"stream": True, "stream_options": {"include_usage": True}},
        "call_",
        "tool_calls",
    ),
]


@pytest.fixture(params=PROVIDERS, ids=[p.name for p in PROVIDERS])
def provider(request):
    return request.param


@pytest.fixture
def server(provider):
    with provider.fake_class(model=provider.model) as fake:
        yield fake


@pytest.fixture
def make(provider, server):
    def make(**kw) -> SDKModel:
        return provider.model_class(provider.model, api_key=FAKE_KEY, base_url=server.base_url, **kw)

    return make


def logged(db):
    return list(reversed(list_calls(db)))


def streamed(stream: bool):
    return (lambda s: None) if stream else None


def test_streaming_text_arrives_in_pieces_and_whole(provider, server, make):
    reply = "Sure: Tuesday at 10:00 works for Sam and you."
    server.reply_text(reply)
    pieces: list[str] = []
    response = make().complete(ask(), on_text=pieces.append)
    assert len(pieces) > 3 and "".join(pieces) == reply
    assert response.text == reply and response.model == provider.model
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 7)
    body = server.model_requests[0].body
    assert {k: body.get(k) for k in provider.stream_body} == provider.stream_body


def test_streamed_tool_calls_are_put_together(provider, server, make):
    server.reply_tool_calls([("schedule_meeting", MEETING), ("list_events", {"day": "Tuesday"})], text="Booking.")
    pieces: list[str] = []
    response = make().complete(ask(), tools=[SCHEDULE], on_text=pieces.append)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("schedule_meeting", MEETING),
        ("list_events", {"day": "Tuesday"}),
    ]
    assert all(c.id.startswith(provider.call_ids) for c in response.tool_calls)
    assert response.text == "Booking." == "".join(pieces)
    assert response.stop_reason == provider.tool_stop


def test_rate_limit_then_success_honours_retry_after(server, make, db):
    server.fail(429, retry_after=2).reply_text("ok")
    sleeps: list[float] = []
    response = call_model(make(), ask(), db=db, purpose="chat", sleep=sleeps.append)
    assert response.text == "ok"
    assert sleeps == [2.0]
    assert [(r["attempt"], r["error_class"]) for r in logged(db)] == [(1, base.RATE_LIMIT), (2, None)]
    assert len(server.model_requests) == 2  # the SDK itself did not retry


def test_server_errors_are_retried(provider, server, make, db):
    for status in provider.server_errors:
        server.fail(status)
    server.reply_text("ok")
    response = call_model(make(), ask(), db=db, purpose="chat", sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER] * len(provider.server_errors) + [None]


@pytest.mark.parametrize(("status", "kind"), [(401, base.AUTH), (403, base.AUTH), (400, base.BAD_REQUEST)])
def test_client_errors_are_classed_and_not_retried(server, make, db, status, kind):
    server.fail(status)
    with pytest.raises(ModelError) as caught:
        call_model(make(), ask(), db=db, purpose="chat", sleep=lambda s: None)
    assert caught.value.kind == kind
    assert len(server.model_requests) == 1


def test_timeout_is_mapped(server, make):
    server.hang(5)
    with pytest.raises(ModelError) as caught:
        make(timeout=0.3).complete(ask())
    assert caught.value.kind == base.TIMEOUT


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("not_an_object", ['"Tuesday"', "[1, 2]"])
def test_malformed_tool_arguments_are_an_error_never_an_answer(server, make, db, stream, not_an_object):
    # JSON cut short, then JSON that is not an object: each attempt fails as MALFORMED and is retried.
    server.reply_malformed_tool_call("schedule_meeting").reply_malformed_tool_call("schedule_meeting", not_an_object)
    with pytest.raises(ModelError) as caught:
        call_model(
            make(),
            ask(),
            db=db,
            purpose="chat",
            tools=[SCHEDULE],
            max_attempts=2,
            on_text=streamed(stream),
            sleep=lambda s: None,
        )
    assert caught.value.kind == base.MALFORMED
    assert [r["error_class"] for r in logged(db)] == [base.MALFORMED, base.MALFORMED]


@pytest.mark.parametrize("stream", [False, True])
def test_empty_reply_is_empty_reply(server, make, db, stream):
    server.reply_empty()
    with pytest.raises(ModelError) as caught:
        call_model(make(), ask(), db=db, purpose="chat", max_attempts=1, on_text=streamed(stream))
    assert caught.value.kind == base.EMPTY
    assert [r["error_class"] for r in logged(db)] == [base.EMPTY]


def test_connection_dropped_mid_stream_is_connection(server, make):
    server.disconnect_mid_stream()
    with pytest.raises(ModelError) as caught:
        make().complete(ask(), on_text=lambda s: None)
    assert caught.value.kind == base.CONNECTION


def test_an_error_event_inside_a_stream_is_retried(provider, server, make, db):
    server.error_mid_stream(provider.stream_error).reply_text("ok")
    response = call_model(make(), ask(), db=db, purpose="chat", on_text=lambda s: None, sleep=lambda s: None)
    assert response.text == "ok"
    assert [r["error_class"] for r in logged(db)] == [base.SERVER, None]


def test_truncated_stream_is_malformed(server, make):
    server.truncate_stream()
    with pytest.raises(ModelError) as caught:
        make().complete(ask(), on_text=lambda s: None)
    assert caught.value.kind == base.MALFORMED


@pytest.mark.parametrize("stream", [False, True])
def test_usage_recorded_and_cost_computed(provider, server, make, db, stream):
    server.reply_text("ok", usage=(1200, 300))
    call_model(make(), ask(), db=db, purpose="chat", on_text=streamed(stream))
    row = logged(db)[0]
    assert (row["input_tokens"], row["output_tokens"]) == (1200, 300)
    assert row["model"] == provider.model and row["provider"] == provider.name
    assert row["cost_usd"] == pytest.approx(cost(provider.name, provider.model, 1200, 300))
    assert row["cost_usd"] == pytest.approx((1200 * provider.price[0] + 300 * provider.price[1]) / 1e6)


@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_without_usage_leaves_it_unknown(server, make, db, stream):
    server.reply_text("ok", usage=None)
    response = call_model(make(), ask(), db=db, purpose="chat", on_text=streamed(stream))
    assert (response.usage.input_tokens, response.usage.output_tokens) == (None, None)
    row = logged(db)[0]
    assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (None, None, None)


def test_memory_writing_forces_its_one_tool(provider, server, make, db):
    from agent.memory_llm import ModelMemoryLLM
    from memory.replies import Reply

    class Facts(Reply):  # a memory pass's reply: its schema is what the tool offers
        facts: list[str]

    server.reply_tool_call("save_facts", {"facts": ["The launch is on December 3."]})
    got = ModelMemoryLLM(make(), db=db)(
        purpose="memory.extract",
        system="Extract.",
        prompt="1. me: launch Dec 3",
        schema=Facts,
        schema_name="save_facts",
    )
    assert got == Facts(facts=["The launch is on December 3."])
    assert server.model_requests[0].body["tool_choice"] == provider.forced_choice


def test_a_chat_turn_leaves_the_choice_to_the_model(server, make):
    server.reply_text("Sure.")
    make().complete(ask(), tools=[SCHEDULE])
    assert "tool_choice" not in server.model_requests[0].body


def test_a_clean_stream_leaves_the_connection_open_for_the_next_request(server):
    # The retry after a malformed streamed reply goes out on the same keep-alive connection; a
    # server that closed it without saying so made that retry a connection error on a loaded
    # machine. The fake server keeps a clean stream's connection, as real servers do, and
    # closes only the one it drops.
    import http.client

    server.reply_text("one").reply_text("two").disconnect_mid_stream()
    path = server.model_path
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    for expected in ("one", "two"):
        conn.request("POST", path, body='{"stream": true}', headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert expected in response.read().decode()
        assert response.getheader("Connection") != "close" and not response.will_close
    conn.request("POST", path, body='{"stream": true}', headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    with pytest.raises(http.client.IncompleteRead):
        response.read()
    conn.close()
