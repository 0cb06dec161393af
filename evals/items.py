"""The eval item format: strict, validated, unknown keys rejected.

An item is one thing to ask of the assistant at the end of a persona's
history. It names the messages that establish its facts (``sources``), the
current value and any stale ones, what the assembled context must hold
(``needs``: groups of line patterns, each group satisfied by one line), and
how an answer is graded (``reply`` for questions, typed ``checks`` for
tasks). The same file format serves a user's own history (``--persona``).

A file is JSON Lines: one item per line. Validation errors name the line
and the key, so a hand-written file can be fixed without reading code.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from evals import checks as checks_mod

KINDS = (
    "old_fact",  # a fact said once and never changed
    "changed_fact",  # a fact that changed once or twice: only the latest counts
    "when",  # when something happened
    "counting",  # how many times something happened, across sessions
    "promise",  # whether a promise was kept
    "treatment",  # how to treat the person (nickname, format)
    "preference",  # a work preference that should shape an action
    "never_said",  # something never said: the honest answer is "I don't know"
    "task",  # ends in a tool call whose values come from memory
    "ordinary",  # needs no memory at all
    "indirect_rule",  # a stored rule that shares few words with the request
)
# Kinds graded on a tool call's stored effect rather than on the reply's text.
TASK_KINDS = ("task", "preference", "indirect_rule")


class ItemError(ValueError):
    """An item file is malformed; the text names the line and the key."""


@dataclass
class ReplyRule:
    """How a text reply is graded: the current value must appear; a stale value alone fails."""

    current: list[str] = field(default_factory=list)  # regexes, any one suffices
    stale: list[str] = field(default_factory=list)
    dont_know: bool = False  # pass on an honest "I don't know" (never-said items)


@dataclass
class Item:
    id: str
    persona: str
    kind: str
    query: str
    sources: list[str]  # message ids that establish the item's facts
    needs: list[list[str]]  # context must hold one line matching each group
    current: str | None = None  # the current value, for people reading results
    stale: list[str] = field(default_factory=list)  # values that were true once
    stale_patterns: list[str] = field(default_factory=list)  # line patterns of stale values
    absent: list[str] = field(default_factory=list)  # line patterns that must not be in context (never-said)
    reply: ReplyRule | None = None
    checks: list[checks_mod.Check] = field(default_factory=list)
    planted: list[str] = field(default_factory=list)  # ids of the planted entries it rests on
    note: str = ""

    @property
    def is_task(self) -> bool:
        return bool(self.checks)

    @property
    def needs_memory(self) -> bool:
        return bool(self.needs)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["checks"] = [c.to_json() for c in self.checks]
        if self.reply is None:
            data.pop("reply")
        return {k: v for k, v in data.items() if v not in ([], "", None) or k in ("sources", "needs")}


# --- the file format, as pydantic models: strict types, unknown keys rejected ---


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad pattern {pattern!r}: {exc}") from None
    return pattern


Pattern = Annotated[str, AfterValidator(_compiles)]
NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class Strict(BaseModel):
    """A hand-written file's record: exact types, no unknown keys (errors name the key)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class _ReplyIn(Strict):
    current: list[Pattern] = []
    stale: list[Pattern] = []
    dont_know: bool = False


class _ItemIn(Strict):
    id: NonEmpty
    persona: NonEmpty
    kind: Literal[KINDS]  # type: ignore[valid-type]
    query: NonEmpty
    sources: list[str]
    needs: list[Annotated[list[Pattern], Field(min_length=1)]]
    current: str | None = None
    stale: list[str] = []
    stale_patterns: list[Pattern] = []
    absent: list[Pattern] = []
    reply: _ReplyIn | None = None
    checks: list[Any] = []
    planted: list[str] = []
    note: str = ""


_M = TypeVar("_M", bound=BaseModel)


def validated(model: type[_M], data: Any, where: str, error: type[Exception]) -> _M:
    """``data`` read by ``model``, or ``error`` saying in one line where and what is wrong."""
    if not isinstance(data, dict):
        raise error(f"{where}: expected an object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(f"{where}: {explain(exc)}") from None


def explain(exc: ValidationError) -> str:
    """The first problem of a record, naming its key: "unknown key(s) colour", "reply.current[0]: bad pattern ..."."""
    errors = exc.errors()
    first = errors[0]
    parent = tuple(first["loc"][:-1])
    where = _path(parent)
    prefix = f"{where}: " if where else ""
    if first["type"] in ("extra_forbidden", "missing"):
        names = sorted(
            str(e["loc"][-1]) for e in errors if e["type"] == first["type"] and tuple(e["loc"][:-1]) == parent
        )
        word = "unknown" if first["type"] == "extra_forbidden" else "missing"
        return f"{prefix}{word} key(s) {', '.join(names)}"
    key = _path(tuple(first["loc"]))
    if first["type"] == "literal_error":
        return f"{key} {first['input']!r} is not one of {first['ctx']['expected']}"
    if first["type"] == "string_too_short":
        return f"{key} must be a non-empty string"
    if first["type"] == "too_short":
        return f"{key} is an empty group"
    message = re.sub(r"^Value error, ", "", first["msg"])
    return f"{key}: {message[:1].lower() + message[1:]}"


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_item(data: Any, where: str = "item") -> Item:
    raw = validated(_ItemIn, data, where, ItemError)
    try:
        parsed_checks = [checks_mod.parse_check(c) for c in raw.checks]
    except checks_mod.CheckError as exc:
        raise ItemError(f"{where}: checks: {exc}") from None
    if raw.reply is None and not parsed_checks:
        raise ItemError(f"{where}: an item needs a reply rule or at least one check")
    reply = ReplyRule(list(raw.reply.current), list(raw.reply.stale), raw.reply.dont_know) if raw.reply else None
    return Item(
        id=data["id"],
        persona=data["persona"],
        kind=raw.kind,
        query=data["query"],
        sources=list(raw.sources),
        needs=[list(g) for g in raw.needs],
        current=raw.current,
        stale=list(raw.stale),
        stale_patterns=list(raw.stale_patterns),
        absent=list(raw.absent),
        reply=reply,
        checks=parsed_checks,
        planted=list(raw.planted),
        note=raw.note,
    )


def load_items(path: str | Path) -> list[Item]:
    path = Path(path)
    items: list[Item] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ItemError(f"{path.name}:{n}: not JSON ({exc.msg})") from None
        item = parse_item(data, f"{path.name}:{n}")
        if item.id in seen:
            raise ItemError(f"{path.name}:{n}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def dump_items(items: list[Item]) -> str:
    return "".join(json.dumps(i.to_json(), ensure_ascii=False, sort_keys=True) + "\n" for i in items)
