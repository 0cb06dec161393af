"""The shape of every memory pass's reply: a pydantic model.

A stage declares its reply as a ``Reply`` subclass; the schema the model is
offered is ``Model.model_json_schema()`` and the reply is
``Model.model_validate()``d, so one declaration is both the tool schema, the
embedded model's grammar (agent/models/local.py builds it from this schema)
and the check. The schema is cleaned as tools/arguments.py cleans tool
schemas, and references are inlined, so a small model (and llama.cpp's
grammar builder) sees one plain object.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from memory.llm import UnusableReply


class Reply(BaseModel):
    # Models add keys of their own and send null for fields they leave out.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return _plain(super().model_json_schema(*args, **kwargs))


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(dict(defs[node["$ref"].rsplit("/", 1)[-1]]))
        out = {k: walk(v) for k, v in node.items() if k not in ("title", "format", "minLength", "maxLength")}
        options = out.get("anyOf")
        if options and len(options) == 2 and {"type": "null"} in options:
            (kept,) = [o for o in options if o != {"type": "null"}]
            out.pop("anyOf")
            out.update(kept)
            if out.get("default", ...) is None:
                out.pop("default")
        return out

    return walk(schema)


def _blank_none(value: Any) -> Any:
    return "" if value is None else value


def _lenient_date(value: Any) -> date | None:
    """A model's date: YYYY-MM-DD when it is one, else None (code resolves the words instead)."""
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip()) if value else None
    except ValueError:
        return None


Text = Annotated[str, BeforeValidator(_blank_none)]  # null reads as ""
Day = Annotated[date | None, BeforeValidator(_lenient_date)]


def validate(model: type[Reply], raw: Any, purpose: str) -> Any:
    """``raw`` as ``model``; UnusableReply (the pass fails and reruns) when it does not fit."""
    if isinstance(raw, model):
        return raw
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise UnusableReply(f"{purpose}: {where}: {first['msg']}") from None


def ask(llm, model: type[Reply], *, purpose: str, system: str, prompt: str, name: str, max_tokens: int = 2048) -> Any:
    """One model call whose reply is ``model``: the schema offered is the model's, the reply validated by it."""
    raw = llm(purpose=purpose, system=system, prompt=prompt, schema=model, schema_name=name, max_tokens=max_tokens)
    return validate(model, raw, purpose)
