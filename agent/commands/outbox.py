"""`kept outbox`: the messages kept sent."""

from __future__ import annotations

import json
from typing import Optional

import typer

from agent.commands.errors import fail

app = typer.Typer(help="The messages kept sent for you.", no_args_is_help=True)



@app.command("list")
def list_outbox(
    to: Optional[str] = typer.Option(None, "--to", help="Only messages to this name or address."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", min=1, help="Only the last N messages."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List sent messages, oldest first."""
    from agent import config
    from agent.config import ConfigError
    from agent.session import open_store
    from memory.db import StoreError
    from tools import store

    try:
        tz = config.timezone(config.load())
        db = open_store()
    except (StoreError, ConfigError) as exc:
        fail(str(exc))
    rows = [m.as_dict(tz) for m in store.outbox(db, recipient=to, limit=limit)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        typer.echo("No messages sent.")
        return
    from agent.terminal import outbox_line

    for row in rows:
        typer.echo(outbox_line(row))
