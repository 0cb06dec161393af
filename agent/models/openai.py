"""OpenAI chat completions with tools and streaming, for any compatible server.

OPENAI_BASE_URL points the client at Ollama, vLLM, llama.cpp's server or any
other OpenAI-compatible API; such servers usually need no key, so a
placeholder is sent when none is set. The SDK is imported when a model is
created, and its own retries are off: call_model retries and logs each attempt.
"""

from __future__ import annotations

import json
from typing import Any

from agent.models.base import (
    MALFORMED,
    Message,
    ModelError,
    Response,
    StreamCallback,
    ToolCall,
    ToolSpec,
    Usage,
)
from agent.models.sdk import sdk_client, sdk_errors


class OpenAIModel:
    provider = "openai"

    def __init__(self, name: str, *, api_key: str | None = None, base_url: str | None = None, timeout: float = 60.0):
        import openai

        self.name = name
        self.base_url, self._client = sdk_client(
            openai.OpenAI,
            api_key=api_key,
            base_url=base_url,
            key_var="OPENAI_API_KEY",
            base_var="OPENAI_BASE_URL",
            timeout=timeout,
            missing="OPENAI_API_KEY is not set (or point OPENAI_BASE_URL at a local server)",
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
        params: dict[str, Any] = {"model": self.name, "messages": wire_messages(messages, system)}
        # OpenAI's newer models refuse max_tokens; compatible servers know only max_tokens.
        official = self.base_url is None or "api.openai.com" in self.base_url
        params["max_completion_tokens" if official else "max_tokens"] = max_tokens
        if tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
            if require_tool:
                params["tool_choice"] = (
                    {"type": "function", "function": {"name": tools[0].name}} if len(tools) == 1 else "required"
                )
        with sdk_errors("the OpenAI server"):
            if on_text is None:
                return self._read_completion(self._client.chat.completions.create(**params))
            stream = self._client.chat.completions.create(**params, stream=True, stream_options={"include_usage": True})
            with stream:
                return self._read_stream(stream, on_text)

    def _read_completion(self, completion) -> Response:
        if not completion.choices:
            raise ModelError(MALFORMED, "the reply has no choices")
        choice = completion.choices[0]
        message = choice.message
        calls = [
            _call(tc.id or f"call_{i}", tc.function.name, tc.function.arguments)
            for i, tc in enumerate(message.tool_calls or [])
        ]
        return Response(
            message.content or "", calls, _usage(completion.usage), completion.model or self.name, choice.finish_reason
        )

    def _read_stream(self, stream, on_text: StreamCallback) -> Response:
        text: list[str] = []
        slots: dict[int, list] = {}  # tool-call index -> [id, name, argument pieces]
        usage, model, finish = Usage(), self.name, None
        for chunk in stream:
            model = chunk.model or model
            if getattr(chunk, "usage", None):
                usage = _usage(chunk.usage)
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is not None and delta.content:
                    text.append(delta.content)
                    on_text(delta.content)
                for tc in (delta.tool_calls if delta is not None else None) or []:
                    # A server that leaves out the index sends each call whole, in order.
                    index = tc.index if tc.index is not None else len(slots)
                    slot = slots.setdefault(index, [None, None, []])
                    slot[0] = slot[0] or tc.id
                    if tc.function is not None:
                        slot[1] = slot[1] or tc.function.name
                        if tc.function.arguments:
                            slot[2].append(tc.function.arguments)
                finish = choice.finish_reason or finish
        if finish is None:
            raise ModelError(MALFORMED, "the reply stream ended before a finish_reason")
        calls = [_call(cid or f"call_{i}", name, "".join(parts)) for i, (cid, name, parts) in sorted(slots.items())]
        return Response("".join(text), calls, usage, model, finish)


def wire_messages(messages: list[Message], system: str = "") -> list[dict]:
    """kept's messages as chat-completion messages.

    There is no error flag on a tool message: the loop's failed tool results
    say so in their content ({"error": ...}).
    """
    wired: list[dict] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m.role == "tool":
            wired.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif m.role == "assistant":
            if not m.content and not m.tool_calls:
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": m.content or None}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
                    }
                    for c in m.tool_calls
                ]
            wired.append(entry)
        else:
            wired.append({"role": "user", "content": m.content})
    return wired


def _call(call_id: str, name: str | None, arguments: Any) -> ToolCall:
    if not name:
        raise ModelError(MALFORMED, "a tool call came without a tool name")
    if isinstance(arguments, str):  # the API sends a JSON string; some servers send the object itself
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ModelError(MALFORMED, f"the arguments of tool call {name!r} are not valid JSON: {exc}") from exc
    if not isinstance(arguments, dict):
        raise ModelError(MALFORMED, f"the arguments of tool call {name!r} are not a JSON object")
    return ToolCall(call_id, name, arguments)


def _usage(raw) -> Usage:
    if raw is None:
        return Usage()
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None

    def count(value) -> int | None:
        return value if isinstance(value, int) else None

    return Usage(
        count(getattr(raw, "prompt_tokens", None)), count(getattr(raw, "completion_tokens", None)), count(cached)
    )
