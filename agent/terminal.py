"""The one place that writes to the person's terminal, for `kept ask` and `kept chat`.

Like aider's io.py: the streamed reply, the tool lines, the retry notices,
the consent question and the memory lines look the same wherever they come
from. ``kept ask`` writes the reply to standard output and its side notes
to standard error (so a pipe gets only the reply); the chat writes both to
the screen. The list lines (events, sent messages, promises, facts) come
from the same formatters the list commands use.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from agent.confirm import plural

_STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def _stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def to_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def short(value: Any, limit: int = 160) -> str:
    """One line of ``value`` (JSON for anything but text), cut with an ellipsis."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Terminal:
    """Output for one conversation. ``write`` takes the reply and its lines;
    ``note`` (default: ``write``) takes what is said beside the reply."""

    def __init__(
        self, write: Callable[[str], None] | None = None, note: Callable[[str], None] | None = None, color: bool = False
    ):
        self.write = write or _stdout
        self.note_write = note or self.write
        self.color = color
        self.partial = False  # text of the current attempt is on the screen
        self.streamed: list[str] = []  # what the current attempt streamed

    # -- plain lines ----------------------------------------------------
    def styled(self, text: str, style: str = "") -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if self.color and style else text

    def say(self, text: str = "", style: str = "") -> None:
        """A line with the reply (standard output)."""
        self.write(self.styled(text, style) + "\n")

    def note(self, text: str, style: str = "dim") -> None:
        """A line beside the reply (standard error for `kept ask`)."""
        self.note_write(self.styled(text, style) + "\n")

    def error(self, text: str) -> None:
        self.say(text, "red")

    # -- one reply ------------------------------------------------------
    def start_reply(self) -> None:
        self.partial = False
        self.streamed = []

    def stream(self, delta: str) -> None:
        self.streamed.append(delta)
        self.partial = self.partial or bool(delta)
        self.write(delta)

    def tool(self, call) -> None:
        """One line per executed tool call: what was done, in a sentence when kept can say it."""
        from agent.confirm import describe

        if self.partial:
            self.write("\n")
        self.partial = False
        self.streamed = []  # text before a tool call is not the final reply
        if call.is_error:
            error = call.result.get("error") if isinstance(call.result, dict) else call.result
            self.note(f"  ✗ {call.name}: {short(error, 200)}", "red")
            return
        self.note(f"  ✓ {describe(call.name, call.arguments, call.result) or short(call.result)}")

    def retry(self, exc, delay: float) -> None:
        self.streamed = []  # the retried attempt streams its reply anew
        if self.partial:  # a stream cut mid-reply: the retried reply starts over below it
            self.partial = False
            self.write("\n")
            self.say(self.styled(f"(reply interrupted: {exc.kind}; retrying from the start in {delay:.1f}s)", "dim"))
            return
        self.note(f"({exc.kind}; retrying in {delay:.1f}s)")

    def end_reply(self, result) -> None:
        """Close the reply: a newline after streamed text, the reply itself when
        nothing streamed (or kept replaced what streamed), or the error."""
        shown = "".join(self.streamed)
        if result.error:
            self.say(("\n" if self.partial else "") + result.error, "red")
        elif shown and result.reply and result.reply.strip() != shown.strip():
            self.write("\n")
            self.say(result.reply)
        elif self.partial:
            self.write("\n")
        elif result.reply:
            self.say(result.reply)
        self.partial = False

    def screened(self, notes) -> None:
        """What the before-call step dropped, changed or held (agent/screen.py says it)."""
        if notes:
            from agent.screen import describe

            self.note(describe(notes))

    # -- consent --------------------------------------------------------
    def confirm(self, read: Callable[[str], str], prompt: str) -> bool:
        """Ask a yes/no question through ``read``; anything but yes (or no answer) is no."""
        if self.partial:
            self.write("\n")
            self.partial = False
        try:
            answer = read(f"{prompt} [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        return answer.strip().lower() in ("y", "yes")


# -- list lines shared by the list commands and the chat's slash commands -----


def event_line(row: dict) -> str:
    """One calendar event (from ``Event.as_dict``), as `kept calendar list` prints it."""
    start, end = datetime.fromisoformat(row["start"]), datetime.fromisoformat(row["end"])
    span = (
        f"{start:%a %Y-%m-%d %H:%M}-{end:%H:%M}"
        if start.date() == end.date()
        else f"{start:%a %Y-%m-%d %H:%M} - {end:%a %Y-%m-%d %H:%M}"
    )
    text = f"#{row['event_id']:<4} {span}  {row['title']}"
    if row.get("attendees"):
        text += f"  with {', '.join(row['attendees'])}"
    if row.get("location"):
        text += f"  @ {row['location']}"
    if row.get("status", "scheduled") != "scheduled":
        text += f"  [{row['status']}]"
    return text


def outbox_line(row: dict) -> str:
    """One sent message (from ``OutboxMessage.as_dict``), as `kept outbox list` prints it."""
    subject = f" [{row['subject']}]" if row.get("subject") else ""
    return f"#{row['message_id']:<4} {row['sent_at'][:16].replace('T', ' ')}  to {row['to']} ({row['channel']}){subject}: {row['body']}"


def promise_line(p, today: date) -> str:
    from memory import promises

    return promises.describe(p, today)


def fact_line(f) -> str:
    """One fact, as `kept memory facts` prints it."""
    from memory import facts

    status = "" if f.status == facts.ACTIVE else f" [{f.status}]"
    link = f" (replaces #{f.replaces})" if f.replaces else ""
    return f"#{f.id}{status} {f.text}{link}"


# -- memory: what reached the prompt, what a pass saved ---------------------------

_KIND_NAMES = {"fact": ("fact", "facts"), "promise": ("promise", "promises"), "series": ("count", "counts")}


def memory_line(items) -> str:
    """One line: what of memory reached the prompt ("memory: 2 facts, 1 promise, SOUL, MEMORY · /why")."""
    if not items:
        return "memory: none used"
    parts = []
    for kind, (one, many) in _KIND_NAMES.items():
        n = sum(1 for i in items if i.kind == kind)
        if n:
            parts.append(f"{n} {one if n == 1 else many}")
    parts += [name for kind, name in (("soul", "SOUL"), ("summary", "MEMORY")) if any(i.kind == kind for i in items)]
    return "memory: " + ", ".join(parts) + " · /why"


def why_lines(items) -> list[str]:
    """Each item with the reason it came in, numbered for /forget."""
    lines = []
    for n, item in enumerate(items, 1):
        label = item.kind if item.id is None or item.kind == "series" else f"{item.kind} #{item.id}"
        score = f", score {item.score:.2f}" if item.score is not None else ""
        text = short(item.text, 100) if item.kind in ("summary", "soul") else item.text
        lines.append(f"{n:>2}. {label}: {text}  — {item.reason}{score}")
    return lines


def _quoted(texts, limit: int = 3, width: int = 60) -> str:
    from memory.recall import fact_body

    shown = "; ".join(f"“{short(fact_body(t), width)}”" for t in texts[:limit])
    return shown + (f"; and {len(texts) - limit} more" if len(texts) > limit else "")


def saved_lines(changes, *, cap: int | None = None, max_active: int | None = None) -> list[str]:
    """What one write pass stored, in one or two lines, then a line each when
    MEMORY was full (lines moved to the fact log) or the active facts hit their bound."""
    if changes is None or changes.empty:
        return []
    facts = []
    if changes.added:
        facts.append(f"+{plural(len(changes.added), 'fact')} ({_quoted(changes.added, 2)})")
    if changes.updated:
        facts.append(f"{len(changes.updated)} updated ({_quoted([new for _, new in changes.updated], 2)})")
    if changes.deleted:
        facts.append(f"{len(changes.deleted)} deleted ({_quoted(changes.deleted, 2)})")
    other = []
    if changes.memory_rewritten:
        other.append("MEMORY rewritten")
    if changes.soul_changed:
        other.append("SOUL changed")
    if changes.promises_opened:
        other.append(
            f"{plural(len(changes.promises_opened), 'promise')} opened ({_quoted(changes.promises_opened, 2, 40)})"
        )
    if changes.promises_closed:
        other.append(f"{len(changes.promises_closed)} closed ({_quoted(changes.promises_closed, 2, 40)})")
    if changes.series_events:
        other.append(f"{plural(changes.series_events, 'repeat')} counted")
    lines = []
    if facts:
        lines.append("saved: " + ", ".join(facts))
    if other:
        lines.append(("saved: " if not lines else "       ") + "; ".join(other))
    if lines:
        lines[-1] += " · /undo reverts it"
    if changes.moved_out:
        full = f"MEMORY is full{f' ({cap} characters)' if cap else ''}: "
        lines.append(
            full + f"{plural(len(changes.moved_out), 'line')} moved to the "
            f"fact log, still searchable: {_quoted(changes.moved_out)}"
        )
    if changes.archived:
        bound = f" ({max_active})" if max_active else ""
        lines.append(
            f"Active facts reached their bound{bound}: the {len(changes.archived)} least used were archived, "
            f"still searchable: {_quoted(changes.archived)}"
        )
    return lines


def undone_line(changes) -> str:
    parts = []
    for count, one, many in (
        (len(changes.added) + len(changes.moved_out), "added fact removed", "added facts removed"),
        (len(changes.updated), "update reverted", "updates reverted"),
        (len(changes.deleted) + len(changes.archived), "fact restored", "facts restored"),
        (len(changes.promises_opened), "opened promise removed", "opened promises removed"),
        (len(changes.promises_closed), "promise reopened", "promises reopened"),
        (changes.series_events, "counted repeat removed", "counted repeats removed"),
    ):
        if count:
            parts.append(f"{count} {one if count == 1 else many}")
    notes = [n for flag, n in ((changes.memory_rewritten, "MEMORY"), (changes.soul_changed, "SOUL")) if flag]
    if notes:
        parts.append(" and ".join(notes) + " back to the version before")
    return (
        f"undone {changes.label}: "
        + (", ".join(parts) or "nothing visible")
        + " (each reversal is in `kept memory log`)"
    )


def forgot_line(what, done) -> str:
    """What one forget reached (never the forgotten text)."""
    head = f"Forgot fact #{what}" if isinstance(what, int) else "Forgot it"
    parts = [
        plural(done.facts, "fact"),
        plural(done.messages, "message"),
    ]
    if done.memory_lines:
        parts.append(plural(done.memory_lines, "MEMORY line"))
    return f"{head}: {', '.join(parts)} blanked; the log keeps only that something was forgotten, and when."


class working:
    """While the model reads and writes, a line on the terminal says so and
    for how long ("kept is thinking… 4s"), cleared when the reply comes.
    Only on a terminal: piped output stays clean."""

    def __init__(self, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled and getattr(self.stream, "isatty", lambda: False)()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(0.5):
            self.stream.write(f"\r\x1b[2mkept is thinking… {time.monotonic() - started:.0f}s\x1b[0m")
            self.stream.flush()

    def __enter__(self):
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
