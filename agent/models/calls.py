"""Every model call goes through here: retries with backoff, an overall
deadline, and the call log.

SDK-level retries are switched off in the providers so that each failed
attempt is logged here by class, and the policy is the same for every
provider.

The deadline bounds one ``call_model`` (all its attempts): the SDKs' timeout
is per read, so a server that sends only SSE keep-alive comments would never
time out. The providers' HTTP clients carry a deadline transport, which
checks the deadline on every piece of the body as it arrives and caps each
read at the time left, so no stream can outlast it.
"""

from __future__ import annotations

import contextvars
import random
import time
from collections.abc import Callable

from agent.models.base import TIMEOUT, Message, Model, ModelError, Response, StreamCallback, ToolSpec, check_reply
from agent.models.prices import cost
from memory.call_log import CallRecord, log_call
from memory.secrets import redact

MAX_ATTEMPTS = 4
BASE_DELAY = 0.5
MAX_DELAY = 20.0
DEFAULT_DEADLINE = 180.0  # seconds for one call, retries included; config: model_deadline_seconds

_deadline_seconds = DEFAULT_DEADLINE
# When the call in progress in this thread must end (time.monotonic()), or None.
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("kept_model_deadline", default=None)


def set_deadline(seconds: float) -> None:
    """The overall deadline of every later model call in this process (from the settings)."""
    global _deadline_seconds
    _deadline_seconds = float(seconds)


def deadline_end() -> float | None:
    """The monotonic time the current call must end by (None outside a call)."""
    return _deadline.get()


def time_left() -> float | None:
    """Seconds left before the current call's deadline (None outside a call)."""
    end = _deadline.get()
    return None if end is None else end - time.monotonic()


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
    deadline: float | None = None,
) -> Response:
    """Call ``model``, retrying retryable failures until the deadline; raise the last ModelError."""
    attempt = 0
    seconds = _deadline_seconds if deadline is None else deadline
    token = _deadline.set(time.monotonic() + seconds)
    try:
        while True:
            attempt += 1
            started = time.perf_counter()
            try:
                response = check_reply(
                    model.complete(
                        messages,
                        system=system,
                        tools=tools,
                        on_text=on_text,
                        max_tokens=max_tokens,
                        require_tool=require_tool,
                    )
                )
            except ModelError as exc:
                if exc.kind == TIMEOUT and (time_left() or 0) <= 0:
                    exc = ModelError(
                        TIMEOUT, f"no complete reply within the {seconds:g} s deadline (model_deadline_seconds)"
                    )
                _log(db, model, purpose, started, attempt, error=exc)
                if not exc.retryable or attempt >= max_attempts:
                    raise exc from None
                delay = backoff(attempt, exc.retry_after)
                if delay >= (time_left() or 0):  # no time for another attempt
                    raise exc from None
                if on_retry:
                    on_retry(exc, delay)
                sleep(delay)
                continue
            _log(db, model, purpose, started, attempt, response=response)
            return response
    finally:
        _deadline.reset(token)


def _log(
    db,
    model: Model,
    purpose: str,
    started: float,
    attempt: int,
    *,
    response: Response | None = None,
    error: ModelError | None = None,
) -> None:
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
        cost_usd=cost(model.provider, model.name, usage.input_tokens, usage.output_tokens, usage.cached_input_tokens)
        if usage
        else None,
        attempt=attempt,
        error_class=error.kind if error else None,
        error=redact(str(error)) if error else None,
    )
    log_call(db, record)
