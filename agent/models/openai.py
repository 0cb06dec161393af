"""OpenAI chat completions with tools and streaming, for any compatible server.

OPENAI_BASE_URL points the client at Ollama, vLLM, llama.cpp's server or any
other OpenAI-compatible API; such servers usually need no key, so a
placeholder is sent when none is set. The SDK is imported when a model is
created, and its own retries are off: call_model retries and logs each attempt.
"""

from __future__ import annotations

import json
from typing import Any

from agent.models.base import MALFORMED, Message, ModelError, Response, StreamCallback, ToolSpec, Usage
from agent.models.sdk import SDKModel, tool_call, whole


class OpenAIModel(SDKModel):
    provider = "openai"
    who = "the OpenAI server"
    key_var = "OPENAI_API_KEY"
    base_var = "OPENAI_BASE_URL"
    missing = "OPENAI_API_KEY is not set (or point OPENAI_BASE_URL at a local server)"

    def _sdk_class(self) -> type:
        import openai

        return openai.OpenAI

    def _params(
        self, messages: list[Message], system: str, tools: list[ToolSpec], max_tokens: int, require_tool: bool
    ) -> dict[str, Any]:
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
        return params

    def _send(self, params: dict[str, Any], *, stream: bool) -> Any:
        if not stream:
            return self._client.chat.completions.create(**params)
        return self._client.chat.completions.create(**params, stream=True, stream_options={"include_usage": True})

    def _read_reply(self, completion) -> Response:
        if not completion.choices:
            raise ModelError(MALFORMED, "the reply has no choices")
        choice = completion.choices[0]
        message = choice.message
        calls = [
            tool_call(tc.id or f"call_{i}", tc.function.name, tc.function.arguments)
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
        calls = [tool_call(cid or f"call_{i}", name, "".join(parts)) for i, (cid, name, parts) in sorted(slots.items())]
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


def _usage(raw) -> Usage:
    if raw is None:
        return Usage()
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None

    return Usage(
        whole(getattr(raw, "prompt_tokens", None)), whole(getattr(raw, "completion_tokens", None)), whole(cached)
    )
