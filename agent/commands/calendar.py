"""`kept calendar`: the events kept booked, listed or exported as .ics."""

from __future__ import annotations

from pathlib import Path

import typer

from agent.commands.errors import fail, open_store_and_zone
from agent.confirm import plural

app = typer.Typer(
    help="The calendar kept keeps: list events (and whether each reached your calendar server), "
    "import a .ics file, export one.",
    no_args_is_help=True,
)


def _open():
    """The store, the person's zone and now; known failures become one line."""
    from datetime import datetime

    db, tz = open_store_and_zone()
    return db, tz, datetime.now(tz)


@app.command("list")
def list_events(
    start: str | None = typer.Option(
        None,
        "--from",
        help="First day to show: 'today', 'Tuesday', 'Dec 3', '2026-12-03', 'next week'. Default: today.",
    ),
    end: str | None = typer.Option(None, "--to", help="Last day to show, inclusive, same formats. Default: no limit."),
    include_cancelled: bool = typer.Option(False, "--all", help="Also show cancelled events."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List calendar events, earliest first (from today on, unless --from/--to say otherwise)."""
    from tools import lists, when
    from tools.base import ToolError

    db, tz, now = _open()
    try:
        lower = when.span(start, now, tz, what="--from")[0] if start else when.day_start(now.date(), tz)
        upper = when.span(end, now, tz, what="--to")[1] if end else None
    except ToolError as exc:
        fail(str(exc))
    if upper is not None and upper < lower:
        fail("--to is before --from")
    from agent.commands.listing import deliverer, echo_rows, recorded_only, state_text, with_delivery
    from tools.delivery import CONNECT_CALENDAR

    found = lists.events(db, lower, upper, include_cancelled=include_cancelled)
    states = lists.deliveries(db, lists.EVENT)
    rows = with_delivery(found, states, tz)
    for row, event in zip(rows, found, strict=True):
        row["origin"] = event.origin
    if echo_rows(rows, as_json, empty="No events."):
        return
    from agent.terminal import event_line

    for row, event in zip(rows, found, strict=True):
        where = "imported" if event.origin == "import" else state_text(states.get(event.id), tz)
        typer.echo(f"{event_line(row)}  [{where}]")
    local = [e for e in recorded_only(found, states) if e.origin == "kept"]
    if local:
        server = deliverer()
        if server.calendar is None:
            why = server.problem or "no calendar account is connected"
            typer.echo(
                f"{len(local)} event{'s are' if len(local) != 1 else ' is'} in kept's calendar only: {why}. "
                f"Connect one with `{CONNECT_CALENDAR}`."
            )


@app.command("export")
def export(
    file: Path = typer.Argument(
        ..., help="Where to write the calendar, e.g. kept.ics. Overwritten if it exists; readable by you only."
    ),
    include_cancelled: bool = typer.Option(
        False, "--all", help="Also export cancelled events (marked cancelled, so a re-import removes them)."
    ),
) -> None:
    """Write every event to an iCalendar (.ics) file that calendar apps import."""
    from tools import ics, lists

    db, tz, now = _open()
    found = lists.events(db, include_cancelled=include_cancelled)
    try:
        ics.write_calendar(file, found, now)
    except OSError as exc:
        fail(f"cannot write {file}: {exc.strerror or exc}")
    typer.echo(f"Wrote {plural(len(found), 'event')} to {file}")


@app.command("import")
def import_ics(
    file: Path = typer.Argument(..., help="An iCalendar (.ics) file, e.g. one exported from your calendar app."),
) -> None:
    """Read the events of an .ics file into kept's calendar, so conflict checks count them.

    Importing the same file again updates those events instead of adding them twice. Repeating
    events are expanded from a month back to a year ahead.
    """
    from tools import ics, lists

    db, tz, now = _open()
    try:
        data = file.read_bytes()
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    try:
        events = ics.read_events(data, tz, now)
    except ValueError as exc:
        fail(f"{file}: {exc}")
    counts = {"added": 0, "updated": 0, "unchanged": 0, "skipped": 0}
    for event in events:
        counts[lists.import_event(db, event, now)] += 1
    parts = [f"{n} {word}" for word, n in counts.items() if n]
    typer.echo(f"Read {plural(len(events), 'event')} from {file}: {', '.join(parts) or 'nothing new'}.")
