"""Every model call goes through here: retries with backoff, and the call log.

SDK-level retries are switched off in the providers so that each failed
attempt is logged here by class, and the policy is the same for every
provider.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from agent.models.base import Message, Model, ModelError, Response, StreamCallback, ToolSpec, check_reply
from agent.models.prices import cost
from memory.calls import CallRecord, log_call
from memory.secrets import redact

MAX_ATTEMPTS = 4
BASE_DELAY = 0.5
MAX_DELAY = 20.0


def backoff(attempt: int, retry_after: float | None) -> float:
    if retry_after is not None:
        return min(max(retry_after, 0.0), MAX_DELAY)
    return min(BASE_DELAY * 2 ** (attempt - 1), MAX_DELAY) * (0.5 + random.random() / 2)


def call_model(
    model: Model,
    messages: list[Message],
    *,
    db=None,
    purpose: str,
    system: str = "",
    tools: list[ToolSpec] | None = None,
    on_text: StreamCallback | None = None,
    on_retry: Callable[[ModelError, float], None] | None = None,
    max_tokens: int = 1024,
    require_tool: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> Response:
    """Call ``model``, retrying retryable failures; raise the last ModelError."""
    attempt = 0
    while True:
        attempt += 1
        started = time.perf_counter()
        try:
            response = check_reply(
                model.complete(messages, system=system, tools=tools, on_text=on_text, max_tokens=max_tokens,
                               require_tool=require_tool)
            )
        except ModelError as exc:
            _log(db, model, purpose, started, attempt, error=exc)
            if not exc.retryable or attempt >= max_attempts:
                raise
            delay = backoff(attempt, exc.retry_after)
            if on_retry:
                on_retry(exc, delay)
            sleep(delay)
            continue
        _log(db, model, purpose, started, attempt, response=response)
        return response


def _log(db, model: Model, purpose: str, started: float, attempt: int, *, response: Response | None = None, error: ModelError | None = None) -> None:
    if db is None:
        return
    usage = response.usage if response else None
    record = CallRecord(
        purpose=purpose,
        provider=model.provider,
        model=(response.model if response and response.model else model.name),
        latency_ms=(time.perf_counter() - started) * 1000,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        cost_usd=cost(model.provider, model.name, usage.input_tokens, usage.output_tokens,
                      usage.cached_input_tokens) if usage else None,
        attempt=attempt,
        error_class=error.kind if error else None,
        error=redact(str(error)) if error else None,
    )
    log_call(db, record)
