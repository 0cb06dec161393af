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


@dataclass
class Usage:
    # None means the API did not report it: missing stays missing, never zero.
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

RETRYABLE = {RATE_LIMIT, SERVER, TIMEOUT, CONNECTION, MALFORMED, EMPTY}


class ModelError(Exception):
    def __init__(self, kind: str, message: str, *, retry_after: float | None = None):
        super().__init__(message)
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
    ) -> Response:
        """One model call. ``on_text`` receives text deltas as they stream."""
        ...


def check_reply(response: Response) -> Response:
    """Refuse a reply with neither text nor a tool call: it is an error, not an answer."""
    if not response.text.strip() and not response.tool_calls:
        raise ModelError(EMPTY, "the model returned an empty reply")
    return response
