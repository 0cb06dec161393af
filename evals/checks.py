"""Typed checks: how a task is graded without a judge model.

A task is graded on what its tool calls left behind (the calendar row, the
outbox row, the task row) and on which tools were called. The set of checks
is closed; each records the value it required and the value it observed.

Row checks carry an ``action`` label: all checks with one label must hold on
the same row, and different labels must be met by different rows, matched
regardless of the order the calls were made in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

ROW_TYPES = ("field_equals", "number_equals", "date_on", "instant_equals", "list_includes", "pattern", "field_absent")
CALL_TYPES = ("tool_called", "tool_not_called", "call_count")
TABLES = ("calendar_events", "outbox", "tasks", "reply")

# Keys each check type takes besides ``type`` (and ``action`` for row checks).
_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # type: (required keys, optional keys)
    "field_equals": (("table", "field", "value"), ("action",)),
    "number_equals": (("table", "field", "value"), ("action",)),
    "date_on": (("table", "field", "date", "tz"), ("action",)),
    "instant_equals": (("table", "field", "at"), ("action",)),
    "list_includes": (("table", "field", "value"), ("action",)),
    "pattern": (("table", "field", "regex"), ("action",)),
    "field_absent": (("table", "field"), ("action",)),
    "tool_called": (("tool",), ()),
    "tool_not_called": (("tool",), ()),
    "call_count": (("tool", "count"), ()),
}


class CheckError(ValueError):
    pass


@dataclass
class Check:
    type: str
    args: dict[str, Any]

    @property
    def action(self) -> str:
        return self.args.get("action", "a1")

    @property
    def is_row_check(self) -> bool:
        return self.type in ROW_TYPES

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.args}


def parse_check(data: Any) -> Check:
    if not isinstance(data, dict) or "type" not in data:
        raise CheckError("a check must be an object with a type")
    kind = data["type"]
    if kind not in _KEYS:
        raise CheckError(f"unknown check type {kind!r}; known: {', '.join(_KEYS)}")
    required, optional = _KEYS[kind]
    args = {k: v for k, v in data.items() if k != "type"}
    unknown = set(args) - set(required) - set(optional)
    if unknown:
        raise CheckError(f"{kind}: unknown key(s) {', '.join(sorted(unknown))}")
    missing = set(required) - set(args)
    if missing:
        raise CheckError(f"{kind}: missing key(s) {', '.join(sorted(missing))}")
    if "table" in args and args["table"] not in TABLES:
        raise CheckError(f"{kind}: table must be one of {', '.join(TABLES)}")
    if kind == "pattern":
        try:
            re.compile(args["regex"])
        except re.error as exc:
            raise CheckError(f"pattern: bad regex {args['regex']!r}: {exc}") from None
    if kind == "number_equals" and not isinstance(args["value"], (int, float)):
        raise CheckError("number_equals: value must be a number")
    if kind == "call_count" and not isinstance(args["count"], int):
        raise CheckError("call_count: count must be an integer")
    if kind == "date_on":
        date.fromisoformat(args["date"])
        ZoneInfo(args["tz"])
    if kind == "instant_equals":
        at = datetime.fromisoformat(args["at"])
        if at.tzinfo is None:
            raise CheckError("instant_equals: at must carry a time zone")
    return Check(kind, args)


# --- reading values out of a row -------------------------------------------


def _value(row: dict[str, Any], name: str) -> Any:
    """A field's value; ``a|b`` joins several fields (e.g. ``to|cc``)."""
    values = [_decode(row.get(part)) for part in name.split("|")]
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, list) or v is None for v in values):
        return [x for v in values if v for x in v]
    return "\n".join(_text(v) for v in values if v is not None)


def _decode(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


_NUM = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k|K|万|thousand|m|M|million)?")


def numbers_in(text: str) -> list[float]:
    """Numbers as written by people: "$48,000", "48k", "4.8万", "48 thousand"."""
    found = []
    for digits, unit in _NUM.findall(text.replace("\u00a0", " ")):
        try:
            n = float(digits.replace(",", ""))
        except ValueError:
            continue
        scale = {"k": 1e3, "K": 1e3, "thousand": 1e3, "万": 1e4, "m": 1e6, "M": 1e6, "million": 1e6}.get(unit, 1)
        found.append(n * scale)
        if scale != 1:
            found.append(n)
    return found


def _instant(value: Any, tz: ZoneInfo | None = None) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if at.tzinfo is None:
        return at.replace(tzinfo=tz) if tz else None
    return at


def _norm(value: Any) -> str:
    return re.sub(r"\s+", " ", _text(value)).strip().casefold()


def check_row(check: Check, row: dict[str, Any], tz: ZoneInfo | None = None) -> tuple[bool, Any]:
    """(passed, observed) for one row check on one row."""
    a = check.args
    observed = _value(row, a["field"]) if a["field"] != "*" else "\n".join(_text(v) for v in row.values())
    t = check.type
    if t == "field_absent":
        return observed in (None, "", [], {}), observed
    if t == "field_equals":
        return _norm(observed) == _norm(a["value"]), observed
    if t == "number_equals":
        return any(abs(n - float(a["value"])) < 1e-9 for n in numbers_in(_text(observed))), observed
    if t == "pattern":
        return re.search(a["regex"], _text(observed), re.I | re.M) is not None, observed
    if t == "list_includes":
        items = observed if isinstance(observed, list) else re.split(r"[,;\s]+", _text(observed))
        want = _norm(a["value"])
        return any(want == _norm(x) or want in _norm(x) for x in items), observed
    if t == "date_on":
        at = _instant(observed, ZoneInfo(a["tz"]))
        if at is None:
            return False, observed
        return at.astimezone(ZoneInfo(a["tz"])).date().isoformat() == a["date"], observed
    if t == "instant_equals":
        at = _instant(observed, tz)
        want_at = datetime.fromisoformat(a["at"])
        return at is not None and at == want_at, observed
    raise CheckError(f"not a row check: {t}")


@dataclass
class Verdict:
    type: str
    required: Any
    observed: Any
    passed: bool
    action: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "action": self.action,
            "required": self.required,
            "observed": self.observed,
            "passed": self.passed,
        }


@dataclass
class Grade:
    passed: bool
    verdicts: list[Verdict] = field(default_factory=list)


def _required(check: Check) -> Any:
    return {k: v for k, v in check.args.items() if k != "action"}


def grade(
    checks: list[Check],
    rows: dict[str, list[dict[str, Any]]],
    calls: list[str],
    reply: str = "",
    tz: ZoneInfo | None = None,
) -> Grade:
    """Grade a task: every check must pass. ``calls`` are the tool names called, in order."""
    verdicts: list[Verdict] = []
    tables = dict(rows)
    tables["reply"] = [{"text": reply}]
    for c in checks:
        if c.type == "tool_called":
            n = calls.count(c.args["tool"])
            verdicts.append(Verdict(c.type, _required(c), n, n > 0))
        elif c.type == "tool_not_called":
            n = calls.count(c.args["tool"])
            verdicts.append(Verdict(c.type, _required(c), n, n == 0))
        elif c.type == "call_count":
            n = calls.count(c.args["tool"])
            verdicts.append(Verdict(c.type, _required(c), n, n == c.args["count"]))
    actions: dict[str, list[Check]] = {}
    for c in checks:
        if c.is_row_check:
            actions.setdefault(c.action, []).append(c)
    names = sorted(actions)

    def table_of(name: str) -> str:
        return actions[name][0].args["table"]

    # Rows that satisfy every check of an action.
    fits = {
        name: [
            i
            for i, row in enumerate(tables.get(table_of(name), []))
            if all(check_row(c, row, tz)[0] for c in actions[name])
        ]
        for name in names
    }
    assignment = _assign(names, fits, table_of)
    for name in names:
        table_rows = tables.get(table_of(name), [])
        row: dict[str, Any] | None
        if assignment is not None:
            row = table_rows[assignment[name]]
        else:
            # No full match: report against the row that came closest.
            row = max(table_rows, key=lambda r: sum(check_row(c, r, tz)[0] for c in actions[name]), default=None)
        for c in actions[name]:
            if row is None:
                verdicts.append(Verdict(c.type, _required(c), None, c.type == "field_absent" and False, name))
            else:
                ok, observed = check_row(c, row, tz)
                verdicts.append(Verdict(c.type, _required(c), observed, ok and assignment is not None, name))
    passed = bool(verdicts) and all(v.passed for v in verdicts)
    return Grade(passed, verdicts)


def _assign(names: list[str], fits: dict[str, list[int]], table_of) -> dict[str, int] | None:
    """Distinct rows for the actions (rows of one table serve one action each)."""
    chosen: dict[str, int] = {}
    used: set[tuple[str, int]] = set()

    def walk(k: int) -> bool:
        if k == len(names):
            return True
        name = names[k]
        for i in fits[name]:
            key = (table_of(name), i)
            if key in used:
                continue
            used.add(key)
            chosen[name] = i
            if walk(k + 1):
                return True
            used.discard(key)
        return False

    return dict(chosen) if walk(0) else None
