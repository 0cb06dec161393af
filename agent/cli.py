"""The `kept` command. Slow imports (SDKs, llama.cpp, matplotlib) happen inside
commands, so `kept --help` answers at once."""

from __future__ import annotations

import json
import sys

import typer

from agent.commands import mount
from agent.commands.errors import Fail, fail, guard

app = typer.Typer(
    name="kept",
    help="A terminal work assistant that remembers.",
    no_args_is_help=False,
    add_completion=False,
    # Plain click help: rendering it with rich costs over a second per call.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

MODEL_OPT = typer.Option(
    None,
    "--model",
    "-m",
    help="provider:name, e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, local. Default: KEPT_MODEL, else by which API key is set, else the embedded model.",
)
CHAT_OPT = typer.Option("me", "--chat", help="Which chat this is. Each chat keeps its own recent messages.")
TEAM_OPT = typer.Option(
    False,
    "--team",
    help="Open a team chat: no private memory reaches it. A chat's kind is set when it is made: --team on an existing private chat is refused.",
)
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of text.")
INCOGNITO_OPT = typer.Option(
    False, "--incognito", help="Read memory but store nothing: no message, no memory pass, no model-call log."
)


def _store():
    from agent.session import open_store

    return open_store()


def _print_json(data) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


@app.command()
@guard
def chat(
    model: str | None = MODEL_OPT,
    chat_name: str = CHAT_OPT,
    team: bool = TEAM_OPT,
    incognito: bool = INCOGNITO_OPT,
) -> None:
    """Talk with kept. /help lists the commands; Ctrl-C cancels a reply, Ctrl-D quits."""
    from agent.repl import run_repl

    run_repl(model_spec=model, chat_name=chat_name, team=team, incognito=incognito)


@app.command()
@guard
def ask(
    message: str = typer.Argument(..., help="What to say; '-' reads it from standard input."),
    model: str | None = MODEL_OPT,
    chat_name: str = CHAT_OPT,
    team: bool = TEAM_OPT,
    as_json: bool = JSON_OPT,
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Allow actions that need consent, such as a first message to a new recipient."
    ),
    incognito: bool = INCOGNITO_OPT,
    show_memory: bool = typer.Option(
        False, "--show-memory", help="After the reply, list what of memory reached the prompt and why."
    ),
) -> None:
    """One turn without the chat screen: print the reply (and, with --json, the tool calls)."""
    from agent import screen
    from agent.loop import run_turn
    from agent.session import open_session

    if message == "-":
        message = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    from agent.terminal import Terminal, to_stderr

    term = Terminal(note=to_stderr)

    def approve(prompt: str) -> bool:
        if not yes:
            term.note(f"{prompt}\n(not approved: rerun with --yes to allow it)", "")
        return yes

    session = open_session(model, chat_name, team, approve=approve, incognito=incognito)
    _announce_local(session)
    if incognito and not as_json:
        term.note("incognito: memory is read, nothing from this turn is stored")
    term.start_reply()
    result = run_turn(
        session,
        message,
        on_text=None if as_json else term.stream,
        on_retry=term.retry,
        on_tool=None if as_json else term.tool,
    )
    if as_json:
        _print_json(
            {
                "reply": result.reply,
                "error": result.error,
                "tool_calls": [c.__dict__ for c in result.calls],
                "recalled": [item.as_dict() for item in result.memory_items],
                "screened": screen.as_json(result.screened),
            }
        )
    elif result.error:
        if term.partial:
            term.write("\n")
    else:
        term.end_reply(result)
    if not as_json:
        term.screened(result.screened)
    if show_memory and not as_json:
        from agent.terminal import why_lines

        term.say("memory used:" if result.memory_items else "memory used: none")
        for line in why_lines(result.memory_items):
            term.say(line)
    from agent.background import after_turn

    after_turn(session, on_done=None if as_json else lambda done: _say_saved(term, session, done))
    if session.delivery_retry is not None:  # pending items retried at start: let them finish
        session.delivery_retry.join(4 * session.delivery.timeout)
    if result.error:
        fail(result.error)


def _say_saved(term, session, done) -> None:
    """What the pass this turn ran stored (on standard error), full memory included."""
    from agent import config
    from agent.terminal import saved_lines
    from memory import undo

    journal_id = done.extra.get("journal_id")
    if journal_id:
        settings = config.load()
        for line in saved_lines(
            undo.changes(session.db, journal_id), cap=settings.summary_cap, max_active=settings.max_active_facts
        ):
            term.note(line.replace("/undo reverts it", "`kept memory undo` reverts it"))


def _announce_local(session) -> None:
    if session.model.provider == "local":
        typer.echo(
            "kept: no API key set; using the embedded model (Qwen2.5-Coder-0.5B-Instruct). "
            "Set ANTHROPIC_API_KEY or OPENAI_API_KEY for a stronger one.",
            err=True,
        )


@app.command()
@guard
def path() -> None:
    """Print where kept keeps your data."""
    from agent import config

    typer.echo(str(config.db_path()))


@app.command()
@guard
def history(
    chat_name: str | None = typer.Option(None, "--chat", help="Only this chat."),
    limit: int | None = typer.Option(None, "--limit", "-n", min=1, help="Only the last N messages."),
    as_json: bool = JSON_OPT,
) -> None:
    """List stored messages, oldest first."""
    from memory import messages as store

    db = _store()
    chat = None
    if chat_name:
        match = [c for c in store.list_chats(db) if c.name == chat_name]
        if not match:
            raise Fail(f"no chat called {chat_name!r}")
        chat = match[0]
    rows = store.history(db, chat, limit)
    names = {c.id: c.name for c in store.list_chats(db)}
    if as_json:
        _print_json([{**r.__dict__, "chat": names[r.chat_id]} for r in rows])
        return
    for r in rows:
        typer.echo(f"#{r.id} {r.at} [{names[r.chat_id]}] {r.author}: {r.text}")


@app.command()
@guard
def models(
    as_json: bool = JSON_OPT,
    check: bool = typer.Option(
        True, "--check/--no-check", help="Send a one-word prompt to see whether each model answers."
    ),
) -> None:
    """Show the chat and memory models configured, and whether they answer."""
    from agent import config
    from agent.models import registry
    from agent.models.base import Message, ModelError

    settings = config.load()
    rows = []
    for role, spec, memory in (("chat", settings.model, False), ("memory", settings.memory_model, True)):
        row: dict[str, object] = {"role": role}
        try:
            provider, name = registry.parse(spec, memory=memory)
            row.update(provider=provider, model=name)
            if check:
                model = registry.create(spec, memory=memory)
                reply = model.complete([Message("user", "Reply with the single word: ok")], max_tokens=5)
                row.update(answers=True, reply=reply.text.strip()[:40])
        except ModelError as exc:
            row.update(answers=False, error=f"{exc.kind}: {exc}")
        except Exception as exc:  # a missing extra, a bad file: report it, keep going
            row.update(answers=False, error=f"{type(exc).__name__}: {exc}")
        rows.append(row)
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        status = "" if not check else ("answers" if row.get("answers") else f"does not answer: {row.get('error')}")
        typer.echo(f"{row['role']:7} {row.get('provider', '?')}:{row.get('model', '?')}  {status}")


@app.command("serve")
def serve_model(
    port: int = typer.Option(8080, "--port", "-p", help="TCP port to listen on."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind; keep 127.0.0.1 unless you mean to share it."
    ),
) -> None:
    """Serve the embedded model as an OpenAI-compatible API (same as `kept model serve`)."""
    from agent.commands.model import serve

    serve(port=port, host=host)


mount(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
