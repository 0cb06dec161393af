"""call_model: the retry policy and the call log, with the scripted model."""

from __future__ import annotations

import pytest

from agent.models import base
from agent.models.calls import MAX_DELAY, backoff, call_model
from agent.models.scripted import ScriptedModel, error, text, tool_call
from memory.call_log import list_calls


def rows(db):
    return list(reversed(list_calls(db)))  # oldest first


def hi():
    return [base.Message("user", "hi")]


def test_gives_up_after_max_attempts_and_logs_each(db):
    model = ScriptedModel([error(base.SERVER, "boom 1"), error(base.SERVER, "boom 2"), error(base.SERVER, "boom 3")])
    sleeps = []
    with pytest.raises(base.ModelError) as caught:
        call_model(model, hi(), db=db, purpose="chat", max_attempts=3, sleep=sleeps.append)
    assert caught.value.kind == base.SERVER and str(caught.value) == "boom 3"
    model.assert_complete()
    logged = rows(db)
    assert [r["attempt"] for r in logged] == [1, 2, 3]
    assert [r["error_class"] for r in logged] == [base.SERVER] * 3
    assert [r["error"] for r in logged] == ["boom 1", "boom 2", "boom 3"]
    assert len(sleeps) == 2  # no sleep after the last attempt


@pytest.mark.parametrize("kind", [base.AUTH, base.BAD_REQUEST, base.NOT_CONFIGURED])
def test_non_retryable_errors_are_not_retried(db, kind):
    model = ScriptedModel([error(kind), text("never reached")])
    sleeps = []
    with pytest.raises(base.ModelError) as caught:
        call_model(model, hi(), db=db, purpose="chat", sleep=sleeps.append)
    assert caught.value.kind == kind
    assert len(model.requests) == 1 and sleeps == []
    assert [(r["attempt"], r["error_class"]) for r in rows(db)] == [(1, kind)]


@pytest.mark.parametrize("kind", [base.RATE_LIMIT, base.SERVER, base.TIMEOUT, base.CONNECTION, base.MALFORMED])
def test_retryable_errors_are_retried_then_succeed(db, kind):
    model = ScriptedModel([error(kind), text("done")])
    response = call_model(model, hi(), db=db, purpose="chat", sleep=lambda s: None)
    assert response.text == "done"
    model.assert_complete()
    assert [(r["attempt"], r["error_class"]) for r in rows(db)] == [(1, kind), (2, None)]


def test_each_attempt_logged_with_purpose_tokens_and_latency(db):
    model = ScriptedModel([error(base.TIMEOUT, "slow"), text("ok", input_tokens=30, output_tokens=4)])
    call_model(model, hi(), db=db, purpose="memory.facts", sleep=lambda s: None)
    first, second = rows(db)
    assert first["purpose"] == second["purpose"] == "memory.facts"
    assert first["provider"] == "scripted" and first["input_tokens"] is None and first["error"] == "slow"
    assert (second["input_tokens"], second["output_tokens"], second["error_class"]) == (30, 4, None)
    assert second["cost_usd"] == 0.0  # the scripted provider is free
    assert first["latency_ms"] >= 0 and second["latency_ms"] >= 0


def test_empty_reply_is_an_error_not_an_answer(db):
    model = ScriptedModel([text("   "), text("")])
    with pytest.raises(base.ModelError) as caught:
        call_model(model, hi(), db=db, purpose="chat", max_attempts=2, sleep=lambda s: None)
    assert caught.value.kind == base.EMPTY
    assert [r["error_class"] for r in rows(db)] == [base.EMPTY, base.EMPTY]


def test_a_tool_call_without_text_is_an_answer(db):
    model = ScriptedModel([tool_call("list_tasks")])
    response = call_model(model, hi(), db=db, purpose="chat")
    assert [c.name for c in response.tool_calls] == ["list_tasks"]
    assert [r["error_class"] for r in rows(db)] == [None]


def test_backoff_honours_retry_after_and_reports_it(db):
    model = ScriptedModel([error(base.RATE_LIMIT, retry_after=7.0), text("ok")])
    sleeps, retries = [], []
    call_model(
        model,
        hi(),
        db=db,
        purpose="chat",
        sleep=sleeps.append,
        on_retry=lambda exc, delay: retries.append((exc.kind, delay)),
    )
    assert sleeps == [7.0]
    assert retries == [(base.RATE_LIMIT, 7.0)]


def test_backoff_grows_and_is_capped():
    assert backoff(1, 3.0) == 3.0
    assert backoff(1, 10_000) == MAX_DELAY  # a huge Retry-After never parks the terminal
    assert backoff(1, -5) == 0.0
    for attempt in (1, 2, 3):
        full = 0.5 * 2 ** (attempt - 1)
        for _ in range(20):
            assert full / 2 <= backoff(attempt, None) <= full
    assert backoff(30, None) <= MAX_DELAY


def test_secrets_in_error_text_are_redacted_in_the_log(db):
    fake_key = "sk-ant-" + "TESTONLY" * 3
    model = ScriptedModel([error(base.AUTH, f"invalid x-api-key {fake_key}")])
    with pytest.raises(base.ModelError):
        call_model(model, hi(), db=db, purpose="chat")
    assert fake_key not in rows(db)[0]["error"]


def test_without_a_database_nothing_is_logged_and_the_reply_returns():
    model = ScriptedModel([error(base.CONNECTION), text("ok")])
    assert call_model(model, hi(), purpose="chat", sleep=lambda s: None).text == "ok"


@pytest.mark.parametrize(
    ("status", "error_type", "kind"),
    [
        (429, None, base.RATE_LIMIT),
        (500, None, base.SERVER),
        (503, None, base.SERVER),
        (529, "overloaded_error", base.SERVER),
        (200, "overloaded_error", base.SERVER),
        (408, None, base.TIMEOUT),
        (401, None, base.AUTH),
        (403, None, base.AUTH),
        (400, None, base.BAD_REQUEST),
        (404, None, base.BAD_REQUEST),
        (429, "insufficient_quota", base.BAD_REQUEST),
    ],
)
def test_error_for_status_classes(status, error_type, kind):
    assert base.error_for_status(status, "m", {}, error_type).kind == kind


def test_retry_after_header_forms():
    assert base.retry_after_seconds({"retry-after": "3"}) == 3.0
    assert base.retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert base.retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert base.retry_after_seconds({"retry-after": "soon"}) is None
    assert base.retry_after_seconds({}) is None
    assert base.error_for_status(429, "slow down", {"retry-after": "4"}).retry_after == 4.0


def test_cached_input_is_priced_at_the_cache_rate(db):
    from agent.models.prices import cost

    reply = base.Response("ok", [], base.Usage(10_000, 500, 8_000), "claude-haiku-4-5", "end_turn")
    model = ScriptedModel([reply])
    model.provider, model.name = "anthropic", "claude-haiku-4-5"  # priced as the real model would be
    call_model(model, hi(), db=db, purpose="chat")
    # 2,000 fresh input tokens at $1/M, 8,000 cache reads at $0.10/M, 500 output at $5/M.
    assert rows(db)[0]["cost_usd"] == pytest.approx((2_000 * 1.0 + 8_000 * 0.1 + 500 * 5.0) / 1e6)
    assert cost("anthropic", "claude-haiku-4-5", 10_000, 500) == pytest.approx((10_000 * 1.0 + 500 * 5.0) / 1e6)
    assert cost("openai", "gpt-4.1", 1_000, 0, 1_000) == pytest.approx(1_000 * 0.5 / 1e6)
