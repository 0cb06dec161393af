"""The one interface every model provider implements.

A provider turns kept's messages and tool specs into its API's shapes and
back. It raises ``ModelError`` with a class (``kind``) for every failure,
including replies that are neither usable text nor a well-formed tool call:
those are errors, never answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["user", "assistant", "tool"]

# A compatible server on a base URL may need no key; the SDKs still want one.
PLACEHOLDER_KEY = "not-needed-for-local-server"


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Message:
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    # For role == "tool": which call this answers, and whether the tool failed.
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments object
    # What kind of value an argument holds, for checks against the request (agent/screen.py):
    # {"attendees": "people", "to": "person", "due": "deadline"}; aliases included. Not shown to models.
    kinds: dict[str, str] = field(default_factory=dict)


@dataclass
class Usage:
    # None means the API did not report it: missing stays missing, never zero.
    # input_tokens counts every prompt token, cached ones included;
    # cached_input_tokens is the part of it that was read from a prompt cache.
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None


@dataclass
class Response:
    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    model: str
    stop_reason: str | None = None


# Error classes, shared by the retry policy, the call log and the evals.
RATE_LIMIT = "rate_limit"
SERVER = "server_error"
TIMEOUT = "timeout"
CONNECTION = "connection"
MALFORMED = "malformed_reply"  # unparseable reply or malformed tool-call JSON
EMPTY = "empty_reply"
AUTH = "auth"
BAD_REQUEST = "bad_request"
NOT_CONFIGURED = "not_configured"
CANCELLED = "cancelled"  # stopped on purpose (the embedded model yields memory writing to the chat)

RETRYABLE = {RATE_LIMIT, SERVER, TIMEOUT, CONNECTION, MALFORMED, EMPTY}


class ModelError(Exception):
    def __init__(self, kind: str, message: str, *, retry_after: float | None = None):
        from memory.secrets import redact

        # A provider's error may echo the key it was sent: it never reaches a screen, log or row.
        super().__init__(redact(message))
        self.kind = kind
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


StreamCallback = Callable[[str], None]


@runtime_checkable
class Model(Protocol):
    provider: str
    name: str

    def complete(
        self,
        messages: list[Message],
        *,
        system: str = "",
        tools: list[ToolSpec] | None = None,
        on_text: StreamCallback | None = None,
        max_tokens: int = 1024,
        require_tool: bool = False,
    ) -> Response:
        """One model call. ``on_text`` receives text deltas as they stream;
        ``require_tool`` asks for a call of one of ``tools`` (of the only one,
        when there is one), not text: structured output for memory writing."""
        ...


def error_for_status(status: int, message: str, headers=None, error_type: str | None = None) -> ModelError:
    """Classify an HTTP error reply the same way for every provider.

    ``error_type`` is the provider's own error name where the body gives one
    (Anthropic sends ``overloaded_error`` even inside a 200 stream).
    """
    if error_type == "insufficient_quota":  # a 429 that no amount of waiting fixes
        return ModelError(BAD_REQUEST, message)
    if status == 429 or error_type in ("rate_limit_error", "rate_limit_exceeded"):
        return ModelError(RATE_LIMIT, message, retry_after=retry_after_seconds(headers))
    if status in (401, 403):
        return ModelError(AUTH, message)
    if status == 408:
        return ModelError(TIMEOUT, message)
    if status >= 500 or (status < 400 and error_type in ("overloaded_error", "api_error", "server_error")):
        return ModelError(SERVER, message, retry_after=retry_after_seconds(headers))
    return ModelError(BAD_REQUEST, message)


def classify_sdk_error(exc: Exception, who: str) -> ModelError | None:
    """A ModelError for an ``anthropic`` / ``openai`` SDK or transport exception; None if it is neither.

    Matched by class name along the MRO so it holds for both SDK generations
    (built on ``httpx`` or ``httpx2``) without importing either.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    error_type = error.get("type") or error.get("code") if isinstance(error, dict) else None
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        return error_for_status(
            status,
            f"{who} {status}: {getattr(exc, 'message', exc)}",
            getattr(response, "headers", None),
            getattr(exc, "code", None) or error_type,
        )
    if names & {"APITimeoutError", "TimeoutException"}:
        return ModelError(TIMEOUT, f"{who} did not answer in time")
    if names & {"APIConnectionError", "TransportError"}:
        cause = exc.__cause__ or exc.__context__
        return ModelError(CONNECTION, f"connection to {who} failed: {cause or exc}")
    if names & {"APIResponseValidationError", "JSONDecodeError"}:
        return ModelError(MALFORMED, f"{who} sent a reply that does not parse: {exc}")
    if "APIError" in names:  # an error event inside a 200 stream
        return error_for_status(500, f"{who} error: {getattr(exc, 'message', exc)}", None, error_type)
    return None


def retry_after_seconds(headers) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return max(float(headers["retry-after-ms"]) / 1000, 0.0)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            from datetime import UTC, datetime
            from email.utils import parsedate_to_datetime

            return max((parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None


def check_reply(response: Response) -> Response:
    """Refuse a reply with neither text nor a tool call: it is an error, not an answer."""
    if not response.text.strip() and not response.tool_calls:
        raise ModelError(EMPTY, "the model returned an empty reply")
    return response
