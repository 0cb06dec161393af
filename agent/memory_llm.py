"""The adapter that lets memory code call an agent Model (memory.llm.MemoryLLM).

With a schema, the model is offered exactly one tool whose parameters are
that schema, and the reply must be exactly one call of it; anything else
(prose, another tool, two calls, arguments of the wrong shape) raises
``UnusableReply`` so the pass fails and reruns, and is never taken as an
answer. Every call goes through ``call_model``, so it is retried and logged
with its purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.models.base import Message, Model, ToolSpec
from agent.models.calls import call_model
from memory.llm import UnusableReply

_TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}


@dataclass
class CallStat:
    purpose: str
    system_chars: int
    prompt_chars: int
    input_tokens: int | None
    output_tokens: int | None


@dataclass
class ModelMemoryLLM:
    model: Model
    db: Any = None  # where call_model logs each call; None logs nothing
    sleep: Any = None  # injectable for tests: call_model's backoff sleep
    stats: list[CallStat] = field(default_factory=list)

    def __call__(self, *, purpose: str, system: str, prompt: str, schema: dict[str, Any] | None = None,
                 schema_name: str = "record", max_tokens: int = 2048) -> Any:
        tools = [ToolSpec(schema_name, f"Record the result ({purpose}).", schema)] if schema is not None else None
        kwargs = {"sleep": self.sleep} if self.sleep is not None else {}
        response = call_model(self.model, [Message("user", prompt)], db=self.db, purpose=purpose, system=system,
                              tools=tools, max_tokens=max_tokens, require_tool=tools is not None, **kwargs)
        self.stats.append(CallStat(purpose, len(system), len(prompt), response.usage.input_tokens,
                                   response.usage.output_tokens))
        if schema is None:
            if response.tool_calls or not response.text.strip():
                raise UnusableReply(f"{purpose}: expected text, got a tool call")
            return response.text
        calls = response.tool_calls
        if len(calls) != 1 or calls[0].name != schema_name:
            got = ", ".join(c.name for c in calls) or "text only"
            raise UnusableReply(f"{purpose}: expected exactly one {schema_name} call, got {got}")
        arguments = calls[0].arguments
        problem = check(arguments, schema)
        if problem:
            raise UnusableReply(f"{purpose}: {schema_name} arguments {problem}")
        return arguments


def check(value: Any, schema: dict[str, Any], where: str = "") -> str | None:
    """The first way ``value`` breaks ``schema`` (types, required keys, enums), or None."""
    kind = schema.get("type")
    if kind:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(k == "null" and value is None or k in _TYPES and isinstance(value, _TYPES[k])
                   and not (k in ("integer", "number") and isinstance(value, bool)) for k in kinds):
            return f"{where or 'value'} is not {kind}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where or 'value'} is not one of {schema['enum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"lack {where + '.' if where else ''}{key}"
        for key, sub in schema.get("properties", {}).items():
            # Models often send null for an optional field they do not use: treat it as absent.
            if key in value and not (value[key] is None and key not in schema.get("required", [])):
                problem = check(value[key], sub, f"{where}.{key}" if where else key)
                if problem:
                    return problem
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            problem = check(item, schema["items"], f"{where}[{i}]")
            if problem:
                return problem
    return None


def for_memory(model: Model, db=None) -> ModelMemoryLLM:
    return ModelMemoryLLM(model, db)
