"""`kept soul`: what the person asked for about how to be treated."""

from __future__ import annotations

import json

import typer

from agent.commands.errors import fail, open_store_and_zone

NAME = "soul"
app = typer.Typer(help="SOUL: how you asked kept to treat you (name, tone, format, language).", no_args_is_help=True)

TEMPLATE = """# What kept should call you, and how it should answer (tone, format, language).
# Lines starting with # are ignored. Save and close the editor to keep it.
"""


def _edit(initial: str) -> str | None:
    """The text after the person edits ``initial`` in $VISUAL or $EDITOR; None when they did not save."""
    import os
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "SOUL.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(initial)
        before = os.stat(path).st_mtime_ns
        try:
            code = subprocess.call([*shlex.split(editor), path])
        except OSError as exc:
            fail(f"cannot run the editor {editor!r} ({exc.strerror or exc}); set $EDITOR, or use --set TEXT")
        if code != 0:
            fail(f"the editor {editor!r} exited with status {code}; SOUL unchanged")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if os.stat(path).st_mtime_ns == before and text == initial:
            return None
        return text


def _store():
    return open_store_and_zone()[0]


@app.command()
def show(
    history: bool = typer.Option(False, "--history", help="Every version, oldest first."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Print SOUL (always in the prompt)."""
    from memory import soul

    db = _store()
    versions = soul.history(db) if history else soul.history(db)[-1:]
    if as_json:
        typer.echo(json.dumps([v.__dict__ for v in versions], ensure_ascii=False, indent=2))
        return
    if not versions or not versions[-1].text:
        typer.echo("SOUL is empty: kept uses its default persona. `kept soul edit` sets it.")
        if not history:
            return
    for v in versions:
        if history:
            typer.echo(f"--- version #{v.id}, {v.at}{' — ' + v.reason if v.reason else ''}")
        typer.echo(v.text)


@app.command()
def edit(
    set_text: str | None = typer.Option(
        None, "--set", help="Replace SOUL with this text instead of opening $EDITOR ('' clears it)."
    ),
) -> None:
    """Edit SOUL in $EDITOR (or set it with --set). Every version is kept."""
    from memory import soul

    db = _store()
    if set_text is None:
        text = _edit(TEMPLATE + soul.current(db) + "\n")
        if text is None:
            typer.echo("SOUL unchanged (the editor was closed without saving).")
            return
        set_text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    try:
        changed = soul.set_text(db, set_text)
    except soul.SoulTooLong as exc:
        fail(str(exc))
    typer.echo("SOUL saved." if changed else "SOUL unchanged.")
