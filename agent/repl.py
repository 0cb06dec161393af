"""The chat screen: prompt-toolkit input, streamed replies, /commands.

One place owns the terminal (like Aider's io.py). Enter sends; Alt-Enter (or
Esc then Enter) adds a line. Ctrl-C cancels the reply in progress and keeps
the session; Ctrl-D or /quit leaves. Dumb terminals and piped input get a
plain line-by-line fallback; NO_COLOR turns colour off.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from agent.loop import Cancelled, ExecutedCall, InputError, run_turn
from memory import scope


@dataclass
class Command:
    name: str
    help: str
    run: Callable[["Repl", str], None]
    # Shown in a team chat too. A command that reads the person's private memory
    # leaves this False, so a new command is refused in team chats until it says otherwise.
    in_team: bool = False


class Quit(Exception):
    pass


def _short(value, limit: int = 160) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Repl:
    def __init__(self, session, *, write: Callable[[str], None] | None = None, color: bool = True):
        self.session = session
        self.write = write or (lambda s: (sys.stdout.write(s), sys.stdout.flush()))
        self.color = color
        self.commands = {c.name: c for c in COMMANDS}
        self.write_pass = None  # the background memory pass, joined on exit

    # -- output ---------------------------------------------------------
    def say(self, text: str = "", style: str = "") -> None:
        if self.color and style:
            codes = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
            text = f"\x1b[{codes[style]}m{text}\x1b[0m"
        self.write(text + "\n")

    # -- commands -------------------------------------------------------
    def resolve(self, word: str) -> Command | None:
        """An exact name, or a unique prefix of one (/mem -> /memory)."""
        if word in self.commands:
            return self.commands[word]
        matches = [c for name, c in self.commands.items() if name.startswith(word)]
        return matches[0] if len(matches) == 1 else None

    def handle(self, line: str, cancel: threading.Event | None = None) -> None:
        """Act on one line of input: a /command or a message to kept."""
        stripped = line.strip()
        if stripped.startswith("/"):
            word, _, rest = stripped[1:].partition(" ")
            command = self.resolve(word.lower())
            if command is None:
                self.say(f"unknown command /{word}; /help lists them", "yellow")
                return
            if not command.in_team and not scope.of(self.session.chat).private_memory:
                self.say(f"/{command.name} shows private memory; it is not available in the team chat "
                         f"{self.session.chat.name!r}", "yellow")
                return
            command.run(self, rest.strip())
            return
        self.turn(line, cancel)

    def turn(self, text: str, cancel: threading.Event | None = None) -> None:
        streamed = []
        partial = [False]  # text of the current attempt is on the screen

        def on_text(delta: str) -> None:
            if cancel is not None and cancel.is_set():
                return
            streamed.append(delta)
            partial[0] = partial[0] or bool(delta)
            self.write(delta)

        def on_tool(call: ExecutedCall) -> None:
            partial[0] = False
            mark = "✗" if call.is_error else "✓"
            self.say(f"  {mark} {call.name}({_short(call.arguments, 120)}) → {_short(call.result)}", "red" if call.is_error else "dim")

        def on_retry(exc, delay: float) -> None:
            if partial[0]:  # a stream cut mid-reply: the retried reply starts over below it
                partial[0] = False
                self.write("\n")
                self.say(f"  (reply interrupted: {exc.kind}; retrying from the start in {delay:.1f}s)", "dim")
                return
            self.say(f"  ({exc.kind}; retrying in {delay:.1f}s)", "dim")

        try:
            result = run_turn(self.session, text, on_text=on_text, on_tool=on_tool, on_retry=on_retry, cancel=cancel)
        except InputError as exc:
            self.say(str(exc), "yellow")
            return
        except Cancelled:
            return
        if result.error:
            self.say(("\n" if streamed else "") + result.error, "red")
        elif streamed:
            self.write("\n")
        elif result.reply:
            self.say(result.reply)
        if result.screened:
            from agent.screen import describe

            self.say(describe(result.screened), "dim")
        from agent.background import after_turn

        if self.write_pass is None or not self.write_pass.is_alive():
            self.write_pass = after_turn(self.session, background=True)

    def finish(self, timeout: float = 120.0) -> None:
        """Let a running memory pass commit before leaving; it is safe to cut
        (the cursor only moves when it commits), so the wait is bounded."""
        if self.write_pass is not None and self.write_pass.is_alive():
            self.say("(saving memory…)", "dim")
            self.write_pass.join(timeout)


# -- /commands ------------------------------------------------------------

def _help(repl: Repl, arg: str) -> None:
    for c in COMMANDS:
        repl.say(f"/{c.name:<10} {c.help}")
    repl.say("Enter sends, Alt-Enter adds a line, Ctrl-C cancels a reply, Ctrl-D quits.", "dim")


def _quit(repl: Repl, arg: str) -> None:
    raise Quit()


def _memory(repl: Repl, arg: str) -> None:
    from memory import summary

    repl.say(summary.current(repl.session.db) or "(MEMORY is empty: it is written after a few turns)")


def _soul(repl: Repl, arg: str) -> None:
    from memory import soul

    repl.say(soul.render(repl.session.db) or "(nothing asked yet about how to treat you)")


def _facts(repl: Repl, arg: str) -> None:
    from memory import facts

    rows = facts.by_status(repl.session.db, facts.ACTIVE)
    for f in rows[-50:]:
        repl.say(f"#{f.id} {f.text}")
    if not rows:
        repl.say("(no facts yet)")


def _promises(repl: Repl, arg: str) -> None:
    from memory import promises

    today = repl.session.now().date()
    lines = [promises.describe(p, today) for p in promises.list_promises(repl.session.db)]
    for line in lines:
        repl.say(line)
    if not lines:
        repl.say("(no open promises)")


def _calendar(repl: Repl, arg: str) -> None:
    from tools import store

    rows = store.events(repl.session.db, start=repl.session.now(), scope=scope.of(repl.session.chat))
    for e in rows:
        repl.say(f"#{e.id} {e.start.astimezone(repl.session.tz):%a %Y-%m-%d %H:%M} {e.title}"
                 + (f" with {', '.join(e.attendees)}" if e.attendees else ""))
    if not rows:
        repl.say("(no upcoming events)")


def _outbox(repl: Repl, arg: str) -> None:
    from tools import store

    rows = store.outbox(repl.session.db, scope=scope.of(repl.session.chat))
    for m in rows[-20:]:
        repl.say(f"#{m.id} to {m.recipient}: {_short(m.body, 120)}")
    if not rows:
        repl.say("(nothing sent)")


def _clear(repl: Repl, arg: str) -> None:
    from agent import context

    context.clear(repl.session.db, repl.session.chat)
    repl.say("(fresh context: earlier messages of this chat are no longer shown to the model; memory is kept)", "dim")


def _model(repl: Repl, arg: str) -> None:
    from agent.models import registry
    from agent.models.base import ModelError

    if arg:
        try:
            repl.session.model = registry.create(arg)
        except (ModelError, Exception) as exc:  # keep the old model on any failure
            repl.say(f"cannot switch to {arg}: {exc}", "red")
            return
    repl.say(f"{repl.session.model.provider}:{repl.session.model.name}")


COMMANDS = [
    Command("help", "list commands", _help, in_team=True),
    Command("memory", "show the MEMORY summary", _memory),
    Command("soul", "show how you asked to be treated", _soul),
    Command("facts", "show the latest remembered facts", _facts),
    Command("promises", "show open promises", _promises),
    Command("calendar", "show upcoming events", _calendar, in_team=True),
    Command("outbox", "show sent messages", _outbox, in_team=True),
    Command("clear", "start a fresh context in this chat (memory is kept)", _clear, in_team=True),
    Command("model", "show the model, or /model provider:name to switch", _model, in_team=True),
    Command("quit", "leave (Ctrl-D works too)", _quit, in_team=True),
]


# -- the loop ---------------------------------------------------------------

def _plain_terminal() -> bool:
    return not sys.stdin.isatty() or os.environ.get("TERM") in ("dumb", "unknown", "")


def run_repl(model_spec: str | None = None, chat_name: str = "me", team: bool = False, *, session=None, input=None, output=None) -> None:
    """Run the chat until /quit or end of input. ``input``/``output`` are for tests."""
    from agent.session import open_session

    plain = input is None and _plain_terminal()
    color = "NO_COLOR" not in os.environ and not plain and output is None
    consent: list[Callable[[str], bool]] = []
    session = session or open_session(model_spec, chat_name, team, approve=lambda prompt: consent[0](prompt))
    repl = Repl(session, color=color)
    if session.model.provider == "local":
        repl.say("Using the embedded model (no API key set). Set ANTHROPIC_API_KEY or OPENAI_API_KEY for a stronger one.", "dim")
    repl.say(f"kept · {session.model.provider}:{session.model.name} · chat {session.chat.name!r} · /help for commands", "dim")

    if plain:
        read = _plain_reader()
    else:
        read = _prompt_reader(repl, input, output)
    consent.append(lambda prompt: _confirm(read, repl, prompt))

    while True:
        try:
            line = read("you> ")
        except EOFError:
            break
        except KeyboardInterrupt:
            continue
        if not line.strip():
            continue
        try:
            _run_cancellable(repl, line)
        except Quit:
            break
    repl.finish()


def _run_cancellable(repl: Repl, line: str) -> None:
    """Run one line in a worker thread so Ctrl-C can cancel it and keep the session."""
    cancel = threading.Event()
    failure: list[BaseException] = []

    def work() -> None:
        try:
            repl.handle(line, cancel)
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        cancel.set()
        repl.say("\n(cancelled; your message is saved)", "yellow")
        # The worker may still be inside a model call: give the session a
        # connection of its own so the next turn never shares one with it.
        from agent.session import open_store

        repl.session.db = open_store()
        return
    if failure:
        raise failure[0]


def _confirm(read, repl: Repl, prompt: str) -> bool:
    try:
        answer = read(f"{prompt} [y/N] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _plain_reader():
    def read(prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    return read


def _prompt_reader(repl: Repl, input=None, output=None):
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings

    from agent import config

    class SlashCompleter(Completer):
        def get_completions(self, document, complete_event):
            text = document.text_before_cursor
            if text.startswith("/") and " " not in text:
                for name, command in repl.commands.items():
                    if name.startswith(text[1:]):
                        yield Completion("/" + name, start_position=-len(text), display_meta=command.help)

    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _(event):
        event.current_buffer.insert_text("\n")

    if input is None:
        path = config.history_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        # Everything typed lands here, pasted secrets included: owner-only.
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)
        history = FileHistory(str(path))
    else:
        history = InMemoryHistory()
    prompt_session = PromptSession(
        history=history, completer=SlashCompleter(), key_bindings=bindings,
        multiline=False, input=input, output=output, complete_while_typing=True,
    )

    def read(prompt: str) -> str:
        return prompt_session.prompt(prompt)

    read.prompt_session = prompt_session  # for tests and completion checks
    return read
