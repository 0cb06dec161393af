"""`kept promises`: what was promised, to whom, by when, and what closed it."""

from __future__ import annotations

import json
import sys

import typer

from agent.commands.errors import fail, open_store_and_zone

app = typer.Typer(
    help="Promises you or kept made: open ones (overdue first), or all with the evidence that closed them.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def _open():
    """The store and today's date in the person's zone, or one clear line."""
    from datetime import datetime

    db, tz = open_store_and_zone()
    return db, datetime.now(tz).date()


@app.callback()
def promises(
    ctx: typer.Context,
    show_all: bool = typer.Option(False, "--all", help="Include done and dropped promises, with their evidence."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List open promises, overdue ones first and marked (with --all, closed ones too)."""
    if ctx.invoked_subcommand is not None:
        return
    from memory import promises as ledger

    db, today = _open()
    found = ledger.list_promises(db, () if show_all else (ledger.OPEN,))
    found.sort(key=lambda p: (p.status != ledger.OPEN, -p.overdue_days(today), p.due_on or "9999", p.id))
    if as_json:
        typer.echo(json.dumps([p.as_dict(today) for p in found], ensure_ascii=False, indent=2))
        return
    if not found:
        typer.echo("No promises." if show_all else "No open promises.")
        return
    color = sys.stdout.isatty()
    console = None
    if color:
        from rich.console import Console  # only when there is a terminal to colour

        console = Console(highlight=False)
    for p in found:
        line = ledger.describe(p, today)
        if console is None:
            typer.echo(line)
        elif p.overdue_days(today):
            console.print(line, style="bold red", markup=False)
        elif p.status != ledger.OPEN:
            console.print(line, style="dim", markup=False)
        else:
            console.print(line, markup=False)


@app.command("done")
def done(
    promise_id: int = typer.Argument(..., help="The promise's number, as `kept promises` shows it (#12 -> 12)."),
    note: str = typer.Option("", "--note", help="What shows it was done, e.g. 'sent by email on Friday'."),
) -> None:
    """Mark a promise done yourself (kept records that you said so)."""
    _close(promise_id, "done", note)


@app.command("drop")
def drop(
    promise_id: int = typer.Argument(..., help="The promise's number, as `kept promises` shows it (#12 -> 12)."),
    note: str = typer.Option("", "--note", help="Why, e.g. 'Priya already has it'."),
) -> None:
    """Drop a promise you no longer intend to keep."""
    _close(promise_id, "dropped", note)


def _close(promise_id: int, status: str, note: str) -> None:
    from memory import promises as ledger

    db, today = _open()
    p = ledger.get(db, promise_id)
    if p is None:
        fail(f"no promise #{promise_id}; `kept promises --all` lists them")
    if p.status != ledger.OPEN:
        fail(f"promise #{promise_id} is already {p.status} (on {p.closed_on})")
    ledger.close_by_person(db, promise_id, status, today, note)
    closed = ledger.get(db, promise_id)
    if closed is None:  # deleted by another kept process in between
        fail(f"promise #{promise_id} is gone")
    typer.echo(ledger.describe(closed, today))
