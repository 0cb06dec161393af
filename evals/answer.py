"""One answered item: a model turn over an assembled context, with kept's tools,
graded on what the tool calls stored.

Every design goes through this same loop (the same tools, the same rounds),
so only the memory in the context differs. Provider failures that survive
the retries are infrastructure outcomes: recorded with their class, never
graded as answers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from evals import checks
from evals.designs import Assembled
from evals.items import Item

MAX_TOOL_ROUNDS = 5


@dataclass
class Answer:
    reply: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    usage: list[dict[str, Any]] = field(default_factory=list)  # per model call, as the API reported it
    latency_s: float = 0.0
    infra: str | None = None  # error class when the provider failed; never graded
    infra_detail: str | None = None
    effects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def input_tokens(self) -> int | None:
        return _sum_if_all_reported([u.get("input_tokens") for u in self.usage])

    @property
    def cached_input_tokens(self) -> int:
        return sum(u.get("cached_input_tokens") or 0 for u in self.usage)

    @property
    def output_tokens(self) -> int | None:
        return _sum_if_all_reported([u.get("output_tokens") for u in self.usage])


def _sum_if_all_reported(values: list[int | None]) -> int | None:
    """The total, or None when there were no calls or any call did not report its count."""
    known = [v for v in values if v is not None]
    return sum(known) if values and len(known) == len(values) else None


def effects(db, tz) -> dict[str, list[dict[str, Any]]]:
    """What the tools stored, through the tools' own list functions."""
    from tools import lists

    return {
        "calendar_events": [e.as_dict(tz) for e in lists.events(db, include_cancelled=True)],
        "outbox": [m.as_dict(tz) for m in lists.outbox(db)],
        "tasks": [t.as_dict(tz) for t in lists.tasks(db)],
    }


def run_answer(model, assembled: Assembled, db, now, tz, chat_name: str = "me") -> Answer:
    from agent.models.base import Message, ModelError, ToolSpec
    from agent.models.calls import call_model
    from tools import all_tools
    from tools.base import ToolContext, ToolError

    tools = all_tools()
    specs = [ToolSpec(t.name, t.description, t.parameters) for t in tools]
    by_name = {t.name: t for t in tools}
    # The eval answers for the person, who approved in advance: no prompts.
    ctx = ToolContext(db, now, tz, chat_name, False, lambda prompt: True)
    convo = list(assembled.messages)
    out = Answer()
    started = time.monotonic()
    try:
        for round_no in range(MAX_TOOL_ROUNDS + 1):
            offer = specs if round_no < MAX_TOOL_ROUNDS else None
            response = call_model(model, convo, db=db, purpose="eval", system=assembled.system, tools=offer)
            out.usage.append(
                {
                    "input_tokens": response.usage.input_tokens,
                    "output_tokens": response.usage.output_tokens,
                    "cached_input_tokens": response.usage.cached_input_tokens,
                }
            )
            if not response.tool_calls or offer is None:
                out.reply = response.text
                break
            convo.append(Message("assistant", response.text, tool_calls=response.tool_calls))
            for call in response.tool_calls:
                tool = by_name.get(call.name)
                is_error = True
                if tool is None:
                    result: Any = {"error": f"unknown tool {call.name!r}"}
                else:
                    try:
                        result, is_error = tool.call(ctx, call.arguments), False
                    except ToolError as exc:
                        result = {"error": str(exc)}
                    except Exception as exc:  # a tool bug is the model's observation, not a crash of the eval
                        result = {"error": f"{type(exc).__name__}: {exc}"}
                out.calls.append(
                    {"name": call.name, "arguments": call.arguments, "result": result, "is_error": is_error}
                )
                convo.append(
                    Message(
                        "tool",
                        json.dumps(result, ensure_ascii=False, default=str),
                        tool_call_id=call.id,
                        name=call.name,
                        is_error=is_error,
                    )
                )
    except ModelError as exc:
        out.infra, out.infra_detail = exc.kind, str(exc)
    out.latency_s = round(time.monotonic() - started, 3)
    out.effects = effects(db, tz)
    return out


def grade_answer(
    item: Item, reply: str, calls: list[dict[str, Any]], rows: dict[str, list[dict[str, Any]]], tz
) -> dict[str, Any]:
    """Tasks pass when every typed check passes; questions on the reply's value."""
    from evals.score import grade_reply

    result: dict[str, Any] = {}
    if item.checks:
        graded = checks.grade(item.checks, rows, [c["name"] for c in calls], reply, tz)
        result["checks"] = [v.to_json() for v in graded.verdicts]
        result["checks_passed"] = graded.passed
    if item.reply is not None:
        result["reply_grade"] = grade_reply(item, reply)
    parts = [result.get("checks_passed")] if item.checks else []
    if item.reply is not None and (not item.checks or item.kind == "ordinary"):
        parts.append(result["reply_grade"]["passed"])
    result["passed"] = all(parts) if parts else None
    return result
