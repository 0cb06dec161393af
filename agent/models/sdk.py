"""What the Anthropic and OpenAI providers share: the client set-up, the error
wrapper, and the HTTP transport that holds every request to the model call's
overall deadline (agent/models/calls.py keeps the deadline itself).

The SDKs are passed in, never imported here, so ``kept --help`` stays fast.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from agent.models import calls
from agent.models.base import MALFORMED, NOT_CONFIGURED, PLACEHOLDER_KEY, ModelError, classify_sdk_error


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
