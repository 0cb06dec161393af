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
from typing import Any

from evals import checks as checks_mod

KINDS = (
    "old_fact",       # a fact said once and never changed
    "changed_fact",   # a fact that changed once or twice: only the latest counts
    "when",           # when something happened
    "counting",       # how many times something happened, across sessions
    "promise",        # whether a promise was kept
    "treatment",      # how to treat the person (nickname, format)
    "preference",     # a work preference that should shape an action
    "never_said",     # something never said: the honest answer is "I don't know"
    "task",           # ends in a tool call whose values come from memory
    "ordinary",       # needs no memory at all
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


_ITEM_KEYS = {f for f in Item.__dataclass_fields__}
_REQUIRED = {"id", "persona", "kind", "query", "sources", "needs"}
_REPLY_KEYS = set(ReplyRule.__dataclass_fields__)


def _strs(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ItemError(f"{where}: expected a list of strings")
    return list(value)


def _regexes(value: Any, where: str) -> list[str]:
    out = _strs(value, where)
    for pattern in out:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ItemError(f"{where}: bad pattern {pattern!r}: {exc}") from None
    return out


def parse_item(data: Any, where: str = "item") -> Item:
    if not isinstance(data, dict):
        raise ItemError(f"{where}: expected an object")
    unknown = set(data) - _ITEM_KEYS
    if unknown:
        raise ItemError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    missing = _REQUIRED - set(data)
    if missing:
        raise ItemError(f"{where}: missing key(s) {', '.join(sorted(missing))}")
    for key in ("id", "persona", "query"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise ItemError(f"{where}: {key} must be a non-empty string")
    if data["kind"] not in KINDS:
        raise ItemError(f"{where}: kind {data['kind']!r} is not one of {', '.join(KINDS)}")
    needs = data["needs"]
    if not isinstance(needs, list):
        raise ItemError(f"{where}: needs must be a list of pattern groups")
    groups = [_regexes(g, f"{where}: needs[{i}]") for i, g in enumerate(needs)]
    if any(not g for g in groups):
        raise ItemError(f"{where}: needs has an empty group")
    reply = None
    if data.get("reply") is not None:
        r = data["reply"]
        if not isinstance(r, dict):
            raise ItemError(f"{where}: reply must be an object")
        bad = set(r) - _REPLY_KEYS
        if bad:
            raise ItemError(f"{where}: reply: unknown key(s) {', '.join(sorted(bad))}")
        if "dont_know" in r and not isinstance(r["dont_know"], bool):
            raise ItemError(f"{where}: reply.dont_know must be true or false")
        reply = ReplyRule(
            _regexes(r.get("current", []), f"{where}: reply.current"),
            _regexes(r.get("stale", []), f"{where}: reply.stale"),
            bool(r.get("dont_know", False)),
        )
    try:
        parsed_checks = [checks_mod.parse_check(c) for c in data.get("checks", [])]
    except checks_mod.CheckError as exc:
        raise ItemError(f"{where}: checks: {exc}") from None
    if reply is None and not parsed_checks:
        raise ItemError(f"{where}: an item needs a reply rule or at least one check")
    current = data.get("current")
    if current is not None and not isinstance(current, str):
        raise ItemError(f"{where}: current must be a string")
    if not isinstance(data.get("note", ""), str):
        raise ItemError(f"{where}: note must be a string")
    return Item(
        id=data["id"], persona=data["persona"], kind=data["kind"], query=data["query"],
        sources=_strs(data["sources"], f"{where}: sources"), needs=groups, current=current,
        stale=_strs(data.get("stale", []), f"{where}: stale"),
        stale_patterns=_regexes(data.get("stale_patterns", []), f"{where}: stale_patterns"),
        absent=_regexes(data.get("absent", []), f"{where}: absent"),
        reply=reply, checks=parsed_checks,
        planted=_strs(data.get("planted", []), f"{where}: planted"), note=data.get("note", ""),
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
