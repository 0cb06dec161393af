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

from agent.loop import Cancelled, InputError, run_turn
from agent.terminal import (
    Terminal,
    event_line,
    fact_line,
    forgot_line,
    memory_line,
    outbox_line,
    promise_line,
    saved_lines,
    undone_line,
    why_lines,
)
from memory import scope


@dataclass
class Command:
    name: str
    help: str
    run: Callable[[Repl, str], None]
    # Shown in a team chat too. A command that reads the person's private memory
    # leaves this False, so a new command is refused in team chats until it says otherwise.
    in_team: bool = False


class Quit(Exception):
    pass


class Repl:
    def __init__(self, session, *, write: Callable[[str], None] | None = None, color: bool = True):
        self.session = session
        self.term = Terminal(write=write, color=color)
        self.write = self.term.write
        self.commands = {c.name: c for c in COMMANDS}
        self.write_pass: threading.Thread | None = None  # the background memory pass, joined on exit
        self.items: list = []  # what of memory reached the last reply (context.Item), for /why
        self.listing: list[tuple[str, int | None]] = []  # (kind, id) by number in the last /why or /facts
        self.saved: list[int] = []  # journal ids of passes that committed and were not shown yet
        self._saved_lock = threading.Lock()
        self.live = False  # stdout is patched around a real prompt: other threads may print above it

    def say(self, text: str = "", style: str = "") -> None:
        self.term.say(text, style)

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
                self.say(
                    f"/{command.name} shows private memory; it is not available in the team chat "
                    f"{self.session.chat.name!r}",
                    "yellow",
                )
                return
            command.run(self, rest.strip())
            return
        self.turn(line, cancel)

    def turn(self, text: str, cancel: threading.Event | None = None) -> None:
        term = self.term
        term.start_reply()

        def on_text(delta: str) -> None:
            if cancel is None or not cancel.is_set():
                term.stream(delta)

        try:
            result = run_turn(
                self.session, text, on_text=on_text, on_tool=term.tool, on_retry=term.retry, cancel=cancel
            )
        except InputError as exc:
            self.say(str(exc), "yellow")
            return
        except Cancelled:
            return
        term.end_reply(result)
        term.screened(result.screened)
        self.items = result.memory_items
        if scope.of(self.session.chat).private_memory:
            term.note(memory_line(result.memory_items))
        from agent.background import after_turn

        if self.write_pass is None or not self.write_pass.is_alive():
            self.write_pass = after_turn(self.session, background=True, on_done=self._pass_done)

    # -- what the memory pass saved ---------------------------------------
    def _pass_done(self, result) -> None:  # in the pass's thread
        journal_id = result.extra.get("journal_id")
        if not journal_id:
            return
        with self._saved_lock:
            self.saved.append(journal_id)
        if self.live:
            # The prompt is patched: say it now, above the prompt, through a connection of this thread's own.
            from agent.background import db_file
            from agent.session import open_store

            path = db_file(self.session.db)
            if path and path != ":memory:":
                db = open_store(path)
                try:
                    self.show_saved(db)
                finally:
                    db.conn.close()

    def show_saved(self, db=None) -> None:
        """Say what passes stored since it was last said (once each), full memory included."""
        with self._saved_lock:
            pending, self.saved = self.saved, []
        if not pending:
            return
        from agent import config
        from memory import undo

        settings = config.load()
        for journal_id in pending:
            for line in saved_lines(
                undo.changes(db or self.session.db, journal_id),
                cap=settings.summary_cap,
                max_active=settings.max_active_facts,
            ):
                self.say(line, "yellow" if line.startswith(("MEMORY is full", "Active facts")) else "dim")

    def wait_for_pass(self, timeout: float = 120.0) -> None:
        if self.write_pass is not None and self.write_pass.is_alive():
            self.say("(waiting for the memory pass to finish…)", "dim")
            self.write_pass.join(timeout)
        self.show_saved()

    def finish(self, timeout: float = 120.0) -> None:
        """Let a running memory pass commit before leaving; it is safe to cut
        (the cursor only moves when it commits), so the wait is bounded."""
        if self.write_pass is not None and self.write_pass.is_alive():
            self.say("(saving memory…)", "dim")
            self.write_pass.join(timeout)
        self.show_saved()


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

    rows = facts.by_status(repl.session.db, facts.ACTIVE)[-50:]
    repl.listing = [("fact", f.id) for f in rows]
    for n, f in enumerate(rows, 1):
        repl.say(f"{n:>2}. {fact_line(f)}")
    if rows:
        repl.say("/forget N forgets fact N of this list", "dim")
    else:
        repl.say("No active facts.")


def _promises(repl: Repl, arg: str) -> None:
    from memory import promises

    today = repl.session.now().date()
    found = promises.list_promises(repl.session.db)
    found.sort(key=lambda p: (-p.overdue_days(today), p.due_on or "9999", p.id))
    for p in found:
        repl.say(promise_line(p, today), "red" if p.overdue_days(today) else "")
    if not found:
        repl.say("No open promises.")


def _calendar(repl: Repl, arg: str) -> None:
    from tools import lists, when

    now = repl.session.now()
    rows = lists.events(repl.session.db, when.day_start(now.date(), repl.session.tz), scope=scope.of(repl.session.chat))
    for e in rows:
        repl.say(event_line(e.as_dict(repl.session.tz)))
    if not rows:
        repl.say("No events.")


def _outbox(repl: Repl, arg: str) -> None:
    from tools import lists

    rows = lists.outbox(repl.session.db, limit=20, scope=scope.of(repl.session.chat))
    for m in rows:
        repl.say(outbox_line(m.as_dict(repl.session.tz)))
    if not rows:
        repl.say("No messages sent.")


def _why(repl: Repl, arg: str) -> None:
    if not repl.items:
        repl.say("Nothing from memory reached the last reply (or there was none yet).")
        return
    repl.listing = [(i.kind, i.id) for i in repl.items]
    for line in why_lines(repl.items):
        repl.say(line)
    repl.say("/forget N forgets fact N of this list", "dim")


def _undo(repl: Repl, arg: str) -> None:
    from memory import undo

    repl.wait_for_pass()
    try:
        changes = undo.undo(repl.session.db)
    except undo.NothingToUndo as exc:
        repl.say(str(exc), "yellow")
        return
    repl.say(undone_line(changes))


def _remember(repl: Repl, arg: str) -> None:
    from memory import corrections

    if repl.session.incognito:
        repl.say("incognito: nothing is stored in this chat; /remember works in a normal chat", "yellow")
        return
    try:
        fact = corrections.remember(repl.session.db, arg, repl.session.now().date().isoformat())
    except corrections.Refused as exc:
        repl.say(str(exc), "yellow")
        return
    repl.say(f"remembered {fact_line(fact)}")


def _forget(repl: Repl, arg: str) -> None:
    from memory import forget

    word = arg.strip()
    if word.startswith("#") and word[1:].isdigit():
        fact_id = int(word[1:])
    elif word.isdigit():
        n = int(word)
        if not repl.listing:
            repl.say("/forget N takes a number from /why or /facts: run one of them first (or /forget #ID)", "yellow")
            return
        if not 1 <= n <= len(repl.listing):
            repl.say(f"no item {n}: the last list had {len(repl.listing)}", "yellow")
            return
        kind, listed = repl.listing[n - 1]
        if kind != "fact" or listed is None:
            repl.say(
                f"item {n} is the {kind}, not a fact; /forget forgets facts "
                "(`kept memory forget --matching TEXT` forgets any text)",
                "yellow",
            )
            return
        fact_id = listed
    else:
        repl.say("usage: /forget N (a number from /why or /facts) or /forget #ID", "yellow")
        return
    repl.wait_for_pass()  # a running pass may have read what is being forgotten
    try:
        target = forget.for_fact(repl.session.db, fact_id)
        done = forget.forget(repl.session.db, target, _memory_llm(repl))
    except (forget.NotFound, forget.Busy) as exc:
        repl.say(str(exc), "yellow")
        return
    # The last reply's items still hold the text: /why must not show it again.
    repl.items, repl.listing = [], []
    repl.say(forgot_line(fact_id, done))


def _memory_llm(repl: Repl):
    """The memory model as the forget's rewriter, or None (then lines are removed by rule)."""
    from agent.background import memory_model
    from agent.memory_llm import ModelMemoryLLM

    try:
        model = memory_model(repl.session)
    except Exception:  # no memory model to reach: the rule removes the lines
        return None
    return ModelMemoryLLM(model, repl.session.db) if model is not None else None


def _clear(repl: Repl, arg: str) -> None:
    from agent import context

    if repl.session.incognito:
        repl.session.unsaved.clear()  # nothing of an incognito chat is stored, the mark neither
    else:
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
    Command("facts", "show the latest remembered facts, numbered", _facts),
    Command("why", "show what of memory reached the last reply, and why", _why),
    Command("remember", "remember a fact: /remember Priya leads the Atlas launch", _remember),
    Command("forget", "forget a fact: /forget N (from /why or /facts) or /forget #ID", _forget),
    Command("undo", "undo what the last memory pass saved", _undo),
    Command("promises", "show open promises", _promises),
    Command("calendar", "show upcoming events", _calendar, in_team=True),
    Command("outbox", "show sent messages", _outbox, in_team=True),
    Command("clear", "start a fresh context in this chat (memory is kept)", _clear, in_team=True),
    Command("model", "show the model, or /model provider:name to switch", _model, in_team=True),
    Command("quit", "leave (Ctrl-D works too)", _quit, in_team=True),
]


# -- the loop ---------------------------------------------------------------

INCOGNITO_NOTICE = (
    "incognito: kept reads your memory but stores nothing from this chat "
    "(no messages, no memory pass, no model-call log, no input history)"
)


def _plain_terminal() -> bool:
    return not sys.stdin.isatty() or os.environ.get("TERM") in ("dumb", "unknown", "")


def run_repl(
    model_spec: str | None = None,
    chat_name: str = "me",
    team: bool = False,
    *,
    incognito: bool = False,
    session=None,
    input=None,
    output=None,
) -> None:
    """Run the chat until /quit or end of input. ``input``/``output`` are for tests."""
    from agent import judging
    from agent.session import open_session

    plain = input is None and _plain_terminal()
    color = "NO_COLOR" not in os.environ and not plain and output is None
    consent: list[Callable[[str], bool]] = []
    if session is None:
        session = open_session(
            model_spec, chat_name, team, approve=lambda prompt: consent[0](prompt), incognito=incognito
        )
        judging.attach(session)
    repl = Repl(session, color=color)
    if session.model.provider == "local":
        repl.say(
            "Using the embedded model (no API key set). Set ANTHROPIC_API_KEY or OPENAI_API_KEY for a stronger one.",
            "dim",
        )
    repl.say(
        f"kept · {session.model.provider}:{session.model.name} · chat {session.chat.name!r} · /help for commands", "dim"
    )
    if session.incognito:
        repl.say(INCOGNITO_NOTICE, "yellow")

    if plain:
        read = _plain_reader()
    else:
        read = _prompt_reader(repl, input, output)
    consent.append(lambda prompt: repl.term.confirm(read, prompt))
    repl.live = not plain and input is None
    if repl.live:
        from prompt_toolkit.patch_stdout import patch_stdout

        with patch_stdout(raw=True):
            _loop(repl, read)
    else:
        _loop(repl, read)
    repl.finish()


def _loop(repl: Repl, read) -> None:
    while True:
        repl.show_saved()
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
    from prompt_toolkit.history import FileHistory, History, InMemoryHistory
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

    history: History
    if input is None and not repl.session.incognito:
        path = config.history_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        # Everything typed lands here, pasted secrets included: owner-only.
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)
        history = FileHistory(str(path))
    else:
        history = InMemoryHistory()
    prompt_session: PromptSession[str] = PromptSession(
        history=history,
        completer=SlashCompleter(),
        key_bindings=bindings,
        multiline=False,
        input=input,
        output=output,
        complete_while_typing=True,
    )

    class Read:
        def __init__(self) -> None:
            self.prompt_session = prompt_session  # for tests and completion checks

        def __call__(self, prompt: str) -> str:
            return prompt_session.prompt(prompt)

    return Read()
