"""`kept model serve`: the embedded model behind llama-cpp-python's OpenAI-compatible server.

The server's stock chat formats either ignore tools or (``chatml-function-
calling``) break when the model may choose. So a chat handler named
``kept-tools`` is registered: it renders with the GGUF's own template, passes
the tools, and turns ``<tool_call>`` blocks in the reply into OpenAI
``tool_calls``, through the same parser as ``LocalModel`` and the turn's
screen (agent/screen.py: guard and argument repair). An
OpenAI client (kept's own provider included) then gets real tool calls.
"""

from __future__ import annotations

import html
import json
import re
import time
import uuid
from datetime import datetime
from typing import Any

from agent.models.base import Message, ToolSpec

HANDLER = "kept-tools"
ALIAS = "qwen2.5-coder-0.5b-instruct"


def _plain_messages(messages: list[dict]) -> list[dict]:
    """OpenAI sends tool-call arguments as JSON strings; the Qwen template wants
    objects. Memory blocks in system messages become headed lists, as in-process."""
    from agent.context import plain_memory

    out = []
    for m in messages:
        m = dict(m)
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            m["content"] = plain_memory(m["content"])
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                c = json.loads(json.dumps(c))
                fn = c.get("function") or {}
                if isinstance(fn.get("arguments"), str):
                    try:
                        fn["arguments"] = json.loads(fn["arguments"] or "{}")
                    except json.JSONDecodeError:
                        pass
                calls.append(c)
            m["tool_calls"] = calls
        out.append(m)
    return out


def _as_kept(messages: list[dict]):
    """(messages, system) in kept's own shapes, for the screen."""
    from agent.models.base import Message, Role

    def text(content) -> str:
        if isinstance(content, list):  # content parts
            return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content or ""

    system = "\n\n".join(text(m.get("content")) for m in messages if m.get("role") == "system")
    roles: dict[str, Role] = {"user": "user", "assistant": "assistant"}
    rest = [
        Message(roles.get(m.get("role", ""), "tool"), text(m.get("content")))
        for m in messages
        if m.get("role") != "system"
    ]
    return rest, system


_MEMORY_BLOCK = re.compile(r"<memory\b[^>]*>(.*?)</memory>", re.S)


def _request(messages: list[Message], system: str):
    """The turn as the screen wants it. Over HTTP the server has only the wire request:
    now is its own clock in the configured zone, and memory is what the client quoted
    in its memory blocks (the wire format is kept's own)."""
    from agent import config, screen

    tz = config.timezone(config.load())
    request = next((m.content for m in reversed(messages) if m.role == "user"), "")
    # The blocks hold stored text escaped (agent/context.py escape): memory is the text itself.
    memory = [html.unescape(body) for body in _MEMORY_BLOCK.findall(system)]
    return screen.Request(request, datetime.now(tz), tz, memory, messages)


def kept_tools_handler(*, llama, messages, tools=None, tool_choice=None, stream=False, **kwargs):
    from agent import screen
    from agent.models.local import Malformed, guard_enabled, parse_reply

    base = llama._chat_handlers.get("chat_template.default")
    if base is None:
        raise ValueError("the model file has no chat template")
    kept_messages, system = _as_kept(messages)  # before the memory blocks are reworded: the screen reads them
    messages = _plain_messages(messages)
    if not tools or tool_choice == "none":
        return base(llama=llama, messages=messages, stream=stream, **kwargs)
    result = base(llama=llama, messages=messages, tools=tools, tool_choice=None, stream=False, **kwargs)
    choice = result["choices"][0]
    raw = choice["message"].get("content") or ""
    names = {t["function"]["name"] for t in tools}
    try:
        text, calls = parse_reply(raw, names)
    except Malformed:
        text, calls = raw, []
    if calls and guard_enabled():
        specs = [
            ToolSpec(t["function"]["name"], t["function"].get("description", ""), t["function"].get("parameters", {}))
            for t in tools
        ]
        screened = screen.screen(calls, specs, _request(kept_messages, system))
        calls = screened.calls
        if screened.held and not calls:
            text = "; ".join(reason for _, reason in screened.held) + ". Which do you mean?"
        elif not calls and not text.strip():
            return base(llama=llama, messages=messages, stream=stream, **kwargs)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in calls
        ]
    finish = "tool_calls" if calls else choice.get("finish_reason")
    result["choices"][0] = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
    return _as_chunks(result, message, finish) if stream else result


def _as_chunks(result: dict, message: dict, finish: str | None):
    """The finished reply as a stream: OpenAI clients that asked to stream read it the same way."""
    base = {
        "id": result.get("id") or f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": result.get("created") or int(time.time()),
        "model": result.get("model", ALIAS),
    }
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("content"):
        delta["content"] = message["content"]
    yield {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}]}
    for i, call in enumerate(message.get("tool_calls") or []):
        yield {
            **base,
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": i, **call}]}, "logprobs": None, "finish_reason": None}
            ],
        }
    yield {**base, "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": finish}]}


def register() -> None:
    from llama_cpp import llama_chat_format

    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        HANDLER, kept_tools_handler, overwrite=True
    )


def create_app(model_path: str):
    from llama_cpp.server.app import create_app as llama_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    register()
    return llama_app(
        server_settings=ServerSettings(),
        model_settings=[
            ModelSettings(
                model=model_path,
                model_alias=ALIAS,
                n_ctx=8192,
                n_threads=2,
                n_threads_batch=2,
                chat_format=HANDLER,
                verbose=False,
            )
        ],
    )


def run(host: str = "127.0.0.1", port: int = 8080) -> None:
    from agent.models.base import NOT_CONFIGURED, ModelError
    from agent.models.local import _import_llama, model_path

    _import_llama()
    try:
        import uvicorn
        from llama_cpp.server import app as _  # noqa: F401  (needs the [server] extra)
    except ImportError as exc:
        raise ModelError(
            NOT_CONFIGURED,
            f"the server needs llama-cpp-python[server] ({exc.name} is missing): pip install -e '.[local]'",
        ) from None
    path, verified = model_path()
    import typer
    import uvicorn

    typer.echo(
        f"kept: serving {ALIAS} from {path}{'' if verified else ' (not hash-checked)'} "
        f"at http://{host}:{port}/v1 (OpenAI-compatible; Ctrl-C stops)",
        err=True,
    )
    uvicorn.run(create_app(path), host=host, port=port, log_level="warning")
