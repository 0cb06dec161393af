"""Arguments the embedded model cannot be trusted to write.

A 0.5B model copies the prompt's clock line instead of working out
"tomorrow at 3pm", and fills every optional field from the schema's own
examples ("Room 4", "['Sam']"). Measured on evals/local_accuracy.py, that
made nearly every booking wrong. So, before a call runs:

- a time argument takes the day and time the request itself names, as the
  person wrote it; the tool reads the phrase (tools/when.py), so the date
  arithmetic is done by code, not by the model;
- an optional value that the request, the question before it, memory and
  this turn's tool results never gave is dropped, and the tool's default
  applies.

Required values that are not grounded are the guard's business (local.py):
it drops the whole call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# The clock line agent/context.py writes: "Now: Monday 2026-11-30 09:00 (Europe/Berlin, UTC+0100)."
_NOW_LINE = re.compile(r"^Now: \w+ (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) \(([^,()]+), UTC", re.M)
# Latin words and numbers as units, each CJK character on its own: spans of
# these are the candidate phrases.
_UNIT = re.compile(r"[\u3400-\u9fff]|[^\s\u3400-\u9fff]+")
_MAX_UNITS = 8  # "next Friday at 2:30 pm" is 5 units, "明天下午三点半" 6
_MAX_REQUEST = 1000  # characters; a longer paste is not a booking request

# Arguments that hold a moment, and ones that hold a day.
MOMENT_ARGS = ("start", "when", "time", "datetime")
DAY_ARGS = ("from_date", "date", "due", "due_date", "deadline")
# A second bound on a range: kept only when the request says it.
BOUND_ARGS = ("end", "to_date")


@dataclass
class Named:
    """A day and/or time the request names, and the words it names it with."""

    phrase: str
    day: Any  # datetime.date | None
    has_clock: bool


def clock_of(system: str) -> tuple[datetime, ZoneInfo] | None:
    """Now and the person's zone, from the prompt's clock line."""
    m = _NOW_LINE.search(system)
    if not m:
        return None
    try:
        tz = ZoneInfo(m.group(2).strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=tz), tz


def named_time(request: str, now: datetime, tz: ZoneInfo) -> Named | None:
    """The phrase in ``request`` that names a day and a time (else the fullest
    that names either), or None when it names none."""
    from agent.models.local import _TIMEY
    from memory.text import dates
    from tools import when

    if len(request) > _MAX_REQUEST:
        return None
    units = list(_UNIT.finditer(request))
    best: tuple[tuple, Named] | None = None
    best_day: tuple[tuple, Named] | None = None  # the fullest phrase naming only a day
    best_clock: tuple[tuple, Named] | None = None  # ... and only a time
    for i in range(len(units)):
        for j in range(i, min(i + _MAX_UNITS, len(units))):
            phrase = request[units[i].start(): units[j].end()].strip(" ,.;!?，。！？'\"")
            if not phrase or not _TIMEY.search(phrase):
                continue
            try:
                parsed = when.parse(phrase, now, tz)
            except when.WhenError:
                continue
            day = parsed.day if parsed.exact is None else parsed.exact.date()
            has_clock = parsed.clock is not None or parsed.exact is not None
            # Day and time first, then the most that is not filler, then the
            # shortest: "tomorrow at 3pm", not "tomorrow at 3pm about the".
            meaning = sum(1 for u in units[i: j + 1] if u.group().lower().strip(",.") not in dates.FILLER)
            score = (day is not None and has_clock, meaning, -len(phrase))
            named = Named(phrase, day, has_clock)
            if best is None or score > best[0]:
                best = (score, named)
            if has_clock and day is None and (best_clock is None or score > best_clock[0]):
                best_clock = (score, named)
            if day is not None and not has_clock and (best_day is None or score > best_day[0]):
                best_day = (score, named)
    if best is not None and not (best[1].day and best[1].has_clock) and best_day and best_clock:
        # "at 4pm after the review tomorrow": the day and the time, said apart, read together.
        joined = f"{best_day[1].phrase} {best_clock[1].phrase}"
        try:
            parsed = when.parse(joined, now, tz)
        except when.WhenError:
            return best[1]
        return Named(joined, parsed.day, parsed.clock is not None)
    return best[1] if best else None


def repair(call, spec, *, request: str, system: str, grounded) -> tuple[Any, list[str]]:
    """``call`` with its time arguments taken from the request and its
    ungrounded optional values dropped, and a note of each change.

    ``grounded(value, strict)`` says whether a value came from the evidence;
    ``strict`` asks that every word of it did, not just one.
    """
    props: dict = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    args = dict(call.arguments)
    notes: list[str] = []

    clock = clock_of(system)
    named = named_time(request, *clock) if clock else None
    from_request: set[str] = set()
    if named is not None:
        moment = next((a for a in MOMENT_ARGS if a in props and a in args), None)
        if moment and named.has_clock:
            from_request.add(moment)
            if args[moment] != named.phrase:
                notes.append(f"{moment}: {args[moment]!r} -> {named.phrase!r} (as the request says it)")
                args[moment] = named.phrase
        day_arg = next((a for a in DAY_ARGS if a in props and a in args), None)
        if day_arg and named.day is not None:
            from_request.add(day_arg)
            if args[day_arg] != named.day.isoformat():
                notes.append(f"{day_arg}: {args[day_arg]!r} -> {named.day.isoformat()!r} ({named.phrase!r} in the request)")
                args[day_arg] = named.day.isoformat()

    for name in list(args):
        if name in required or name not in props or name in from_request:
            continue
        value = args[name]
        schema = props[name]
        if isinstance(value, bool) or value is None or "enum" in schema:
            continue
        if isinstance(value, list):
            kept = [v for v in value if grounded(v, False)]
            if kept != value:
                notes.append(f"{name}: dropped {[v for v in value if v not in kept]!r} (not in the request or memory)")
                if kept:
                    args[name] = kept
                else:
                    del args[name]
            continue
        if name in BOUND_ARGS:
            # An end or a last day is kept only when the request itself says it:
            # memory's dates would otherwise ground any date the model copies.
            from agent.models.local import _WORD

            if set(_WORD.findall(str(value).lower())) <= set(_WORD.findall(request.lower())):
                continue
            notes.append(f"{name}: dropped {value!r} (the request names no such bound)")
            del args[name]
            continue
        if not grounded(value, isinstance(value, str)):
            notes.append(f"{name}: dropped {value!r} (not in the request or memory)")
            del args[name]
    if not notes:
        return call, []
    return type(call)(call.id, call.name, args), notes
