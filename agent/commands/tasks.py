"""`kept tasks`: the tasks kept assigned."""

from __future__ import annotations

import typer

from agent.commands.errors import open_store_and_zone

app = typer.Typer(help="The tasks kept tracks for you and others.", no_args_is_help=True)


@app.command("list")
def list_tasks(
    show_all: bool = typer.Option(False, "--all", help="Include done tasks (default: open ones only)."),
    assignee: str | None = typer.Option(None, "--assignee", help="Only tasks for this person, e.g. Sam or me."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List tasks, soonest due first, each with whether it reached your calendar server."""
    from tools import lists

    db, tz = open_store_and_zone()
    from agent.commands.listing import echo_rows, state_text, with_delivery

    found = lists.tasks(db, assignee=assignee, status=None if show_all else lists.OPEN)
    states = lists.deliveries(db, lists.TASK)
    rows = with_delivery(found, states, tz)
    if echo_rows(rows, as_json, empty="No tasks." if show_all else "No open tasks."):
        return
    for row, task in zip(rows, found, strict=True):
        due = f"  due {row['due'][:16].replace('T', ' ')} ({row['due_weekday'][:3]})" if row["due"] else ""
        mark = "x" if row["status"] == "done" else " "
        state = state_text(states.get(task.id), tz)
        typer.echo(f"[{mark}] #{row['task_id']:<4} {row['assignee']}: {row['title']}{due}  [{state}]")
