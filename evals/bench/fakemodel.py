"""A fake OpenAI server that answers every request by itself, with delays.

The scripted queue of ``tests.fakeservers.FakeOpenAI`` is served first;
after it, each request gets an answer made from the request: a chat turn
gets a short text reply, and a memory call (one tool offered, e.g.
``save_facts``) gets that tool called with arguments built from the
transcript in the prompt, the way an obedient model would. It copies the
person's words verbatim, credentials included, so what kept stores shows
whether kept itself keeps secrets out.

``delay`` (seconds, or a callable returning seconds) holds each answer
back, so a SIGKILL can land while a call is in flight.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from typing import Any, SupportsIndex

from evals.bench.harness import REPO

try:
    from tests.fakeservers import FakeOpenAI, Step
except ModuleNotFoundError:  # run from an installed kept: the tests live in the repo
    import sys

    sys.path.insert(0, str(REPO))
    from tests.fakeservers import FakeOpenAI, Step

_LINE = re.compile(r"^\[(\d+)\] \S+ \S+ ([^:]+): (.*)$")
_CANDIDATE = re.compile(r"^(\d+)\. ")


class _Recorder(list):
    """The server's request log; also remembers, per handler thread, the body just received."""

    def __init__(self, local: threading.local):
        super().__init__()
        self._local = local

    def append(self, item) -> None:
        self._local.body = item.body
        super().append(item)


class _Queue(list):
    """The scripted steps first, then the server's own answer to the request at hand."""

    def __init__(self, server: RespondingOpenAI):
        super().__init__()
        self._server = server

    def __bool__(self) -> bool:  # the base server asks "is there a step?" before popping
        return True

    def pop(self, index: SupportsIndex = -1):
        local = self._server._local
        local.delay = 0.0
        if len(self):
            return super().pop(index)
        step, local.delay = self._server.answer(getattr(local, "body", None))
        return step


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A client killed between two requests on a kept-alive connection resets it: expected
        # in the crash trials, not a fault of the server worth a traceback on the console.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class RespondingOpenAI(FakeOpenAI):
    def __init__(self, *, delay: float | Callable[[dict], float] = 0.0, model: str = "fake-model"):
        super().__init__(model)
        self._local = threading.local()
        self._steps = _Queue(self)
        self.requests = _Recorder(self._local)
        self.delay = delay
        self.served = 0
        self.arrived = threading.Event()  # set on each model request; a killer waits on it

    # -- what it answers ----------------------------------------------------

    def answer(self, body: Any) -> tuple[Step, float]:
        self.served += 1
        self.arrived.set()
        body = body if isinstance(body, dict) else {}
        delay = self.delay(body) if callable(self.delay) else self.delay
        tools = body.get("tools") or []
        if len(tools) == 1:
            name = tools[0]["function"]["name"]
            args = memory_answer(name, tools[0]["function"].get("parameters") or {}, _prompt(body))
            return Step("reply", tool_calls=[(self._call_id(), name, json.dumps(args))]), delay
        return Step("reply", text=f"ok ({self.served})"), delay

    def assert_complete(self) -> None:
        assert not len(self._steps), f"{len(self._steps)} scripted replies were never requested"

    def requests_with(self, needle: str) -> int:
        """How many model requests carried ``needle`` anywhere in their messages."""
        return sum(1 for r in self.model_requests if needle in json.dumps(r.body, ensure_ascii=False))

    # -- hold answers back, and ignore clients that were killed meanwhile ----

    server_class = _QuietServer

    def _send_json(self, h, status, payload, headers=None):
        self._hold()
        try:
            super()._send_json(h, status, payload, headers)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send_stream(self, h, events, *, drop):
        self._hold()
        try:
            super()._send_stream(h, events, drop=drop)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _hold(self) -> None:
        delay = getattr(self._local, "delay", 0.0)
        self._local.delay = 0.0
        if delay > 0:
            self._stopping.wait(delay)


def _prompt(body: dict) -> str:
    return "\n".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user")


def transcript_lines(prompt: str) -> list[tuple[int, str, str]]:
    """(number, author, text) for each "[n] date time author: text" line of a memory prompt."""
    out = []
    for line in prompt.splitlines():
        m = _LINE.match(line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out


def memory_answer(tool: str, schema: dict, prompt: str) -> dict:
    """The arguments an obedient memory model would give ``tool`` for ``prompt``."""
    lines = [(n, text) for n, who, text in transcript_lines(prompt) if who != "assistant"]
    if tool == "save_facts":
        # Every other key the schema requires (a hosted model's commitments) gets its smallest value.
        return {
            **minimal(schema),
            "facts": [{"text": f"The person said: {text}", "messages": [n]} for n, text in lines],
        }
    if tool == "decide_facts":
        numbers = [int(m.group(1)) for m in map(_CANDIDATE.match, prompt.split("\n\nKept facts:")[0].splitlines()) if m]
        return {"decisions": [{"candidate": n, "action": "ADD"} for n in numbers]}
    if tool == "save_memory":
        return {
            "who": "A person at work.",
            "asked": "",
            "keep": "\n".join(text for _, text in lines[-5:]),
            "lately": "",
            "moved_out": [],
            "soul": "",
        }
    return minimal(schema)


def minimal(schema: dict) -> Any:
    """The smallest value that satisfies ``schema``: required keys only, empty lists."""
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal(props.get(k, {})) for k in schema.get("required", [])}
    if not isinstance(kind, str):
        return None
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(kind)
