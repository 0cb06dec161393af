"""Grading: the context level (does the assembled prompt hold the current
value?), replies to questions, and the fairness checks of a run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evals.items import Item

PASS, STALE_ONLY, MISSING, TRACE, NOT_SCORED = "current", "stale_only", "missing", "trace", "not_scored"


def _any(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text, re.I | re.M) for p in patterns)


def grade_context(item: Item, text: str) -> dict[str, Any]:
    """Outcome of one item's context.

    ``current``: every need is met by a line of the context. ``stale_only``:
    some need is unmet and a stale value is there instead. ``missing``:
    neither. Never-said items pass unless the context holds a trace of the
    never-said thing (``trace``). Ordinary turns need nothing and are not
    scored here; what was injected into them is reported instead."""
    if item.kind == "ordinary":
        return {"outcome": NOT_SCORED, "passed": None, "needs_met": 0, "needs": 0}
    if not item.needs:
        trace = _any(item.absent, text)
        return {"outcome": TRACE if trace else PASS, "passed": not trace, "needs_met": 0, "needs": 0}
    met = sum(1 for group in item.needs if _any(group, text))
    if met == len(item.needs):
        return {"outcome": PASS, "passed": True, "needs_met": met, "needs": len(item.needs)}
    stale = _any(item.stale_patterns, text)
    return {"outcome": STALE_ONLY if stale else MISSING, "passed": False, "needs_met": met, "needs": len(item.needs)}


DONT_KNOW = re.compile(
    r"\b(?:don't know|do not know|not sure|no record|haven't told|didn't mention|no information|not aware|"
    r"can't find|cannot find|couldn't find|could not find|nothing (?:stored|saved|in memory)|don't have)\b"
    r"|不知道|没有记录|没提到|没有找到",
    re.I,
)


def grade_reply(item: Item, reply: str) -> dict[str, Any]:
    """A question passes when the reply gives the current value; a stale value
    alone fails; a never-said item passes on an honest "I don't know"."""
    rule = item.reply
    if rule is None:
        return {"passed": None}
    if rule.dont_know:
        honest = bool(DONT_KNOW.search(reply)) or _any(rule.current, reply)
        return {"passed": honest, "current": honest, "stale": False}
    current = _any(rule.current, reply)
    stale = _any(rule.stale, reply)
    return {"passed": current, "current": current, "stale": stale and not current}


@dataclass
class Fairness:
    """With ``none`` no memory item may pass; with ``oracle`` nearly all should."""

    none_passing: list[str] = field(default_factory=list)
    oracle_failing: list[str] = field(default_factory=list)
    none_checked: int = 0
    oracle_checked: int = 0
    oracle_threshold: float = 0.95

    @property
    def oracle_rate(self) -> float | None:
        if not self.oracle_checked:
            return None
        return 1 - len(self.oracle_failing) / self.oracle_checked

    @property
    def ok(self) -> bool:
        none_ok = not self.none_passing
        oracle_ok = self.oracle_rate is None or self.oracle_rate >= self.oracle_threshold
        return none_ok and oracle_ok

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "none_checked": self.none_checked,
            "none_passing": self.none_passing,
            "oracle_checked": self.oracle_checked,
            "oracle_failing": self.oracle_failing,
            "oracle_rate": self.oracle_rate,
            "oracle_threshold": self.oracle_threshold,
        }


def fairness(records: list[dict[str, Any]], scored_kind: str = "passed") -> Fairness:
    """From a run's records: items that pass without memory, or fail with exactly their sources, by id.

    Only items that need memory count (never-said and ordinary items pass
    without it by design)."""
    f = Fairness()
    for r in records:
        if not r.get("needs_memory") or r.get(scored_kind) is None or r.get("infra"):
            continue
        if r["design"] == "none":
            f.none_checked += 1
            if r[scored_kind]:
                f.none_passing.append(f"{r['item']}#{r.get('repeat', 0)}")
        elif r["design"] == "oracle":
            f.oracle_checked += 1
            if not r[scored_kind]:
                f.oracle_failing.append(f"{r['item']}#{r.get('repeat', 0)}")
    return f
