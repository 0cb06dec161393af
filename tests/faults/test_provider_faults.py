"""Provider faults from a server on 127.0.0.1, through the real CLI and loop:
each turn ends in a retried success or one clear line, the person's message
is never lost, and model_calls records every failure by its class."""

from __future__ import annotations

import pytest

from agent.loop import run_turn
from agent.models.openai import OpenAIModel
from agent.session import open_session
from evals.bench import harness
from evals.bench.fakemodel import RespondingOpenAI
from evals.bench.faults import EQUIVALENT, FAULTS, NO_PASSES, PASS_EVERY_TURN, cursor, facts_citing
from tests.faults.checks import assert_clean, assert_one_line_error

TEXT = "Book 30 minutes with Sam on Friday at 10"


def _calls(home) -> list[str | None]:
    return [r[0] for r in harness.query(home, "SELECT error_class FROM model_calls ORDER BY id")]


def _stored_once(home, text: str) -> None:
    assert harness.user_texts(harness.stored(home))[text] == 1


@pytest.mark.parametrize("name", [n for n, (_, kind) in FAULTS.items() if kind is not None])
def test_one_fault_then_a_good_reply_is_a_retried_success(kept, server, kept_home, name):
    inject, kind = FAULTS[name]
    inject(server)
    server.reply_text("Booked Friday 10:00 with Sam.")
    proc = kept("ask", TEXT, **NO_PASSES)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    assert "Booked Friday" in proc.stdout
    server.assert_complete()
    calls = _calls(kept_home)
    assert calls[0] in EQUIVALENT.get(kind, {kind}) and calls[-1] is None, calls
    _stored_once(kept_home, TEXT)


@pytest.mark.parametrize("name", ["429 with Retry-After", "500"])
def test_a_fault_on_every_attempt_ends_in_one_clear_line_and_the_message_is_kept(kept, server, kept_home, name):
    inject, kind = FAULTS[name]
    for _ in range(4):
        inject(server)
    proc = kept("ask", TEXT, **NO_PASSES)
    line = assert_one_line_error(proc)
    assert "saved" in line, line
    server.assert_complete()
    assert _calls(kept_home) == [kind] * 4
    _stored_once(kept_home, TEXT)


def test_plain_text_where_a_tool_call_was_needed_is_shown_as_the_reply(kept, server, kept_home):
    server.reply_text("I would book that, but I cannot right now.")
    proc = kept("ask", "--json", TEXT, **NO_PASSES)
    assert_clean(proc)
    assert proc.returncode == 0
    assert harness.query(kept_home, "SELECT count(*) FROM calendar_events")[0][0] == 0
    _stored_once(kept_home, TEXT)


def test_an_unknown_tool_name_goes_back_to_the_model_which_then_answers(kept, server, kept_home):
    server.reply_tool_call("teleport", {"to": "Mars"})
    server.reply_text("Sorry, I cannot do that.")
    proc = kept("ask", "--json", TEXT, **NO_PASSES)
    assert_clean(proc)
    assert proc.returncode == 0
    tool_result = [m for m in server.model_requests[1].body["messages"] if m["role"] == "tool"][-1]["content"]
    assert "unknown tool" in tool_result
    _stored_once(kept_home, TEXT)


def test_a_model_that_only_ever_calls_tools_ends_with_one_clear_line(kept, server, kept_home):
    for _ in range(5):
        server.reply_tool_call("teleport", {"to": "Mars"})
    server.reply_empty()  # the last round offers no tools; an empty answer there
    for _ in range(3):
        server.reply_empty()
    proc = kept("ask", TEXT, **NO_PASSES)
    assert_one_line_error(proc)
    _stored_once(kept_home, TEXT)


def test_a_timeout_is_retried_and_logged_as_a_timeout(server, kept_home):
    """In process: the timeout is the adapter's (60 s from the CLI); here 0.5 s against a 3 s hang."""
    server.hang(3)
    server.reply_text("Here now.")
    model = OpenAIModel("fake-model", base_url=server.base_url, api_key=harness.FAKE_KEY, timeout=0.5)
    session = open_session(model=model)
    result = run_turn(session, TEXT)
    assert result.error is None and result.reply == "Here now."
    assert _calls(kept_home) == ["timeout", None]
    _stored_once(kept_home, TEXT)


def test_a_write_pass_that_meets_a_fault_leaves_the_cursor_and_the_next_pass_reads_again(kept_home):
    with RespondingOpenAI() as server:
        first = "The Atlas review moved to Thursday the 12th"
        server.reply_text("Noted.")  # the chat reply
        for _ in range(4):
            server.fail(429, retry_after=0)  # the write pass's first call, on every attempt
        proc = harness.run_kept("ask", first, home=kept_home, base_url=server.base_url, **PASS_EVERY_TURN)
        assert_clean(proc)
        assert proc.returncode == 0, "a failed write pass must not fail the turn"
        assert cursor(kept_home) == 0
        assert facts_citing(kept_home, first) == 0
        # The next turn's pass succeeds and reads the first message again.
        proc = harness.run_kept(
            "ask", "And the budget is 5,000 euros", home=kept_home, base_url=server.base_url, **PASS_EVERY_TURN
        )
        assert_clean(proc)
        assert facts_citing(kept_home, first) == 1
        assert cursor(kept_home) >= 3
        pass_failures = harness.query(
            kept_home, "SELECT count(*) FROM model_calls WHERE purpose LIKE 'memory%' AND error_class = 'rate_limit'"
        )[0][0]
        assert pass_failures == 4


@pytest.mark.parametrize("name", ["reset mid-stream", "truncated stream"])
@pytest.mark.parametrize("command", ["ask", "chat"])
def test_a_reply_cut_mid_stream_is_marked_before_the_retried_reply(kept, server, kept_home, name, command):
    """The cut reply's first words are already on the screen: a line says it was interrupted,
    so the person can tell the retried reply from a repeated one."""
    inject, _ = FAULTS[name]
    inject(server)  # streams "Booking the", then breaks
    server.reply_text("Booked Friday 10:00 with Sam.")
    if command == "ask":
        proc = kept("ask", TEXT, **NO_PASSES)
    else:
        proc = kept("chat", input=TEXT + "\n/quit\n", **NO_PASSES)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    cut, notice, reply = out.find("Booking the"), out.find("reply interrupted"), out.find("Booked Friday")
    assert -1 < cut < notice < reply, out
    assert out.count("Booked Friday") == 1 and out.count("reply interrupted") == 1, out
    # The notice stands on a line of its own.
    assert out[notice - 1] in "\n[(" and "\n" in out[cut:notice]
    _stored_once(kept_home, TEXT)


# --- a provider's body of any shape, and a stream that never ends -----------------------

ODD_BODIES = [  # (what the person asked for: a streamed reply or not, the body)
    (False, "null"),
    (False, '{"choices": [{"message": 5, "finish_reason": "stop"}]}'),
    (False, '{"choices": ["hello"]}'),
    (False, '"hello"'),
    (False, '{"choices": [{"message": {"role": "assistant", "tool_calls": 7}, "finish_reason": "tool_calls"}]}'),
    (True, "data: null\n\ndata: [DONE]\n\n"),
    (True, 'data: {"choices": [{"delta": 5, "index": 0}]}\n\ndata: [DONE]\n\n'),
    (True, "data: [1, 2, 3]\n\ndata: [DONE]\n\n"),
]


@pytest.mark.parametrize("stream, body", ODD_BODIES)
def test_a_provider_body_of_any_shape_is_a_malformed_reply_not_a_traceback(kept, server, kept_home, stream, body):
    for _ in range(4):
        server.reply_raw(body)
    proc = kept("ask", TEXT, **NO_PASSES) if stream else kept("ask", "--json", TEXT, **NO_PASSES)
    line = assert_one_line_error(proc)
    assert "saved" in line and "try again" in line, line
    assert set(_calls(kept_home)) <= {"malformed_reply", "empty_reply"}, _calls(kept_home)
    _stored_once(kept_home, TEXT)


def test_an_odd_body_once_then_a_good_reply_is_a_retried_success(kept, server, kept_home):
    server.reply_raw('{"choices": [{"message": 5}]}')
    server.reply_text("Booked Friday 10:00 with Sam.")
    proc = kept("ask", "--json", TEXT, **NO_PASSES)
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr
    assert _calls(kept_home) == ["malformed_reply", None]


def test_a_keep_alive_only_stream_cannot_outlast_the_call_deadline(kept, server, kept_home):
    """SSE comments every 0.2 s reset any per-read timeout; the overall deadline still ends the call."""
    import time

    server.keep_alive(60)
    server.keep_alive(60)
    began = time.monotonic()
    proc = kept("ask", TEXT, KEPT_MODEL_DEADLINE="3", **NO_PASSES)
    took = time.monotonic() - began
    line = assert_one_line_error(proc)
    assert "in time" in line and "try again" in line, line
    assert took < 20, f"the call ran {took:.0f} s past a 3 s deadline"
    assert "timeout" in _calls(kept_home)
    _stored_once(kept_home, TEXT)


@pytest.mark.parametrize("body", ["null", '{"content": 5, "stop_reason": "end_turn"}', '{"content": [7]}'])
def test_an_anthropic_body_of_any_shape_is_a_malformed_reply_too(body):
    from agent.models.anthropic import AnthropicModel
    from agent.models.base import MALFORMED, Message, ModelError
    from tests.fakeservers import FakeAnthropic

    with FakeAnthropic() as fake:
        fake.reply_raw(body)
        model = AnthropicModel("fake-model", base_url=fake.base_url, api_key=harness.FAKE_KEY)
        with pytest.raises(ModelError) as err:
            model.complete([Message("user", "hi")])
    assert err.value.kind == MALFORMED


def test_an_anthropic_keep_alive_stream_ends_at_the_deadline():
    import time

    from agent.models.anthropic import AnthropicModel
    from agent.models.base import TIMEOUT, Message, ModelError
    from agent.models.calls import call_model
    from tests.fakeservers import FakeAnthropic

    with FakeAnthropic() as fake:
        fake.keep_alive(30)
        model = AnthropicModel("fake-model", base_url=fake.base_url, api_key=harness.FAKE_KEY)
        began = time.monotonic()
        with pytest.raises(ModelError) as err:
            call_model(model, [Message("user", "hi")], purpose="chat", on_text=lambda d: None, deadline=1.5)
        assert time.monotonic() - began < 6
    assert err.value.kind == TIMEOUT and "deadline" in str(err.value)
