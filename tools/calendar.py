"""Calendar tools: schedule_meeting, list_events, cancel_event.

Times come in as the person said them and are resolved in code
(tools/when.py); results carry absolute ISO times with the offset and the
weekday, so the model repeats a checked answer instead of computing one.

Conflicts: an overlapping meeting does not stop a booking (people double-book
on purpose); the new event is stored and ``conflicts`` names every scheduled
event it overlaps, so the model can tell the person.

With a CalDAV account connected (tools/delivery/), a booking is also PUT on
the person's calendar server, a cancel deletes it there, and listings and
conflict checks read the server's calendar too, so events the person made
elsewhere count. Those carry no event_id: kept did not book them.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field, field_validator

from tools import delivery, lists, when
from tools.arguments import Arguments, RowId, minutes, split_names
from tools.base import Tool, ToolContext, ToolError, close_item

MAX_MINUTES = 24 * 60
DEFAULT_WINDOW_DAYS = 30

START_HELP = (
    "When it starts, as the person said it, with a time of day: 'Tuesday 10:00', 'tomorrow at 9am', "
    "'next Friday 14:30', 'Dec 3 at 9:15', 'in 2 hours', '明天上午九点', or ISO '2026-12-03T09:00'."
)


class ScheduleMeetingArgs(Arguments):
    KINDS = {"attendees": "people", "start": "moment", "title": "label"}
    ALIASES = {
        "date": "start",
        "time": "start",
        "when": "start",
        "start_time": "start",
        "datetime": "start",
        "duration": "duration_minutes",
        "minutes": "duration_minutes",
        "length": "duration_minutes",
        "end_time": "end",
        "attendee": "attendees",
        "with": "attendees",
        "participants": "attendees",
        "invitees": "attendees",
        "name": "title",
        "subject": "title",
        "summary": "title",
        "place": "location",
        "where": "location",
        "description": "notes",
    }

    title: str = Field(min_length=1, max_length=200, description="What the meeting is, e.g. 'One on one with Sam'.")
    start: str = Field(min_length=1, description=START_HELP)
    attendees: list[str] = Field(
        default_factory=list,
        description="Who else attends: names or email addresses, e.g. ['Sam'] or ['sam@example.com', 'Priya'].",
    )
    duration_minutes: int = Field(
        default=30,
        ge=5,
        le=MAX_MINUTES,
        description="Length in minutes, e.g. 30 or 60. Default 30. Ignored when end is given.",
    )
    end: str | None = Field(
        default=None,
        description="Optional end instead of a duration: a time on the same day like '11:30', or a day and time like start.",
    )
    location: str | None = Field(
        default=None, max_length=300, description="Optional place or link, e.g. 'Room 4' or a video link."
    )
    notes: str | None = Field(default=None, max_length=4000, description="Optional agenda or notes.")

    @classmethod
    def prepare(cls, data: dict) -> dict:  # {"date": "Tuesday", "time": "10:00"} -> start "Tuesday 10:00"
        if "start" not in data and data.get("date") and data.get("time"):
            data["start"] = f"{data.pop('date')} {data.pop('time')}"
        return data

    _attendees = field_validator("attendees", mode="before")(lambda cls, v: split_names(v))
    _minutes = field_validator("duration_minutes", mode="before")(lambda cls, v: 30 if v is None else minutes(v))


class ListEventsArgs(Arguments):
    ALIASES = {
        "from": "from_date",
        "start": "from_date",
        "date": "from_date",
        "day": "from_date",
        "to": "to_date",
        "end": "to_date",
        "until": "to_date",
    }

    from_date: str | None = Field(
        default=None,
        description="Optional first day to show: 'today', 'tomorrow', 'Tuesday', 'Dec 3', '2026-12-03', "
        "'this week', 'next week', '下周'. Alone it shows just that day (or week). Default: from now.",
    )
    to_date: str | None = Field(
        default=None,
        description="Optional last day to show, inclusive, same formats, e.g. 'Friday'. Default: 30 days ahead.",
    )
    include_cancelled: bool = Field(default=False, description="true to also show cancelled events.")


class CancelEventArgs(Arguments):
    ALIASES = {"id": "event_id", "event": "event_id"}

    event_id: RowId = Field(description="The event_id from schedule_meeting or list_events, e.g. 12.")


SERVER_ONLY = "your calendar, not booked by kept"


def _brief(event: lists.Event, ctx: ToolContext) -> dict:
    full = event.as_dict(ctx.tz)
    row = {k: full[k] for k in ("event_id", "title", "start", "end", "weekday", "attendees")}
    return _mark_server_only(row, event)


def _event(event: lists.Event, ctx: ToolContext) -> dict:
    full = event.as_dict(ctx.tz)
    row = {k: v for k, v in full.items() if v is not None and k != "created_at"}
    return _mark_server_only(row, event)


def _mark_server_only(row: dict, event: lists.Event) -> dict:
    if event.origin == "server":
        row.pop("event_id", None)
        row["source"] = SERVER_ONLY
    return row


def _with_server(ctx: ToolContext, start, end, local: list[lists.Event]) -> tuple[list[lists.Event], str | None]:
    """``local`` plus the server's events in [start, end) that are not kept's own (matched by UID).

    Those belong to no chat (``chat`` None), so a team chat's scope sees them as busy time only.
    """
    found, unread = ctx.deliverer().server_events(start, end, ctx.tz)
    known = {e.uid for e in lists.events(ctx.db, start, end, include_cancelled=True)}
    extra = [e for e in found if e.uid not in known and e.status != lists.CANCELLED]
    merged = sorted(local + extra, key=lambda e: (e.start, e.id == 0, e.id))
    note = f"the calendar server could not be read ({unread}); this shows kept's own record only" if unread else None
    return merged, note


def schedule_meeting(ctx: ToolContext, args: ScheduleMeetingArgs) -> dict:
    start = when.resolve(args.start, ctx.now, ctx.tz, what="start")
    if start < ctx.now.replace(second=0, microsecond=0):
        raise ToolError(
            f"start: {args.start!r} is {when.iso(start, ctx.tz)} ({when.weekday(start, ctx.tz)}), which is in the past "
            f"(now is {when.iso(ctx.now, ctx.tz)}). Give a future day and time, e.g. 'tomorrow 10:00'."
        )
    if args.end:
        start_day = start.astimezone(ctx.tz).date()
        end = when.resolve(args.end, ctx.now, ctx.tz, what="end", on_day=start_day)
        if end <= start and when.parse(args.end, ctx.now, ctx.tz, "end").day is None:
            # A time alone before the start ("23:00" to "00:30") ends after midnight.
            end = when.resolve(args.end, ctx.now, ctx.tz, what="end", on_day=start_day + timedelta(days=1))
        if end <= start:
            raise ToolError(
                f"end: {args.end!r} is {when.iso(end, ctx.tz)}, not after start {when.iso(start, ctx.tz)}. "
                "Give a later end, or use duration_minutes instead."
            )
        if end - start > timedelta(minutes=MAX_MINUTES):
            raise ToolError(f"end: the meeting would last more than 24 hours ({when.iso(end, ctx.tz)}); check the end")
    else:
        end = start + timedelta(minutes=args.duration_minutes)  # elapsed time: DST-safe in UTC
    conflicts, unread = _with_server(ctx, start, end, lists.overlapping(ctx.db, start, end))
    state, why_local = ctx.deliverer().calendar_state()
    event = lists.add_event(
        ctx.db,
        title=args.title,
        start=start,
        end=end,
        now=ctx.now,
        attendees=args.attendees,
        location=args.location,
        notes=args.notes,
        chat=ctx.chat_name,
        delivery=state,
    )
    result = _event(event, ctx)
    # A clash with an event this chat may not see is told as busy time only.
    shown = [e for e in conflicts if ctx.scope.sees(e.chat)]
    busy = [e for e in conflicts if not ctx.scope.sees(e.chat)]
    result["conflicts"] = [_brief(e, ctx) for e in shown] + [
        {"busy": True, "start": when.iso(e.start, ctx.tz), "end": when.iso(e.end, ctx.tz)} for e in busy
    ]
    if conflicts:
        names = [f"'{e.title}' (event_id {e.id})" if e.id else f"'{e.title}' (on {SERVER_ONLY})" for e in shown]
        names += [f"{len(busy)} private event{'s' if len(busy) > 1 else ''} (busy time)"] if busy else []
        result["warning"] = f"Booked, but it overlaps {', '.join(names)}. Tell the person about the clash."
    if unread:
        result["calendar_server"] = unread.replace("this shows", "conflicts were checked against")
    result["delivery_state"], result["delivery"] = delivery.deliver_now(ctx, lists.EVENT, event.id, state, why_local)
    return result


def list_events(ctx: ToolContext, args: ListEventsArgs) -> dict:
    if args.from_date:
        start, from_end = when.span(args.from_date, ctx.now, ctx.tz, what="from_date")
        if from_end == start:  # a moment: show the rest of that day
            from_end = when.day_start(start.astimezone(ctx.tz).date() + timedelta(days=1), ctx.tz)
    else:
        start, from_end = ctx.now, None
    if args.to_date:
        _, end = when.span(args.to_date, ctx.now, ctx.tz, what="to_date")
    elif args.from_date:
        assert from_end is not None  # set by the from_date branch above
        end = from_end
    else:
        end = ctx.now + timedelta(days=DEFAULT_WINDOW_DAYS)
    if end < start:
        raise ToolError(
            f"to_date {when.iso(end, ctx.tz)} is before from_date {when.iso(start, ctx.tz)}; give a later to_date"
        )
    local = lists.events(ctx.db, start, end, include_cancelled=args.include_cancelled, scope=ctx.scope)
    found, unread = _with_server(ctx, start, end, local)
    result = {
        "from": when.iso(start, ctx.tz),
        "to": when.iso(end, ctx.tz),
        "count": len(found),
        "events": [
            _event(e, ctx)
            if ctx.scope.sees(e.chat)
            else {"busy": True, "start": when.iso(e.start, ctx.tz), "end": when.iso(e.end, ctx.tz)}
            for e in found
        ],
    }
    if unread:
        result["calendar_server"] = unread
    return result


def cancel_event(ctx: ToolContext, args: CancelEventArgs) -> dict:
    event = close_item(
        ctx,
        lists.EVENT,
        args.event_id,
        lists.cancel_event,
        lists.get_event,
        lambda old: f"('{old.title}', {when.iso(old.start, ctx.tz)}) is already cancelled",
    )
    result = _event(event, ctx)
    result["delivery_state"], result["delivery"] = delivery.deliver_change(
        ctx, lists.EVENT, event.id, "it was only ever in kept's calendar"
    )
    return result


TOOLS = [
    Tool(
        "schedule_meeting",
        "Book a meeting or appointment in the person's calendar. Needs title and start (a day AND a time of "
        "day, as the person said it, e.g. 'Tuesday 10:00'); attendees, duration_minutes (default 30) or end, "
        "location and notes are optional. Returns the event with event_id and the absolute start/end (ISO with "
        "offset) and weekday: tell the person that exact time. Overlapping meetings are still booked and listed "
        "in conflicts; mention them. A start in the past is refused.",
        ScheduleMeetingArgs,
        schedule_meeting,
    ),
    Tool(
        "list_events",
        "Show the person's calendar: the scheduled events between from_date and to_date, earliest first, "
        "each with event_id, title, start, end, weekday and attendees. With no arguments: the next 30 days. "
        "Use it to answer 'what's on Tuesday?' or to find an event_id.",
        ListEventsArgs,
        list_events,
    ),
    Tool(
        "cancel_event",
        "Cancel one calendar event by its event_id (a number from schedule_meeting or list_events; "
        "call list_events first if you do not know it).",
        CancelEventArgs,
        cancel_event,
    ),
]
