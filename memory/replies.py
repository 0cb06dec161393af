"""The shape of every memory pass's reply: a pydantic model.

A stage declares its reply as a ``Reply`` subclass; the schema the model is
offered is ``Model.model_json_schema()`` and the reply is
``Model.model_validate()``d, so one declaration is both the tool schema, the
embedded model's grammar (agent/models/local.py builds it from this schema)
and the check. ``plain`` cleans the schema (tools/arguments.py uses it for
tool schemas too), so a small model and llama.cpp's grammar builder see one
plain object.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, WithJsonSchema

from memory.llm import UnusableReply


class Reply(BaseModel):
    # Models add keys of their own and send null for fields they leave out.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return plain(super().model_json_schema(*args, **kwargs))


def plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic schema as a small model (and llama.cpp's grammar builder) reads it best.

    References inlined, no titles, no string-length bounds (validation still
    applies them), and an optional field as its plain type rather than
    anyOf [type, null]. tools/arguments.py shows tool schemas the same way.
    """
    defs = schema.get("$defs", {})

    def node(n: Any) -> Any:
        if isinstance(n, list):
            return [node(x) for x in n]
        if not isinstance(n, dict):
            return n
        if "$ref" in n:
            return node(dict(defs[n["$ref"].rsplit("/", 1)[-1]]))
        out = {}
        for key, value in n.items():
            if key in ("title", "minLength", "maxLength", "$defs"):
                continue
            # Under "properties" the keys are field names (a field may be called "title").
            out[key] = {k: node(v) for k, v in value.items()} if key == "properties" else node(value)
        options = out.get("anyOf")
        if options and len(options) == 2 and {"type": "null"} in options:
            (kept,) = [o for o in options if o != {"type": "null"}]
            out.pop("anyOf")
            out.update(kept)
            if out.get("default", ...) is None:
                out.pop("default")
        return out

    return node(schema)


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
# Offered as a plain string: a date the model is unsure of reads as None, and code resolves the words instead.
Day = Annotated[date | None, BeforeValidator(_lenient_date), WithJsonSchema({"type": "string"})]


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
