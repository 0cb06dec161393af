"""The `kept` command. Slow imports (SDKs, llama.cpp, matplotlib) happen inside
commands, so `kept --help` answers at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

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

MODEL_OPT = typer.Option(None, "--model", "-m", help="provider:name, e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, local. Default: KEPT_MODEL, else by which API key is set, else the embedded model.")
CHAT_OPT = typer.Option("me", "--chat", help="Which chat this is. Each chat keeps its own recent messages.")
TEAM_OPT = typer.Option(False, "--team", help="Open a team chat: no private memory reaches it. A chat's kind is set when it is made: --team on an existing private chat is refused.")
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of text.")


def _store():
    from agent.session import open_store

    return open_store()


def _print_json(data) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


@app.command()
@guard
def chat(
    model: Optional[str] = MODEL_OPT,
    chat_name: str = CHAT_OPT,
    team: bool = TEAM_OPT,
) -> None:
    """Talk with kept. /help lists the commands; Ctrl-C cancels a reply, Ctrl-D quits."""
    from agent.repl import run_repl

    run_repl(model_spec=model, chat_name=chat_name, team=team)


@app.command()
@guard
def ask(
    message: str = typer.Argument(..., help="What to say; '-' reads it from standard input."),
    model: Optional[str] = MODEL_OPT,
    chat_name: str = CHAT_OPT,
    team: bool = TEAM_OPT,
    as_json: bool = JSON_OPT,
    yes: bool = typer.Option(False, "--yes", "-y", help="Allow actions that need consent, such as a first message to a new recipient."),
) -> None:
    """One turn without the chat screen: print the reply (and, with --json, the tool calls)."""
    from agent import screen
    from agent.loop import run_turn
    from agent.session import open_session

    if message == "-":
        message = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    session = open_session(model, chat_name, team, approve=lambda prompt: yes)
    _announce_local(session)
    partial = [False]  # text of the current attempt is on the screen

    def stream(delta: str) -> None:
        partial[0] = partial[0] or bool(delta)
        sys.stdout.write(delta)
        sys.stdout.flush()

    def on_retry(exc, delay: float) -> None:
        # A stream cut mid-reply has printed part of it: say so before the retried reply repeats it.
        if partial[0]:
            sys.stdout.write(f"\n[reply interrupted ({exc.kind}); retrying from the start]\n")
            sys.stdout.flush()
            partial[0] = False
        else:
            typer.echo(f"({exc.kind}; retrying in {delay:.1f} s)", err=True)

    result = run_turn(session, message, on_text=None if as_json else stream, on_retry=on_retry,
                      on_tool=lambda call: partial.__setitem__(0, False))
    if as_json:
        _print_json({
            "reply": result.reply,
            "error": result.error,
            "tool_calls": [c.__dict__ for c in result.calls],
            "screened": screen.as_json(result.screened),
        })
    elif result.reply or partial[0]:
        sys.stdout.write("\n")
    if result.screened and not as_json:
        typer.echo(screen.describe(result.screened), err=True)
    from agent.background import after_turn

    after_turn(session)
    if session.delivery_retry is not None:  # pending items retried at start: let them finish
        session.delivery_retry.join(4 * session.delivery.timeout)
    if result.error:
        fail(result.error)


def _announce_local(session) -> None:
    if session.model.provider == "local":
        typer.echo(
            "kept: no API key set; using the embedded model (Qwen2.5-Coder-0.5B-Instruct). "
            "Set ANTHROPIC_API_KEY or OPENAI_API_KEY for a stronger one.",
            err=True,
        )


@app.command()
def path() -> None:
    """Print where kept keeps your data."""
    from agent import config

    typer.echo(str(config.db_path()))


@app.command()
@guard
def history(
    chat_name: Optional[str] = typer.Option(None, "--chat", help="Only this chat."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", min=1, help="Only the last N messages."),
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
def models(as_json: bool = JSON_OPT, check: bool = typer.Option(True, "--check/--no-check", help="Send a one-word prompt to see whether each model answers.")) -> None:
    """Show the chat and memory models configured, and whether they answer."""
    from agent import config
    from agent.models import registry
    from agent.models.base import Message, ModelError

    settings = config.load()
    rows = []
    for role, spec, memory in (("chat", settings.model, False), ("memory", settings.memory_model, True)):
        row = {"role": role}
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
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; keep 127.0.0.1 unless you mean to share it."),
) -> None:
    """Serve the embedded model as an OpenAI-compatible API (same as `kept model serve`)."""
    from agent.commands.model import serve

    serve(port=port, host=host)


mount(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
