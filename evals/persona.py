"""A persona: a dated chat history of one synthetic (or real) person.

File format (JSON, ``kept-persona/1``)::

    {"format": "kept-persona/1", "name": ..., "description": ..., "tz": "Europe/Berlin",
     "now": "<aware ISO time the items are asked at>",
     "messages": [{"id": "m0001", "at": "<aware ISO>", "role": "user"|"assistant", "text": ...}],
     "planted": [{"id": "p001", "kind": ..., "message": "m0042", "text": <exact sentence>,
                  "fact": "<YYYY-MM-DD>: <sentence>", "replaces": "p000", "detail": {...}}],
                  (replaces and detail are optional)
     "never_said": [<regex that must match no message>]}

``planted`` lists what was put in on purpose; ``verify`` checks it is where
the plan says and that nothing never-said leaves a trace. The items live
beside it in ``<name>.items.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator

from evals.items import Item, Strict, validated

FORMAT = "kept-persona/1"


class PersonaError(ValueError):
    pass


@dataclass
class PMessage:
    id: str
    at: str
    role: str
    text: str

    @property
    def when(self) -> datetime:
        return datetime.fromisoformat(self.at)

    def line(self) -> str:
        """How a stored message reads when quoted into a prompt: dated, one line."""
        who = "me" if self.role == "user" else "kept"
        return f"[{self.at[:16].replace('T', ' ')}] {who}: {self.text}"


@dataclass
class Planted:
    id: str
    kind: str
    message: str
    text: str
    fact: str
    replaces: str | None = None
    detail: dict | None = None  # structured extras, e.g. a promise's recipient


@dataclass
class Persona:
    name: str
    description: str
    tz: str
    now: str
    messages: list[PMessage]
    planted: list[Planted] = field(default_factory=list)
    never_said: list[str] = field(default_factory=list)
    seed: int | None = None

    @property
    def now_dt(self) -> datetime:
        return datetime.fromisoformat(self.now)

    def by_id(self) -> dict[str, PMessage]:
        return {m.id: m for m in self.messages}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "description": self.description,
            "tz": self.tz,
            "now": self.now,
            "seed": self.seed,
            "messages": [m.__dict__ for m in self.messages],
            "planted": [{k: v for k, v in p.__dict__.items() if v is not None} for p in self.planted],
            "never_said": self.never_said,
        }

    def dumps(self) -> str:
        # One message per line keeps the committed files diffable and readable.
        data = self.to_json()
        head = {k: v for k, v in data.items() if k not in ("messages", "planted", "never_said")}
        out = ["{" + json.dumps(head, ensure_ascii=False)[1:-1] + ","]
        for key in ("messages", "planted"):
            rows = data[key]
            out.append(f' "{key}": [')
            out.extend(
                "  " + json.dumps(r, ensure_ascii=False) + ("," if i < len(rows) - 1 else "")
                for i, r in enumerate(rows)
            )
            out.append(" ],")
        out.append(f' "never_said": {json.dumps(data["never_said"], ensure_ascii=False)}')
        out.append("}")
        return "\n".join(out) + "\n"


def _aware(value: str) -> str:
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO time") from None
    if at.tzinfo is None:
        raise ValueError("must carry a time zone")
    return value


Aware = Annotated[str, AfterValidator(_aware)]


class _MessageIn(Strict):
    id: str
    at: Aware
    role: Literal["user", "assistant"]
    text: str


class _PlantedIn(Strict):
    id: str
    kind: str
    message: str
    text: str
    fact: str
    replaces: str | None = None
    detail: dict | None = None


class _PersonaIn(Strict):
    format: Literal["kept-persona/1"]
    name: str
    description: str = ""
    tz: str
    now: Aware
    seed: int | None = None
    messages: list[_MessageIn]
    planted: list[_PlantedIn] = []
    never_said: list[str] = []


def parse_persona(data: Any, where: str = "persona") -> Persona:
    raw = validated(_PersonaIn, data, where, PersonaError)
    return Persona(
        raw.name,
        raw.description,
        raw.tz,
        raw.now,
        [PMessage(**m.model_dump()) for m in raw.messages],
        [Planted(**p.model_dump()) for p in raw.planted],
        list(raw.never_said),
        raw.seed,
    )


def load_persona(path: str | Path) -> Persona:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise PersonaError(f"{path.name}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return parse_persona(data, path.name)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _lines(persona: Persona, ids: set[str] | None = None) -> list[tuple[str, str]]:
    return [(m.id, m.line()) for m in persona.messages if ids is None or m.id in ids]


class _Text:
    """All message lines as one text, so a pattern scans it once (not once per line)."""

    def __init__(self, lines: list[tuple[str, str]]):
        import bisect

        self._bisect = bisect.bisect_right
        self.ids = [mid for mid, _ in lines]
        self.starts, pos = [], 0
        for _, line in lines:
            self.starts.append(pos)
            pos += len(line.replace("\n", " ")) + 1
        self.text = "\n".join(line.replace("\n", " ") for _, line in lines)

    def hits(self, pattern: str) -> list[str]:
        rx = re.compile(pattern, re.I | re.M)
        found: list[str] = []
        for m in rx.finditer(self.text):
            mid = self.ids[self._bisect(self.starts, m.start()) - 1]
            if not found or found[-1] != mid:
                found.append(mid)
        return found


def verify(persona: Persona, items: list[Item], thorough: bool = True) -> list[str]:
    """Problems with the plan: an empty list means every planted fact is where
    it was planned, every item's needs are met by its sources, current values
    appear only where planted (``thorough``: a scan of the whole history per
    need, seconds on the year-long persona), and never-said things leave no trace."""
    problems: list[str] = []
    by_id = persona.by_id()
    ids = [m.id for m in persona.messages]
    if len(set(ids)) != len(ids):
        problems.append("duplicate message ids")
    times = [m.when for m in persona.messages]
    if times != sorted(times):
        problems.append("messages are not in time order")
    if times and times[-1] > persona.now_dt:
        problems.append("a message is dated after the persona's 'now'")
    planted_ids = {p.id for p in persona.planted}
    for p in persona.planted:
        m = by_id.get(p.message)
        if m is None:
            problems.append(f"{p.id}: planned message {p.message} does not exist")
        elif p.text not in m.text:
            problems.append(f"{p.id}: message {p.message} does not hold the planted sentence")
        elif not p.fact.startswith(m.at[:10] + ": "):
            problems.append(f"{p.id}: gold fact is not dated with its message's day")
        if p.replaces and p.replaces not in planted_ids:
            problems.append(f"{p.id}: replaces unknown {p.replaces}")
    everything = _Text(_lines(persona))
    for pattern in persona.never_said:
        hits = everything.hits(pattern)
        if hits:
            problems.append(f"never-said {pattern!r} appears in {', '.join(hits[:3])}")
    for item in items:
        if item.persona != persona.name:
            problems.append(f"{item.id}: belongs to persona {item.persona!r}")
        missing = [s for s in item.sources if s not in by_id]
        if missing:
            problems.append(f"{item.id}: unknown source message(s) {', '.join(missing)}")
            continue
        for pid in item.planted:
            if pid not in planted_ids:
                problems.append(f"{item.id}: unknown planted id {pid}")
        sources = _Text(_lines(persona, set(item.sources)))
        for group in item.needs:
            if not any(sources.hits(g) for g in group):
                problems.append(f"{item.id}: no source message meets {group[0]!r}")
            # A current value must be found only where it was planted, or the
            # context level could pass on a coincidence.
            stray = [mid for g in group for mid in everything.hits(g) if mid not in item.sources] if thorough else []
            if stray:
                problems.append(f"{item.id}: {group[0]!r} also matches unplanned message(s) {', '.join(stray[:3])}")
        for pattern in item.absent:
            hits = everything.hits(pattern)
            if hits:
                problems.append(f"{item.id}: never-said {pattern!r} appears in {', '.join(hits[:3])}")
    return problems
