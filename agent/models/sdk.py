"""What the Anthropic and OpenAI providers share: ``SDKModel`` (the client
set-up and one ``complete`` that builds a request, sends it plain or streamed,
and reads the reply), the error wrapper, the reading of a tool call's
arguments, and the HTTP transport that holds every request to the model call's
overall deadline (agent/models/calls.py keeps the deadline itself).

The SDKs are passed in, never imported here, so ``kept --help`` stays fast.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent.models import calls
from agent.models.base import (
    MALFORMED,
    NOT_CONFIGURED,
    PLACEHOLDER_KEY,
    Message,
    ModelError,
    Response,
    StreamCallback,
    ToolCall,
    ToolSpec,
    classify_sdk_error,
)


class SDKModel:
    """A provider on a vendor SDK. A subclass names its SDK client class and
    variables and supplies the four parts that differ: the request's parameters,
    sending it, and reading a whole reply or a stream."""

    provider: str
    who: str  # the server, as an error names it ("Anthropic", "the OpenAI server")
    key_var: str
    base_var: str
    missing: str  # what to say when no key and no base URL are set

    def __init__(self, name: str, *, api_key: str | None = None, base_url: str | None = None, timeout: float = 60.0):
        self.name = name
        self.base_url, self._client = sdk_client(
            self._sdk_class(),
            api_key=api_key,
            base_url=base_url,
            key_var=self.key_var,
            base_var=self.base_var,
            timeout=timeout,
            missing=self.missing,
        )

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
        params = self._params(messages, system, tools or [], max_tokens, require_tool)
        with sdk_errors(self.who):
            if on_text is None:
                return self._read_reply(self._send(params, stream=False))
            with self._send(params, stream=True) as stream:
                return self._read_stream(stream, on_text)

    def _sdk_class(self) -> type:
        raise NotImplementedError

    def _params(
        self, messages: list[Message], system: str, tools: list[ToolSpec], max_tokens: int, require_tool: bool
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _send(self, params: dict[str, Any], *, stream: bool) -> Any:
        """The SDK's reply object, or with ``stream`` a context manager over its events."""
        raise NotImplementedError

    def _read_reply(self, reply: Any) -> Response:
        raise NotImplementedError

    def _read_stream(self, stream: Any, on_text: StreamCallback) -> Response:
        raise NotImplementedError


def tool_call(call_id: str, name: str | None, arguments: Any) -> ToolCall:
    """A tool call from the wire: ``arguments`` a JSON text (streams, OpenAI) or the object
    itself (Anthropic, some compatible servers); anything but a JSON object is malformed."""
    if not name:
        raise ModelError(MALFORMED, "a tool call came without a tool name")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ModelError(MALFORMED, f"the arguments of tool call {name!r} are not valid JSON: {exc}") from exc
    if not isinstance(arguments, dict):
        raise ModelError(MALFORMED, f"the arguments of tool call {name!r} are not a JSON object")
    return ToolCall(call_id, name, arguments)


def whole(value: Any) -> int | None:
    """A token count from a usage object: an int, or None (unknown) for anything else."""
    return value if isinstance(value, int) else None


def sdk_client(
    sdk_class, *, api_key: str | None, base_url: str | None, key_var: str, base_var: str, timeout: float, missing: str
):
    """(base_url, client) for an Anthropic or OpenAI SDK client class, set up the same way for both.

    The key and base URL come from the arguments, else the provider's variables;
    a base URL alone gets a placeholder key (local servers need none). The
    SDK's own retries are off: call_model retries and logs each attempt.
    """
    import os

    base_url = base_url or os.environ.get(base_var) or None
    api_key = api_key or os.environ.get(key_var) or (PLACEHOLDER_KEY if base_url else None)
    if not api_key:
        raise ModelError(NOT_CONFIGURED, missing)
    import importlib

    sdk = importlib.import_module(sdk_class.__module__.split(".")[0])
    # The client's HTTP transport enforces each model call's overall deadline (agent/models/calls.py sets it).
    return base_url, sdk_class(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0, http_client=deadline_client(sdk)
    )


@contextmanager
def sdk_errors(who: str) -> Iterator[None]:
    """Turn every SDK or transport failure into a classed ModelError; anything else is our bug and propagates."""
    try:
        yield
    except ModelError:
        raise
    except (AttributeError, TypeError, KeyError, IndexError) as exc:
        # The SDKs build reply objects without validating them: a 200 whose body is `null`
        # or has a number where the message should be arrives here as one of these.
        raise ModelError(MALFORMED, f"{who} sent a reply of an unexpected shape ({type(exc).__name__}: {exc})") from exc
    except Exception as exc:
        error = classify_sdk_error(exc, who)
        if error is None:
            raise
        raise error from exc


def deadline_client(sdk):
    """An HTTP client for ``sdk`` (the anthropic or openai module) whose requests obey the deadline."""
    httpx = _httpx_of(sdk)
    return sdk.DefaultHttpxClient(transport=_deadline_transport(httpx)(httpx.HTTPTransport()))


def _httpx_of(sdk):
    import importlib

    base = next(c for c in sdk.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    return importlib.import_module(base.__module__.split(".")[0])  # httpx, or httpx2 for newer SDKs


_TRANSPORTS: dict = {}


def _deadline_transport(httpx):
    """A transport class over ``httpx``'s own: each read waits at most the time left, and a body
    that keeps arriving (keep-alive comments) is cut when the deadline passes."""
    if httpx in _TRANSPORTS:
        return _TRANSPORTS[httpx]

    def expired(request):
        return httpx.ReadTimeout("the model call's deadline passed", request=request)

    class DeadlineStream(httpx.SyncByteStream):
        def __init__(self, inner, request):
            self.inner, self.request, self.end = inner, request, calls.deadline_end()

        def __iter__(self):
            for piece in self.inner:
                if self.end is not None and time.monotonic() > self.end:
                    raise expired(self.request)
                yield piece

        def close(self) -> None:
            self.inner.close()

    class DeadlineTransport(httpx.BaseTransport):
        def __init__(self, inner):
            self.inner = inner

        def handle_request(self, request):
            left = calls.time_left()
            if left is None:
                return self.inner.handle_request(request)
            if left <= 0:
                raise expired(request)
            timeouts = dict(request.extensions.get("timeout") or {})
            for phase in ("connect", "read", "write", "pool"):
                timeouts[phase] = left if timeouts.get(phase) is None else min(timeouts[phase], left)
            request.extensions["timeout"] = timeouts
            response = self.inner.handle_request(request)
            response.stream = DeadlineStream(response.stream, request)
            return response

        def close(self) -> None:
            self.inner.close()

    _TRANSPORTS[httpx] = DeadlineTransport
    return DeadlineTransport
