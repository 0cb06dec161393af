"""Anthropic's Messages API: tool_use / tool_result blocks, streaming.

The SDK is imported when a model is created, not when this module is, so
``kept --help`` never pays for it. The SDK's own retries are off: call_model
retries and logs every attempt. ANTHROPIC_BASE_URL points the client at any
Anthropic-compatible server.
"""

from __future__ import annotations

import json
from typing import Any

from agent.models.base import MALFORMED, Message, ModelError, Response, StreamCallback, ToolSpec, Usage
from agent.models.sdk import SDKModel, tool_call, whole


class AnthropicModel(SDKModel):
    provider = "anthropic"
    who = "Anthropic"
    key_var = "ANTHROPIC_API_KEY"
    base_var = "ANTHROPIC_BASE_URL"
    missing = "ANTHROPIC_API_KEY is not set"

    def _sdk_class(self) -> type:
        import anthropic

        return anthropic.Anthropic

    def _params(
        self, messages: list[Message], system: str, tools: list[ToolSpec], max_tokens: int, require_tool: bool
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.name,
            "max_tokens": max_tokens,
            "messages": wire_messages(messages, tools_offered=bool(tools)),
        }
        if system:
            params["system"] = system
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
            ]
            if require_tool:
                params["tool_choice"] = {"type": "tool", "name": tools[0].name} if len(tools) == 1 else {"type": "any"}
        return params

    def _send(self, params: dict[str, Any], *, stream: bool) -> Any:
        return self._client.messages.create(**params, stream=True) if stream else self._client.messages.create(**params)

    def _read_reply(self, message) -> Response:
        text, calls = [], []
        for block in message.content or []:
            if block.type == "text":
                text.append(block.text)
            elif block.type == "tool_use":
                calls.append(tool_call(block.id, block.name, block.input))
        return Response(
            "".join(text),
            calls,
            _usage(getattr(message, "usage", None)),
            message.model or self.name,
            message.stop_reason,
        )

    def _read_stream(self, stream, on_text: StreamCallback) -> Response:
        text: list[str] = []
        tools: dict[int, tuple[str, str, list[str]]] = {}  # block index -> (id, name, JSON pieces)
        usage, model, stop_reason, finished = Usage(), self.name, None, False
        for event in stream:
            if event.type == "message_start":
                model = event.message.model or model
                usage = _usage(getattr(event.message, "usage", None))
            elif event.type == "content_block_start" and event.content_block.type == "tool_use":
                tools[event.index] = (event.content_block.id, event.content_block.name, [])
            elif event.type == "content_block_delta":
                if event.delta.type == "text_delta":
                    text.append(event.delta.text)
                    on_text(event.delta.text)
                elif event.delta.type == "input_json_delta":
                    tools[event.index][2].append(event.delta.partial_json)
            elif event.type == "message_delta":
                stop_reason = event.delta.stop_reason
                # message_delta carries the cumulative counts; message_start only the opening ones.
                final = getattr(event, "usage", None)
                if final is not None and getattr(final, "output_tokens", None) is not None:
                    usage.output_tokens = final.output_tokens
            elif event.type == "message_stop":
                finished = True
        if not finished:
            raise ModelError(MALFORMED, "the reply stream ended before message_stop")
        calls = [tool_call(cid, name, "".join(parts)) for _, (cid, name, parts) in sorted(tools.items())]
        return Response("".join(text), calls, usage, model, stop_reason)


def wire_messages(messages: list[Message], *, tools_offered: bool) -> list[dict]:
    """kept's messages as Anthropic turns; consecutive same-role blocks share one turn.

    The API refuses tool_use / tool_result blocks in a request without tools,
    so when none are offered (the loop's last round) past calls become text.
    """
    turns: list[dict] = []
    for m in messages:
        role = "assistant" if m.role == "assistant" else "user"
        blocks: list[dict] = []
        if m.role == "tool":
            if tools_offered:
                result = {"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content or "(no output)"}
                blocks.append({**result, "is_error": True} if m.is_error else result)
            else:
                label = "error" if m.is_error else "result"
                blocks.append({"type": "text", "text": f"[{m.name or 'tool'} {label}] {m.content}"})
        else:
            if m.content.strip():
                blocks.append({"type": "text", "text": m.content})
            for call in m.tool_calls:
                if tools_offered:
                    blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                else:
                    blocks.append({"type": "text", "text": f"[called {call.name} {json.dumps(call.arguments)}]"})
        if not blocks:
            continue  # the API refuses empty turns
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _usage(raw) -> Usage:
    if raw is None:
        return Usage()

    def count(field: str) -> int | None:
        return whole(getattr(raw, field, None))

    read, created, fresh = count("cache_read_input_tokens"), count("cache_creation_input_tokens"), count("input_tokens")
    total = None if fresh is None else fresh + (read or 0) + (created or 0)
    return Usage(total, count("output_tokens"), read)
