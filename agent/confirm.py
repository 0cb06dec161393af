"""What a tool did, said as a person would say it.

"Booked: Tue 1 Dec 15:00–15:30, Q3 budget with Anna." rather than the
tool's fields. The chat's tool lines use it, and when the model's reply
after a tool call is unusable (empty, or the result's raw fields), the turn
replies with these sentences instead (see ``settle``). Built only from the
tool's own result, so it can never claim an action that did not happen.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any


def _when(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def _day(moment: datetime) -> str:
    return f"{moment:%a} {moment.day} {moment:%b}"


def _span(start: datetime | None, end: datetime | None) -> str:
    if start is None:
        return ""
    if end is None:
        return f"{_day(start)} {start:%H:%M}"
    if end.date() == start.date():
        return f"{_day(start)} {start:%H:%M}–{end:%H:%M}"
    return f"{_day(start)} {start:%H:%M} – {_day(end)} {end:%H:%M}"


def _due(value: str | None) -> str:
    moment = _when(value if value and "T" in value else (value + "T00:00" if value else None))
    if moment is None:
        return ""
    return f", due {_day(moment)}" + (f" {moment:%H:%M}" if value and "T" in value else "")


def _people(names) -> str:
    names = [str(n) for n in names or [] if str(n).strip()]
    if not names:
        return ""
    return " with " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(str(text or "").split())
    return "“" + (text if len(text) <= limit else text[: limit - 1] + "…") + "”"


def _event(e: dict) -> str:
    return (
        f"{_span(_when(e.get('start')), _when(e.get('end')))}, {e.get('title', '')}{_people(e.get('attendees'))}".strip(
            ", "
        )
    )


def plural(n: int, word: str) -> str:
    """'1 fact', '3 facts': a count and its noun, for every line kept writes."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def describe(name: str, arguments: dict, result: Any) -> str | None:
    """One sentence for a successful tool call, or None when kept has none for it."""
    if not isinstance(result, dict) or result.get("error"):
        return None
    if name == "schedule_meeting":
        where = f" @ {result['location']}" if result.get("location") else ""
        return f"Booked: {_event(result)}{where}."
    if name == "cancel_event":
        return f"Cancelled: {_event(result)}."
    if name == "send_message":
        channel = f" by {result['channel']}" if result.get("channel") else ""
        subject = f" ({result['subject']})" if result.get("subject") else ""
        body = " ".join(str(result.get("body") or "").split())
        end = "" if body.endswith((".", "!", "?", "。", "！", "？", "…")) else "."
        return f"Sent to {result.get('to', '?')}{channel}{subject}: {_quote(body)}{end}"
    if name == "assign_task":
        return f"Task for {result.get('assignee', '?')}: {result.get('title', '')}{_due(result.get('due'))}."
    if name == "complete_task":
        return f"Done: {result.get('title', '')} ({result.get('assignee', '?')})."
    if name == "list_events":
        events = result.get("events") or []
        if not events:
            return "No events in that time."
        shown = "; ".join(_event(e) for e in events[:5])
        return f"{plural(len(events), 'event')}: {shown}{'; …' if len(events) > 5 else ''}."
    if name == "list_messages":
        found = result.get("messages") or []
        if not found:
            return "No messages sent."
        shown = "; ".join(f"to {m.get('to')} {_quote(m.get('body', ''), 40)}" for m in found[-3:])
        return f"{plural(len(found), 'message')} sent, latest {shown}."
    if name == "list_tasks":
        found = result.get("tasks") or []
        if not found:
            return "No tasks."
        shown = "; ".join(f"{t.get('title')} ({t.get('assignee')}{_due(t.get('due'))})" for t in found[:5])
        return f"{plural(len(found), 'task')}: {shown}."
    if name == "search_memory":
        facts, found = result.get("facts") or [], result.get("messages") or []
        if not facts and not found:
            return "Nothing in memory matches."
        return f"Found {plural(len(facts), 'fact')} and {plural(len(found), 'message')} in memory."
    return None


def _field_names(calls) -> set[str]:
    names: set[str] = set()
    for call in calls:
        if isinstance(call.result, dict):
            names.update(k for k in call.result if len(k) > 2)
    return names


def usable(text: str, calls) -> bool:
    """Whether a reply after tool calls reads as a reply: not empty, not JSON,
    not the result's fields written out ("event_id: 4, start: ...")."""
    stripped = text.strip()
    if not stripped:
        return False
    if stripped[0] in "{[":
        try:
            json.loads(stripped)
            return False
        except ValueError:
            pass
    fields = _field_names(calls)
    # "event_id: 4" or, written out, "event id: 4".
    shown = sum(
        1 for f in fields if re.search(r"[\"']?\b" + re.escape(f).replace("_", "[_ ]") + r"\b[\"']?\s*[:=]", stripped)
    )
    return shown < 2


def sentences(calls) -> str:
    """The sentences of every successful call, in order ('' when kept has none)."""
    said = [describe(c.name, c.arguments, c.result) for c in calls if not c.is_error]
    return " ".join(s for s in said if s)


def settle(text: str, calls) -> str:
    """``text`` when it is a usable reply; else what the tool results say (or ``text`` when they say nothing)."""
    if not calls or usable(text, calls):
        return text
    return sentences(calls) or text
