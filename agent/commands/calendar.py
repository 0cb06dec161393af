"""`kept calendar`: the events kept booked, listed or exported as .ics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from agent.commands.errors import fail

app = typer.Typer(help="The calendar kept keeps: list events, export them to a .ics file.", no_args_is_help=True)



def _open():
    """The store, the person's zone and now; known failures become one line."""
    from datetime import datetime

    from agent import config
    from agent.config import ConfigError
    from agent.session import open_store
    from memory.db import StoreError

    try:
        tz = config.timezone(config.load())
        return open_store(), tz, datetime.now(tz)
    except (StoreError, ConfigError) as exc:
        fail(str(exc))


@app.command("list")
def list_events(
    start: Optional[str] = typer.Option(None, "--from", help="First day to show: 'today', 'Tuesday', 'Dec 3', '2026-12-03', 'next week'. Default: today."),
    end: Optional[str] = typer.Option(None, "--to", help="Last day to show, inclusive, same formats. Default: no limit."),
    include_cancelled: bool = typer.Option(False, "--all", help="Also show cancelled events."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List calendar events, earliest first (from today on, unless --from/--to say otherwise)."""
    from tools import store, when
    from tools.base import ToolError

    db, tz, now = _open()
    try:
        lower = when.span(start, now, tz, what="--from")[0] if start else when.day_start(now.date(), tz)
        upper = when.span(end, now, tz, what="--to")[1] if end else None
    except ToolError as exc:
        fail(str(exc))
    if upper is not None and upper < lower:
        fail("--to is before --from")
    rows = [e.as_dict(tz) for e in store.events(db, lower, upper, include_cancelled=include_cancelled)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        typer.echo("No events.")
        return
    from agent.terminal import event_line

    for row in rows:
        typer.echo(event_line(row))


@app.command("export")
def export(
    file: Path = typer.Argument(..., help="Where to write the calendar, e.g. kept.ics. Overwritten if it exists; readable by you only."),
    include_cancelled: bool = typer.Option(False, "--all", help="Also export cancelled events (marked cancelled, so a re-import removes them)."),
) -> None:
    """Write every event to an iCalendar (.ics) file that calendar apps import."""
    from tools import ics, store

    db, tz, now = _open()
    found = store.events(db, include_cancelled=include_cancelled)
    try:
        ics.write_calendar(file, found, now)
    except OSError as exc:
        fail(f"cannot write {file}: {exc.strerror or exc}")
    typer.echo(f"Wrote {len(found)} event{'s' if len(found) != 1 else ''} to {file}")
