"""A model that replays a script, for tests and evals that need exact control.

It records every request it receives, fails on a call beyond its script, and
``assert_complete()`` fails when steps were left over, so a test cannot pass
by never calling the model.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.models.base import Message, ModelError, Response, StreamCallback, ToolCall, ToolSpec, Usage

_ids = itertools.count(1)


def text(content: str, input_tokens: int | None = 10, output_tokens: int | None = 5) -> Response:
    return Response(content, [], Usage(input_tokens, output_tokens), "scripted", "end_turn")


def tool_call(name: str, /, **arguments: Any) -> Response:
    return Response("", [ToolCall(f"call_{next(_ids)}", name, arguments)], Usage(10, 5), "scripted", "tool_use")


def error(kind: str, message: str = "scripted failure", retry_after: float | None = None) -> ModelError:
    return ModelError(kind, message, retry_after=retry_after)


@dataclass
class Request:
    messages: list[Message]
    system: str
    tools: list[ToolSpec] | None
    require_tool: bool = False


Step = Response | ModelError | Callable[[Request], Response]


@dataclass
class ScriptedModel:
    steps: list[Step]
    provider: str = "scripted"
    name: str = "scripted"
    requests: list[Request] = field(default_factory=list)

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
        request = Request(copy.deepcopy(messages), system, tools, require_tool)
        self.requests.append(request)
        if not self.steps:
            raise AssertionError(f"ScriptedModel called {len(self.requests)} times, beyond its script")
        step = self.steps.pop(0)
        if isinstance(step, ModelError):
            raise step
        response = step(request) if callable(step) else step
        if on_text and response.text:
            on_text(response.text)
        return response

    def assert_complete(self) -> None:
        assert not self.steps, f"{len(self.steps)} scripted steps were never used"
