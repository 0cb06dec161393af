"""A newcomer's first session with the embedded model, graded in code.

Each scripted session (evals/data/first_sessions.json) runs in a fresh kept
home through the real commands: chat lines are piped one at a time into
`kept chat` (the next line is sent when the "you> " prompt is back), `kept
ask --yes` runs one turn, and a forced `kept memory rewrite` is the write
pass. Afterwards the store is read and graded:

- parroting, as issue 18 defines it: a shown reply of the model whose word
  trigrams are mostly its message's or an earlier reply's
  (agent/reply_check.py's measure). The stricter count that also takes the
  person's earlier messages as sources (a right answer quoting what they
  said earlier counts there) is shown beside it as ``parrots_strict``.
  Honest lines after failed generations and replies kept wrote itself (a
  statement acknowledged, "I don't know" from code) are counted apart, not
  as replies;
- replies off the question: a shown reply to a question asking for a kind
  of value (who, when, how many…) that shares no word with it and holds no
  such value ("I am Vuvu - everyone does." to "How many learners…?"),
  agent/reply_check.py's ``off_question``;
- confirmations without the action: a reply saying kept booked/sent/…
  with no successful call of that tool in its turn;
- actions without a request: an acting call in a step the script marks as
  asking for none (the script's label, not kept's own reading);
- the requested actions: the right tool, and the right values in its result;
- never-said questions answered with "I don't know" (or the Chinese);
- after the pass: SOUL holding the nickname and the format wish; facts
  right, stale (an old value still active: a fact with the old value and
  not the new one) and invented (an active fact whose words are mostly not
  the person's);
- seconds per reply and for the pass.

Process failures (a command that crashed or timed out) are counted apart.
"""

from __future__ import annotations

import json
import os
import re
import select
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "first_sessions.json"
PREFIX_DIR_ENV = "KEPT_PREFIX_DIR"  # agent/models/prefix_cache.py reads it: one folder of saved prefixes for a run
REPLY_TIMEOUT = 600.0
_DONT_KNOW = re.compile(
    r"\b(don't|do not|doesn't|does not|didn't|did not|can't|cannot|couldn't|could not)\s+(know|have|find|see|recall|remember)"
    r"|\bnot sure\b|\bno (record|information|idea)\b|\bnot (mentioned|told|stored|in (my|the) memory)\b|\bunknown\b"
    r"|不知道|不清楚|没有.*(记录|信息)|未(提到|提及)|无法(确定|知道)",
    re.I,
)


@dataclass
class StepResult:
    step: dict
    seconds: float = 0.0
    reply: str = ""
    failed_generation: str = ""  # the reply check's reason, when the shown reply is its honest line
    from_code: str = ""  # why kept wrote the reply itself (a statement acknowledged, "I don't know"), not the model
    calls: list[dict] = field(default_factory=list)  # {"name", "arguments", "result", "is_error"}
    parrot: float = 0.0
    claimed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    infra: str = ""


@dataclass
class SessionResult:
    id: str
    steps: list[StepResult] = field(default_factory=list)
    soul: str = ""
    memory: str = ""
    facts: list[str] = field(default_factory=list)
    pass_seconds: float = 0.0
    pass_output: str = ""
    grades: dict = field(default_factory=dict)
    # The day the session began in the zone kept itself reads (KEPT_TZ, TZ, /etc/localtime):
    # "tomorrow" is graded from it, so a run near midnight, or with KEPT_TZ set apart from
    # the host's zone, grades against the day kept resolved dates from.
    today: date | None = None


# ---------------------------------------------------------------- running


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env.update({"KEPT_HOME": str(home), "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _kept() -> list[str]:
    return [sys.executable, "-m", "agent.cli"]


def _home(root: Path) -> Path:
    """A fresh kept home whose models folder links the installed model file."""
    from agent.models import model_file

    home = root / "home"
    (home / "models").mkdir(parents=True)
    found = model_file.locate()
    if found is None:
        raise RuntimeError("the embedded model is not installed: run `kept model install`")
    (home / "models" / model_file.FILE_NAME).symlink_to(found.path)
    return home


class Chat:
    """One `kept chat` process, fed a line at a time."""

    PROMPT = "you> "

    def __init__(self, home: Path, name: str):
        self.proc = subprocess.Popen(
            _kept() + ["chat", "--chat", name],
            env=_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr  # all opened with PIPE
        self.stdin, self.stdout, self.stderr = self.proc.stdin, self.proc.stdout, self.proc.stderr
        self.out = b""
        self._until_prompt(120.0)

    def _until_prompt(self, timeout: float) -> str:
        """Output up to the next prompt; a consent question is answered yes."""
        deadline = time.monotonic() + timeout
        start = len(self.out)
        while True:
            text = self.out[start:].decode("utf-8", "replace")
            if text.endswith(self.PROMPT):
                return text[: -len(self.PROMPT)]
            if text.rstrip().endswith("[y/N]"):
                self.stdin.write(b"y\n")
                self.stdin.flush()
                start = len(self.out)
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply in time")
            ready, _, _ = select.select([self.stdout], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self.stdout.fileno(), 65536)
                if not chunk:
                    raise EOFError("kept chat ended: " + self.stderr.read().decode("utf-8", "replace")[-300:])
                self.out += chunk

    def send(self, line: str) -> str:
        self.stdin.write(line.encode("utf-8") + b"\n")
        self.stdin.flush()
        return self._until_prompt(REPLY_TIMEOUT)

    def close(self) -> None:
        try:
            self.stdin.write(b"/quit\n")
            self.stdin.flush()
            self.proc.wait(180)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _rows(db: Path, after: int) -> list[sqlite3.Row]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM messages WHERE id > ? ORDER BY id", (after,)).fetchall()
    finally:
        conn.close()


def _last_id(db: Path) -> int:
    if not db.exists():
        return 0
    rows = _rows(db, 0)
    return rows[-1]["id"] if rows else 0


def session_day() -> date:
    """Today in the zone kept reads (KEPT_TZ, TZ, /etc/localtime), not the grader's host zone."""
    from agent import config

    return datetime.now(config.timezone(config.load())).date()


def run_session(session: dict, root: Path, *, short: bool = False, say=lambda _line: None) -> SessionResult:
    from agent import config

    home = _home(root)
    os.environ["KEPT_HOME"] = str(home)  # config.db_path below reads the session's home
    db = config.db_path()
    result = SessionResult(session["id"], today=session_day())
    chats: dict[str, Chat] = {}
    try:
        for step in session["steps"]:
            if short and step.get("long"):
                continue
            out = StepResult(step)
            before = _last_id(db)
            started = time.perf_counter()
            try:
                if step.get("pass"):
                    for chat in chats.values():
                        chat.close()
                    chats.clear()
                    proc = subprocess.run(
                        _kept() + ["memory", "rewrite"], env=_env(home), capture_output=True, text=True, timeout=600
                    )
                    result.pass_seconds = time.perf_counter() - started
                    result.pass_output = proc.stdout + proc.stderr
                    if proc.returncode != 0:
                        out.infra = f"memory rewrite failed: {proc.stderr.strip()[-300:]}"
                    say(f"  pass: {result.pass_seconds:.1f}s")
                    result.steps.append(out)
                    continue
                name = step.get("chat", "me")
                screen = ""
                if "ask" in step:
                    proc = subprocess.run(
                        _kept() + ["ask", "--yes", "--chat", name, step["ask"]],
                        env=_env(home),
                        capture_output=True,
                        text=True,
                        timeout=REPLY_TIMEOUT,
                    )
                    if proc.returncode != 0:
                        out.infra = f"kept ask failed: {proc.stderr.strip()[-300:]}"
                    screen = proc.stdout + proc.stderr
                else:
                    if name not in chats:
                        chats[name] = Chat(home, name)
                    screen = chats[name].send(step["say"])
            except (TimeoutError, EOFError, subprocess.TimeoutExpired) as exc:
                out.infra = f"{type(exc).__name__}: {exc}"
                stuck = chats.pop(step.get("chat", "me"), None)
                if stuck is not None:  # its late reply must not be read as the next step's
                    stuck.proc.kill()
                    stuck.proc.wait()
            out.seconds = time.perf_counter() - started
            _read_turn(out, _rows(db, before))
            out.infra = out.infra or _no_reply(out, screen)
            say(f"  {out.seconds:5.1f}s {(step.get('say') or step.get('ask'))[:50]!r} -> {out.reply[:70]!r}")
            result.steps.append(out)
    finally:
        for chat in chats.values():
            chat.close()
    _read_memory(result, db)
    return result


def _no_reply(out: StepResult, screen: str) -> str:
    """Why a turn that stored no reply and made no call failed, from its screen: the turn ended
    in an error (a provider error, a reply that could not be read), which is infrastructure, not
    an answer. Empty when it replied."""
    if out.reply or out.calls:
        return ""
    shown = [line for line in screen.splitlines() if line.strip() and not line.startswith("memory:")]
    return "no reply: " + (shown[-1] if shown else "nothing on the screen")[:300]


def _read_turn(out: StepResult, rows: list[sqlite3.Row]) -> None:
    for r in rows:
        meta = json.loads(r["meta"]) if r["meta"] else {}
        if r["role"] == "tool":
            try:
                value = json.loads(r["text"])
            except ValueError:
                value = r["text"]
            out.calls.append(
                {
                    "name": r["author"],
                    "arguments": meta.get("arguments"),
                    "result": value,
                    "is_error": bool(meta.get("is_error")),
                }
            )
        elif r["role"] == "assistant":
            out.reply = r["text"]
            out.failed_generation = meta.get("failed", "")
            out.from_code = meta.get("from_code", "")


def _read_memory(result: SessionResult, db: Path) -> None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        notes = {
            kind: text
            for kind, text in conn.execute(
                "SELECT kind, text FROM notes WHERE id IN (SELECT max(id) FROM notes GROUP BY kind)"
            )
        }
        result.soul, result.memory = notes.get("soul", ""), notes.get("memory", "")
        result.facts = [t for (t,) in conn.execute("SELECT text FROM facts WHERE status = 'active' ORDER BY id")]
    except sqlite3.Error:
        pass
    finally:
        conn.close()


# ---------------------------------------------------------------- grading


def _field(result: dict, names: str):
    return " ".join(str(result.get(n, "")) for n in names.split("|"))


def _check_values(call: dict, expect: dict, today: date) -> list[str]:
    problems = []
    merged = {**(call.get("arguments") or {}), **(call["result"] if isinstance(call["result"], dict) else {})}
    for names, check in expect.items():
        if "day" in check:
            key = "due" if "due" in merged and "start" not in merged else names
            value = str(merged.get(key) or "")
            # A due day may come without a time of day: then the date alone is checked.
            want = (today + timedelta(days=check["day"])).isoformat()
            if "time" in check:
                want += f"T{check['time']}"
            if not value.startswith(want):
                problems.append(f"{names} is {value!r}, expected {want}")
        for part in check.get("has", []):
            if part.lower() not in _field(merged, names).lower():
                problems.append(f"{names} lacks {part!r}")
    return problems


def grade(result: SessionResult, session: dict, today: date, *, short: bool = False) -> dict:
    from agent.reply_check import acts, claimed_actions, containment, off_question, repeats

    person: list[str] = []
    earlier: list[str] = []  # the person's earlier messages and kept's earlier replies
    replies: list[str] = []  # kept's earlier replies only
    g: dict[str, Any] = {
        "turns": 0,
        "parrots": 0,  # the issue's: the message itself, or an earlier reply
        "parrots_strict": 0,  # ... or any earlier message of the person's as well
        "off_question": 0,
        "confirmations_without_action": 0,
        "actions_without_request": 0,
        "actions_asked": 0,
        "actions_right_tool": 0,
        "actions_right_values": 0,
        "never_said": 0,
        "never_said_dont_know": 0,
        "answers_with_expected_words": 0,
        "answers_checked": 0,
        "failed_generations": 0,
        "replies_from_code": 0,
        "infrastructure_failures": 0,
        "reply_seconds": [],
    }
    for s in result.steps:
        step = s.step
        if step.get("pass"):
            g["infrastructure_failures"] += bool(s.infra)
            continue
        text = str(step.get("say") or step.get("ask") or "")
        if s.infra:
            # Shown apart, and counted as a failure of what the step asks: an error is no answer.
            g["infrastructure_failures"] += 1
            s.problems.append(s.infra)
            g["actions_asked"] += bool(step.get("act"))
            g["never_said"] += bool(step.get("never_said"))
            g["answers_checked"] += bool(step.get("answer_has"))
            continue
        g["turns"] += 1
        g["reply_seconds"].append(round(s.seconds, 1))
        person.append(text)
        if s.failed_generation:
            g["failed_generations"] += 1
            s.problems.append(f"honest fallback shown ({s.failed_generation})")
        elif s.from_code:
            g["replies_from_code"] += 1  # kept's own line, no generation to parrot
        else:
            s.parrot = max([containment(s.reply, text)] + [containment(s.reply, e) for e in replies])
            # A look-up first is no licence to copy; a reply after an acting call is kept's confirmation.
            confirmed = any(acts(c["name"]) for c in s.calls)
            why = repeats(s.reply, text, replies) if not confirmed else ""
            strict = repeats(s.reply, text, earlier) if not confirmed else ""
            if why:
                g["parrots"] += 1
                s.problems.append(f"parrots: {why}")
            if strict:
                g["parrots_strict"] += 1
                if not why:
                    # Its sources hold the person's messages too, which repeats() names as earlier replies.
                    said = strict.replace("an earlier reply", "an earlier message of the chat")
                    s.problems.append(f"parrots by the strict count only: {said}")
            off = off_question(s.reply, text, today) if not s.calls else ""
            if off:
                g["off_question"] += 1  # too short or beside the point to answer it ("I am Vuvu…")
                s.problems.append(f"off the question: {off}")
            earlier.append(s.reply)
            replies.append(s.reply)
        earlier.append(text)
        done = {c["name"] for c in s.calls if not c["is_error"]}
        s.claimed = sorted(claimed_actions(s.reply))
        if s.claimed and not done & set(s.claimed):
            g["confirmations_without_action"] += 1
            s.problems.append(f"claims {s.claimed} without the action")
        acting = [c for c in s.calls if acts(c["name"]) and not c["is_error"]]
        if step.get("act") is None and acting:
            g["actions_without_request"] += 1
            s.problems.append(f"acted without a request: {[c['name'] for c in acting]}")
        if step.get("act"):
            g["actions_asked"] += 1
            right = [c for c in acting if c["name"] == step["act"]]
            if right:
                g["actions_right_tool"] += 1
                problems = _check_values(right[-1], step.get("expect", {}), today)
                g["actions_right_values"] += not problems
                s.problems += problems
            else:
                s.problems.append(f"no successful {step['act']} call")
        if step.get("never_said"):
            g["never_said"] += 1
            if _DONT_KNOW.search(s.reply):
                g["never_said_dont_know"] += 1
            else:
                s.problems.append("a never-said question not answered with 'I don't know'")
        if step.get("answer_has"):
            g["answers_checked"] += 1
            if all(w.lower() in s.reply.lower() for w in step["answer_has"]):
                g["answers_with_expected_words"] += 1
    g.update(grade_memory(result, session, person, short=short))
    g["pass_seconds"] = round(result.pass_seconds, 1)
    result.grades = g
    return g


def grade_memory(result: SessionResult, session: dict, person: list[str], *, short: bool = False) -> dict:
    """After the pass: SOUL holding the session's words, and facts right / stale / invented
    (``person``: the person's messages, which an invented fact's words are mostly not from)."""
    g: dict[str, Any] = {}
    soul = result.soul.lower()
    g["soul_has"] = {w: w.lower() in soul for w in session.get("soul_has", [])}
    facts = [f.lower() for f in result.facts]
    checked = [f for f in session.get("facts", []) if not (short and f.get("long"))]
    g["facts_checked"] = len(checked)
    g["facts_right"] = sum(any(all(w.lower() in t for w in f["right"]) for t in facts) for f in checked)
    # Stale: an active fact that holds the old value and not the new one. A fact that names the old
    # value beside the new ("X fell through, so it is now at Y", 不在X了) is the change itself.
    g["facts_stale"] = sum(
        any(
            any(w.lower() in t for w in f.get("stale", [])) and not all(w.lower() in t for w in f["right"])
            for t in facts
        )
        for f in checked
    )
    g["facts_invented"] = sum(1 for t in result.facts if _invented(t, person))
    g["facts_active"] = len(result.facts)
    return g


def _invented(fact: str, person: list[str]) -> bool:
    """Most of the fact's words are not the person's (dates kept adds are not counted)."""
    from memory.text import words

    body = re.sub(r"^\d{4}-\d{2}-\d{2}:\s*|\(\d{4}-\d{2}-\d{2}[^)]*\)", " ", fact)
    mine = set(words.tokens(body))
    said = set(words.tokens(" ".join(person)))
    return bool(mine) and len(mine & said) / len(mine) < 0.5


# ---------------------------------------------------------------- the whole eval


def run(
    ids: list[str] | None = None, *, short: bool = False, data: Path = DATA, say=lambda _line: None
) -> list[tuple[SessionResult, dict]]:
    loaded = json.loads(data.read_text(encoding="utf-8"))
    sessions = [s for s in loaded["sessions"] if (not ids or s["id"] in ids) and (not short or s.get("short"))]
    out = []
    saved = {k: os.environ.get(k) for k in ("KEPT_HOME", PREFIX_DIR_ENV)}
    try:
        with tempfile.TemporaryDirectory(prefix="kept-session-prefixes-") as prefixes:
            # As `make chat` does before a newcomer's first chat: the prompt prefixes are saved
            # once (`kept model warm`), and every session's processes start from them.
            os.environ[PREFIX_DIR_ENV] = prefixes
            started = time.perf_counter()
            home = _home(Path(prefixes) / "warm")
            proc = subprocess.run(_kept() + ["model", "warm"], env=_env(home), capture_output=True, text=True)
            say(
                f"prefixes: {(proc.stdout + proc.stderr).strip().splitlines()[-1:]} ({time.perf_counter() - started:.1f}s)"
            )
            for session in sessions:
                say(f"session {session['id']}:")
                with tempfile.TemporaryDirectory(prefix=f"kept-session-{session['id']}-") as tmp:
                    result = run_session(session, Path(tmp), short=short, say=say)
                out.append((result, grade(result, session, result.today or session_day(), short=short)))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return out


def render(results: list[tuple[SessionResult, dict]]) -> str:
    lines = []
    total: dict = {}
    for r, g in results:
        secs = g["reply_seconds"]
        lines.append(
            f"{r.id}: {g['turns']} turns; parrots {g['parrots']} (counting copies of the person's earlier "
            f"messages too: {g['parrots_strict']}), off the question {g['off_question']}, "
            f"confirmations without action "
            f"{g['confirmations_without_action']}, actions without request {g['actions_without_request']}; "
            f"actions {g['actions_right_values']}/{g['actions_asked']} right values "
            f"({g['actions_right_tool']} right tool); never-said answered 'I don't know' "
            f"{g['never_said_dont_know']}/{g['never_said']}; expected words in answers "
            f"{g['answers_with_expected_words']}/{g['answers_checked']}; honest fallbacks {g['failed_generations']}; replies written by kept {g['replies_from_code']}; "
            f"infrastructure failures {g['infrastructure_failures']}"
        )
        lines.append(
            f"  SOUL {g['soul_has']}; facts right {g['facts_right']}/{g['facts_checked']}, stale {g['facts_stale']}, "
            f"invented {g['facts_invented']} of {g['facts_active']} active; pass {g['pass_seconds']}s; seconds per reply "
            f"median {statistics.median(secs) if secs else 0:.1f}, max {max(secs) if secs else 0:.1f}"
        )
        for fact in r.facts:
            lines.append(f"    fact: {fact[:110]}")
        for s in r.steps:
            if s.problems:
                lines.append(
                    f"    - {(s.step.get('say') or s.step.get('ask') or 'pass')[:60]!r}: {'; '.join(s.problems)}"
                )
        for k, v in g.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                total[k] = total.get(k, 0) + v
    if len(results) > 1:
        lines.append("all sessions: " + ", ".join(f"{k} {v:g}" for k, v in total.items() if k != "pass_seconds"))
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m evals.first_session", description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="Session ids (default: all).")
    parser.add_argument("--short", action="store_true", help="Only the short session, without its long steps.")
    args = parser.parse_args()
    res = run(args.ids or None, short=args.short, say=lambda line: print(line, file=sys.stderr, flush=True))
    print(render(res))
