"""`kept memory`: the MEMORY note, the fact log, its events, export and import, a forced rewrite."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import typer

from agent.commands.errors import fail, guard
from agent.confirm import plural

NAME = "memory"
app = typer.Typer(help="What kept remembers: the MEMORY note and the dated fact log.", no_args_is_help=True)

JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of text.")


def _guard(fn):
    """A failed memory model says that nothing was written; other known
    failures take the shared one-line form."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from agent.models.base import ModelError
        from memory.llm import UnusableReply

        try:
            return fn(*args, **kwargs)
        except ModelError as exc:
            fail(f"the memory model failed ({exc.kind}: {exc}); nothing was written, the next pass retries")
        except UnusableReply as exc:
            fail(f"the memory model's reply could not be used ({exc}); nothing was written, the next pass retries")

    return guard(wrapper)


def _store():
    from agent.session import open_store

    return open_store()


def _echo_json(data) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


@app.command()
@_guard
def show(
    history: bool = typer.Option(False, "--history", help="Every version, oldest first, not only the current note."),
    as_json: bool = JSON_OPT,
) -> None:
    """Print the MEMORY note (the capped summary kept in every prompt)."""
    from memory import summary

    db = _store()
    versions = summary.history(db)
    if not history:
        versions = versions[-1:]
    if as_json:
        _echo_json([v.__dict__ for v in versions])
        return
    if not versions:
        typer.echo("MEMORY is empty: no write pass has run yet (`kept memory rewrite` runs one).")
        return
    for v in versions:
        if history:
            typer.echo(f"--- version #{v.id}, {v.at} ({len(v.text)} characters){' — ' + v.reason if v.reason else ''}")
        typer.echo(v.text)
        if history:
            typer.echo("")


@app.command()
@_guard
def facts(
    show_all: bool = typer.Option(False, "--all", help="Include superseded, deleted and archived facts."),
    as_json: bool = JSON_OPT,
) -> None:
    """List the fact log (active facts by default), oldest first."""
    from memory import facts as fact_log

    db = _store()
    rows = fact_log.by_status(db) if show_all else fact_log.by_status(db, fact_log.ACTIVE)
    if as_json:
        _echo_json([f.__dict__ for f in rows])
        return
    if not rows:
        typer.echo("No facts." if show_all else "No active facts.")
        return
    from agent.terminal import fact_line

    for f in rows:
        typer.echo(fact_line(f))


def _today() -> str:
    from datetime import datetime

    from agent import config

    return datetime.now(config.timezone(config.load())).date().isoformat()


@app.command()
@_guard
def add(text: str = typer.Argument(..., help='The fact, in your words, e.g. "Priya leads the Atlas launch".')) -> None:
    """Remember a fact by hand: dated today, from you (an ADD event in `kept memory log`)."""
    from agent.terminal import fact_line
    from memory import corrections

    try:
        fact = corrections.remember(_store(), text, _today())
    except corrections.Refused as exc:
        fail(str(exc))
    typer.echo(f"Remembered {fact_line(fact)}")


@app.command()
@_guard
def edit(
    fact_id: int = typer.Argument(..., help="The fact's id, as `kept memory facts` shows it (#12 -> 12)."),
    text: str = typer.Argument(..., help="The corrected fact."),
) -> None:
    """Correct a fact: the new text replaces it (an UPDATE event; the old version stays in the log)."""
    from agent.terminal import fact_line
    from memory import corrections

    try:
        fact = corrections.correct(_store(), fact_id, text, _today())
    except corrections.Refused as exc:
        fail(str(exc))
    typer.echo(f"Corrected: {fact_line(fact)}")


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty()


def _forget_llm(db, use_model: bool, spec: str | None):
    """The memory model that rewrites MEMORY without the forgotten text, or None (lines removed by rule)."""
    if not use_model:
        return None
    from agent import config
    from agent.memory_llm import ModelMemoryLLM
    from agent.models import registry

    settings = config.load()
    try:
        return ModelMemoryLLM(registry.create(spec or settings.memory_model or settings.model, memory=True), db)
    except Exception as exc:  # no model to reach: say so, remove the lines by rule
        typer.echo(f"kept: no memory model ({exc}); removing the MEMORY lines that hold it instead", err=True)
        return None


@app.command()
@_guard
def forget(
    fact_id: int = typer.Argument(None, help="The fact's id, as `kept memory facts` shows it."),
    matching: str = typer.Option(None, "--matching", help="Forget every fact and message that holds this text."),
    use_model: bool = typer.Option(
        True,
        "--model/--no-model",
        help="Rewrite MEMORY through the memory model (default), or only remove the lines that hold it.",
    ),
    model: str = typer.Option(
        None, "--memory-model", help="provider:name of the memory model (default: the configured one)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask first at a terminal (a forget cannot be undone)."),
) -> None:
    """Forget a fact (and the messages it came from), or every fact and message holding some text.

    It leaves recall, MEMORY (every version), search_memory, the history and
    exports; the log keeps only that something was forgotten, and when.
    """
    from agent.terminal import forgot_line
    from memory import forget as forgetting

    if (fact_id is None) == (matching is None):
        fail("give a fact id or --matching TEXT (one of them)")
    db = _store()
    try:
        target = forgetting.for_fact(db, fact_id) if fact_id is not None else forgetting.for_text(db, matching)
    except forgetting.NotFound as exc:
        fail(str(exc))
    if not yes and _interactive():  # a person at the terminal is asked; scripts are not
        what = (
            f"This forgets {plural(len(target.fact_ids), 'fact')} and "
            f"{plural(len(target.message_ids), 'message')} for good"
        )
        if not typer.confirm(what + ". Go on?", default=False):
            fail("nothing was forgotten")
    try:
        done = forgetting.forget(db, target, _forget_llm(db, use_model, model))
    except forgetting.Busy as exc:
        fail(str(exc))
    typer.echo(forgot_line(fact_id, done))


@app.command()
@_guard
def undo() -> None:
    """Undo what the last memory write pass saved; each reversal is an event in `kept memory log`."""
    from agent.terminal import undone_line
    from memory import undo as journal

    try:
        changes = journal.undo(_store())
    except journal.NothingToUndo as exc:
        fail(str(exc))
    typer.echo(undone_line(changes))


@app.command()
@_guard
def log(
    limit: int = typer.Option(50, "--limit", "-n", min=1, help="Show at most this many events."),
    as_json: bool = JSON_OPT,
) -> None:
    """Fact events (ADD, UPDATE, DELETE, ARCHIVE), undone changes (UNDO) and forgets, newest first."""
    from memory import facts as fact_log
    from memory import forget as forgetting
    from memory import undo as journal

    db = _store()
    rows = [e.__dict__ for e in fact_log.events(db, limit)]
    rows += [
        {
            "id": None,
            "fact_id": u.ref_id,
            "event": "UNDO",
            "old_text": u.text,
            "new_text": None,
            "at": u.at,
            "reason": f"{u.kind.lower()}, undoing {u.label}",
        }
        for u in journal.undo_events(db, limit)
    ]
    # A forget that reached facts has their DELETE events; one of messages only is said here.
    rows += [
        {
            "id": None,
            "fact_id": None,
            "event": "FORGET",
            "old_text": None,
            "new_text": None,
            "at": f["at"],
            "reason": f"{f['messages']} messages forgotten on request",
        }
        for f in forgetting.log(db)
        if not f["facts"]
    ]
    rows = sorted(rows, key=lambda e: e["at"], reverse=True)[:limit]
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        typer.echo("No fact events yet.")
        return
    for e in rows:
        event, old, new = e["event"], e["old_text"], e["new_text"]
        if event == "ADD":
            change = new or "(text forgotten)"
        elif event == "UPDATE":
            change = f"{old or '(text forgotten)'}  ->  {new or '(text forgotten)'}"
        else:
            change = old or ""
        ref = f" #{e['fact_id']}" if e["fact_id"] is not None else ""
        why = f"  ({e['reason']})" if e["reason"] else ""
        typer.echo(f"{e['at'][:19].replace('T', ' ')} {event:7}{ref} {change}{why}".rstrip())


@app.command("export")
@_guard
def export_cmd(
    file: Path = typer.Argument(..., help="Where to write the JSON export ('-' for standard output)."),
) -> None:
    """Write notes, facts, events, promises and series to a JSON file."""
    from memory.files import write_private
    from memory.transfer import export_data

    data = export_data(_store())
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if str(file) == "-":
        typer.echo(text)
        return
    try:
        write_private(file, (text + "\n").encode("utf-8"))
    except OSError as exc:
        fail(f"cannot write {file}: {exc.strerror or exc}")
    typer.echo(
        f"Exported {len(data['notes'])} note versions, {len(data['facts'])} facts, "
        f"{len(data['events'])} events to {file}."
    )


@app.command("import")
@_guard
def import_cmd(file: Path = typer.Argument(..., help="A JSON file written by `kept memory export`.")) -> None:
    """Load an export into an empty store (refused when this store already holds memory)."""
    from memory.transfer import import_data, load_file

    counts = import_data(_store(), load_file(file))
    typer.echo("Imported " + ", ".join(f"{n} {k}" for k, n in counts.items()) + ".")


@app.command()
@_guard
def rewrite(
    model: str = typer.Option(
        None, "--model", "-m", help="provider:name of the memory model (default: the configured memory model)."
    ),
    again: int = typer.Option(
        None,
        "--again",
        min=1,
        metavar="FROM_ID",
        help="Reread messages from this message id on, though a pass read them already.",
    ),
    as_json: bool = JSON_OPT,
) -> None:
    """Run write passes now, whatever the schedule, until every message has been read; say what was stored and dropped."""
    from agent import config
    from agent.background import run_due_pass
    from agent.models import registry
    from memory import writer

    db = _store()
    if again is not None:
        writer.reread_from(db, again)  # facts are deduplicated by text and date: a reread adds nothing twice
    if not writer.pending(db):
        if as_json:
            _echo_json([])
        else:
            typer.echo("Nothing to do: every message has been read.")
        return
    spec = model or config.load().memory_model
    memory_model = registry.create(spec, memory=True)
    progress = (lambda msg: None) if as_json else (lambda msg: typer.echo(f"  {msg}…", err=True))
    results = []
    while True:
        result = run_due_pass(db, memory_model, force=True, progress=progress)
        results.append(result)
        if not result.ran or result.remaining == 0 or len(results) >= 100:
            break
        progress(f"{result.remaining} messages left")
    if as_json:
        _echo_json([r.__dict__ for r in results])
        return
    ran = [r for r in results if r.ran]
    if not ran:
        typer.echo(f"Nothing to do: {results[-1].reason}.")
        return
    for r in ran:
        typer.echo(
            f"Read messages {r.cursor_from + 1}-{r.cursor_to} ({r.messages}): MEMORY "
            f"{'rewritten' if r.note_changed else 'unchanged'}{', SOUL updated' if r.soul_changed else ''}; "
            f"facts +{r.added} added, {r.updated} updated, {r.deleted} deleted, {r.archived} archived, "
            f"{r.overflow} moved out of MEMORY."
        )
        facts = r.extra.get("facts") if isinstance(r.extra.get("facts"), dict) else {}
        undecided = facts.get("undecided") or 0
        if r.already_kept or undecided:
            typer.echo(
                f"  dropped: {r.already_kept} already stored"
                + (f", {undecided} the model decided nothing for" if undecided else "")
            )
        for name in ("promises", "series"):
            if isinstance(r.extra.get(name), str):  # a stage skipped on the embedded path
                typer.echo(f"  {name}: {r.extra[name]}")
            elif isinstance(r.extra.get(name), dict):
                for line in r.extra[name].get("lines", []):
                    typer.echo(f"  {line}")
        for line in facts.get("decisions", []):
            typer.echo(f"  {line}")


@app.command()
@_guard
def series(as_json: bool = JSON_OPT) -> None:
    """Repeated events kept counts: how many times, first and last date."""
    from memory import series as ledger

    rows = ledger.summary_rows(_store())
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        typer.echo("No repeated events yet.")
        return
    for row in rows:
        typer.echo(f"#{row['id']} {row['name']}: {row['count']} times, first {row['first']}, last {row['last']}")
