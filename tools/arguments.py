"""The base for tool argument models: errors that name the argument and say
what it takes.

A small model fixes a call from the error text alone, so "start is required:
when it starts, e.g. 'Tuesday 10:00'" beats pydantic's "Field required". The
hint is the field's own description, the same text the model saw in the
schema. Other names small models reach for ("date", "time", "duration") are
mapped onto the real fields before validation.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import ErrorDetails

from memory.replies import plain
from tools.base import ToolError


def _row_id(value: Any) -> Any:
    return value.strip().lstrip("#") if isinstance(value, str) else value


# The id of a row a tool made (an event, a task), as models write it: 12, "12" or "#12".
RowId = Annotated[int, BeforeValidator(_row_id)]


class Arguments(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    # Other names for a field: {"date": "start"}. Used only when the real one is absent.
    ALIASES: ClassVar[dict[str, str]] = {}
    # The kind of value a field holds, so the turn can check the model's value against what the
    # request says (agent/screen.py): "people" (a list of names), "person" (one name), "moment"
    # (a day and time), "deadline" (a day, perhaps with a time), "label" (a name for the thing made,
    # which kept may write from the request's people). Not part of the shown schema.
    KINDS: ClassVar[dict[str, str]] = {}

    @classmethod
    def kinds(cls) -> dict[str, str]:
        """``KINDS`` with each field's other names (``ALIASES``) as well."""
        out = dict(cls.KINDS)
        out.update({other: cls.KINDS[real] for other, real in cls.ALIASES.items() if real in cls.KINDS})
        return out

    @model_validator(mode="before")
    @classmethod
    def _rename(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = cls.prepare({str(k).strip(): v for k, v in data.items()})
        for other, real in cls.ALIASES.items():
            if other in data and real not in data:
                data[real] = data.pop(other)
        # Small models send null or "" for optional arguments they mean to leave out.
        return {
            k: v
            for k, v in data.items()
            if not (_blank(v) and k in cls.model_fields and not cls.model_fields[k].is_required())
        }

    @classmethod
    def prepare(cls, data: dict) -> dict:
        """Reshape raw arguments before aliases apply; a subclass may override."""
        return data

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema the model sees, without noise a small model trips on: no per-field
        titles, no string-length bounds, and optional fields as their plain type rather
        than anyOf [type, null]. Validation still applies every bound."""
        schema = super().model_json_schema(*args, **kwargs)
        shown = plain(schema)  # the one schema cleaner, shared with the memory passes' replies
        if "title" in schema:
            shown["title"] = schema["title"]  # the tool's own name stays, as providers have always seen it
        return shown

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any):
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise ToolError("invalid arguments: " + explain(cls, exc)) from None


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def explain(model: type[BaseModel], exc: ValidationError) -> str:
    problems: list[str] = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        name = loc[0] if loc else ""
        field = model.model_fields.get(name)
        hint = field.description if field is not None and field.description else ""
        kind = err["type"]
        if not name:
            if kind in ("model_type", "model_attributes_type", "dict_type"):
                names = ", ".join(model.model_fields)
                problems.append(f"pass a JSON object with these keys: {names}")
            else:
                problems.append(_message(err))
            continue
        where = ".".join(loc)
        if kind == "missing":
            problems.append(f"{where} is required: {hint}" if hint else f"{where} is required")
            continue
        got = err.get("input")
        shown = f" (got {got!r})" if got is not None and not isinstance(got, dict) else ""
        text = f"{where}: {_message(err)}{shown}"
        if hint:
            text += f". {where} takes: {hint}"
        problems.append(text)
    return "; ".join(problems)


def _message(err: ErrorDetails) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "value_error":
        return re.sub(r"^Value error, ", "", msg)
    return msg[:1].lower() + msg[1:]


def split_names(value: Any) -> Any:
    """'Sam, Priya and Lee' -> ['Sam', 'Priya', 'Lee']; lists pass through, trimmed."""
    if value is None:
        return []
    if isinstance(value, str):
        value = re.split(r"\s*(?:[,;、，]|\band\b|和)\s*", value)
    if isinstance(value, (list, tuple)):
        seen: dict[str, str] = {}
        for item in value:
            if not isinstance(item, str):
                return value  # let validation name the bad item
            name = " ".join(item.split())
            if name and name.casefold() not in seen:
                seen[name.casefold()] = name
        return list(seen.values())
    return value


def minutes(value: Any) -> Any:
    """45, '45', '45 min', '1 hour', '1.5 hours', '1h30', '90m' -> whole minutes."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return round(value) if value == value else value
    if not isinstance(value, str):
        return value
    text = value.strip().lower()
    if re.fullmatch(r"\d+", text):
        return int(text)
    m = re.fullmatch(
        r"(?:(?P<h>\d+(?:\.\d+)?)\s*(?:h|hr|hrs|hour|hours|小时|个小时))?\s*"
        r"(?:(?P<m>\d+)\s*(?:m|min|mins|minute|minutes|分钟)?)?",
        text,
    )
    if m and (m.group("h") or m.group("m")):
        return round(float(m.group("h") or 0) * 60) + int(m.group("m") or 0)
    if text in ("an hour", "one hour", "1 hour", "half an hour", "半小时", "一小时", "一个小时"):
        return 30 if "half" in text or "半" in text else 60
    raise ValueError(f"{value!r} is not a number of minutes; give a whole number such as 30 or 60")
