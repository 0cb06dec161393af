"""The adapter that lets memory code call an agent Model (memory.llm.MemoryLLM).

With a schema (a ``memory.replies.Reply`` model), the model is offered
exactly one tool whose parameters are ``schema.model_json_schema()``, and the
reply must be exactly one call of it, ``model_validate()``d; anything else
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
from memory.replies import Reply, validate


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

    @property
    def hosted(self) -> bool:
        """A hosted model reads well enough to take more in one call (the extraction also reads commitments)."""
        return self.model.provider in ("anthropic", "openai")

    def __call__(
        self,
        *,
        purpose: str,
        system: str,
        prompt: str,
        schema: type[Reply] | None = None,
        schema_name: str = "record",
        max_tokens: int = 2048,
    ) -> Any:
        tools = (
            [ToolSpec(schema_name, f"Record the result ({purpose}).", schema.model_json_schema())]
            if schema is not None
            else None
        )
        kwargs = {"sleep": self.sleep} if self.sleep is not None else {}
        response = call_model(
            self.model,
            [Message("user", prompt)],
            db=self.db,
            purpose=purpose,
            system=system,
            tools=tools,
            max_tokens=max_tokens,
            require_tool=tools is not None,
            **kwargs,
        )
        self.stats.append(
            CallStat(purpose, len(system), len(prompt), response.usage.input_tokens, response.usage.output_tokens)
        )
        if schema is None:
            if response.tool_calls or not response.text.strip():
                raise UnusableReply(f"{purpose}: expected text, got a tool call")
            return response.text
        calls = response.tool_calls
        if len(calls) != 1 or calls[0].name != schema_name:
            got = ", ".join(c.name for c in calls) or "text only"
            raise UnusableReply(f"{purpose}: expected exactly one {schema_name} call, got {got}")
        return validate(schema, calls[0].arguments, f"{purpose}: {schema_name} arguments")


def for_memory(model: Model, db=None) -> ModelMemoryLLM:
    return ModelMemoryLLM(model, db)
