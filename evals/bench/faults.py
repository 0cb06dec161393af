"""Fault trials: kill kept with SIGKILL mid-turn and mid-write-pass, inject
provider faults, run sessions side by side, and count what was lost.

Every trial drives the real `kept` command in a subprocess against a fake
OpenAI server on 127.0.0.1 (``fakemodel.RespondingOpenAI``), and reads the
result back the way a person would (`kept history --json`) plus the file
itself (``PRAGMA integrity_check``, the fact log, the write cursor).

A message counts as *sent* once kept has acknowledged it: the process
finished, or the model server received it (kept stores the person's message
before it calls the model). A sent message must be stored exactly once; a
message whose process was killed before that point may be missing, never
doubled. `kept bench faults` prints the figures; tests/faults/ runs a few
of the same trials in CI.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

from evals.bench import harness
from evals.bench.fakemodel import RespondingOpenAI


# TypedDicts, so mypy checks the keys unpacked into run_kept/spawn_kept's **extra.
class _PassEveryTurn(TypedDict):
    KEPT_WRITE_EVERY_TURNS: str
    KEPT_WRITE_MIN_USER_TURNS: str
    KEPT_WRITE_MIN_HOURS: str


class _NoPasses(TypedDict):
    KEPT_WRITE_EVERY_TURNS: str


# Every turn is followed by a write pass, so kills land in passes too.
PASS_EVERY_TURN: _PassEveryTurn = {
    "KEPT_WRITE_EVERY_TURNS": "1",
    "KEPT_WRITE_MIN_USER_TURNS": "1",
    "KEPT_WRITE_MIN_HOURS": "0",
}
NO_PASSES: _NoPasses = {"KEPT_WRITE_EVERY_TURNS": "1000000"}
CURSOR_KEY = "writer.cursor"


@dataclass
class Tally:
    trials: int = 0
    kill_points: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)  # injected, by class
    outcomes: Counter = field(default_factory=Counter)
    logged_failures: Counter = field(default_factory=Counter)  # model_calls.error_class rows
    messages_sent: int = 0
    messages_lost: int = 0
    messages_duplicated: int = 0
    facts_duplicated: int = 0
    integrity_failures: int = 0
    cursor_errors: int = 0
    passes_not_rerun: int = 0
    passes_overlapping: int = 0
    locked_errors: int = 0
    failures_unlogged: int = 0  # a provider failure model_calls did not record by its class
    failures_hidden: int = 0  # a turn that failed on every attempt but reported success
    unclean_outputs: int = 0
    private_leaks: int = 0  # private strings that reached a team chat's model request or screen
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)

    def merge(self, other: Tally) -> Tally:
        for name, value in asdict(other).items():
            mine = getattr(self, name)
            if isinstance(mine, Counter):
                mine.update(getattr(other, name))
            elif isinstance(mine, list):
                for p in getattr(other, name):
                    self.problem(p)
            else:
                setattr(self, name, mine + value)
        return self

    @property
    def clean(self) -> bool:
        return not (
            self.messages_lost
            or self.messages_duplicated
            or self.facts_duplicated
            or self.integrity_failures
            or self.cursor_errors
            or self.passes_not_rerun
            or self.passes_overlapping
            or self.locked_errors
            or self.unclean_outputs
            or self.failures_unlogged
            or self.failures_hidden
            or self.private_leaks
        )


# --- what the store says -------------------------------------------------------


def duplicate_facts(home: Path) -> int:
    """Facts stored more than once: same normalised text, same day, not superseded or deleted."""
    from memory.facts import normalise

    rows = harness.query(home, "SELECT text, said_on FROM facts WHERE status IN ('active', 'archived')")
    keys = Counter((said_on, normalise(text)) for text, said_on in rows)
    return sum(n - 1 for n in keys.values() if n > 1)


def cursor(home: Path) -> int:
    rows = harness.query(home, "SELECT value FROM state WHERE key = ?", (CURSOR_KEY,))
    return int(rows[0][0]) if rows and rows[0][0] else 0


def last_private_id(home: Path) -> int:
    rows = harness.query(
        home,
        "SELECT coalesce(max(m.id), 0) FROM messages m JOIN chats c ON c.id = m.chat_id "
        "WHERE c.kind = 'private' AND m.role IN ('user', 'assistant')",
    )
    return rows[0][0]


def facts_citing(home: Path, text: str) -> int:
    """Facts the (fake, obedient) memory model made from the message ``text``."""
    from memory.facts import normalise

    want = normalise(f"The person said: {text}")
    rows = harness.query(home, "SELECT text FROM facts")
    return sum(1 for (t,) in rows if normalise(t) == want)


def check_messages(home: Path, sent: dict[str, bool], tally: Tally, where: str, via_cli: bool = True) -> None:
    """``sent``: text -> whether it must be stored (True) or may be missing (False).

    ``via_cli`` reads them with `kept history --json` (a restart that opens and migrates the
    store); otherwise straight from the file, which is quicker.
    """
    counts = harness.user_texts(harness.history(home) if via_cli else harness.stored(home))
    for text, must in sent.items():
        n = counts.get(text, 0)
        if n > 1:
            tally.messages_duplicated += 1
            tally.problem(f"{where}: stored {n} times: {text[:60]!r}")
        elif must and n == 0:
            tally.messages_lost += 1
            tally.problem(f"{where}: lost: {text[:60]!r}")


def check_store(home: Path, tally: Tally, where: str) -> None:
    if not harness.db_file(home).exists():  # killed before kept made a store: nothing to check
        return
    result = harness.integrity(home)
    if result != "ok":
        tally.integrity_failures += 1
        tally.problem(f"{where}: integrity_check: {result[:200]}")
    dupes = duplicate_facts(home)
    if dupes:
        tally.facts_duplicated += dupes
        tally.problem(f"{where}: {dupes} duplicate facts")
    c, last = cursor(home), last_private_id(home)
    if c > last:
        tally.cursor_errors += 1
        tally.problem(f"{where}: cursor {c} is past the last message {last}")


def check_output(proc, tally: Tally, where: str) -> None:
    problem = harness.person_error(proc)
    if "database is locked" in (proc.stderr or "") + (proc.stdout or ""):
        tally.locked_errors += 1
        tally.problem(f"{where}: 'database is locked' reached the person")
    if problem:
        tally.unclean_outputs += 1
        tally.problem(f"{where}: {problem[:300]}")


# --- crash trials --------------------------------------------------------------


def crash_trials(
    trials: int, *, seed: int = 1, workdir: Path | None = None, per_store: int = 5, max_delay: float = 0.6
) -> Tally:
    """``trials`` SIGKILLs of `kept ask` at random points of a turn and of the write pass after it.

    A third of the kills are timed from the start of the process (they land
    in start-up, storing, or later); the rest wait until the fake model has
    the request and land up to 2 s after it (mid-call, storing the reply,
    mid-pass). After each
    kill the store is reopened by `kept history` and checked; after each
    group of ``per_store`` trials one more turn runs to the end, and its write
    pass must pick up whatever an interrupted pass left unread.
    """
    rng = random.Random(seed)
    tally = Tally()
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="kept-crash-", dir=workdir) as tmp,
        RespondingOpenAI(delay=lambda body: rng.uniform(0.05, max_delay)) as server,
    ):
        startup = _startup_seconds(Path(tmp) / "probe", server)
        group = 0
        try:
            while tally.trials < trials:
                home = Path(tmp) / f"store-{group}"
                _crash_group(
                    min(per_store, trials - tally.trials), home, server, rng, startup, tally, f"{seed}.{group}"
                )
                group += 1
        except KeyboardInterrupt:  # Ctrl-C: report the trials that ran
            tally.problem(f"stopped by Ctrl-C after {tally.trials} of {trials} trials")
    tally.seconds = time.perf_counter() - started
    return tally


def _startup_seconds(home: Path, server) -> float:
    began = time.perf_counter()
    harness.run_kept("ask", "warm-up", home=home, base_url=server.base_url, **NO_PASSES)
    return time.perf_counter() - began


def _crash_group(
    n: int, home: Path, server: RespondingOpenAI, rng: random.Random, startup: float, tally: Tally, label: str
) -> None:
    sent: dict[str, bool] = {}
    for i in range(n):
        text = (
            f"trial {label}.{i}: the budget for project {rng.randrange(10_000)} is {rng.randrange(100, 99_999)} euros"
        )
        before = len(server.model_requests)
        server.arrived.clear()
        proc = harness.spawn_kept("ask", text, home=home, base_url=server.base_url, **PASS_EVERY_TURN)
        assert proc.stdout is not None and proc.stderr is not None  # spawn_kept pipes both
        if rng.random() < 1 / 3:
            time.sleep(rng.uniform(0, startup * 1.2))
        else:  # from the model request on: the call, storing the reply, the write pass after it
            server.arrived.wait(timeout=600)
            time.sleep(rng.uniform(0, 2.0))
        killed = harness.sigkill(proc)
        tally.trials += 1
        calls = server.model_requests[before:]
        chat_calls = [r for r in calls if len(r.body.get("tools") or []) != 1]
        pass_calls = [r for r in calls if len(r.body.get("tools") or []) == 1]
        where = f"trial {label}.{i}"
        if not killed:
            tally.kill_points["exited before the kill"] += 1
            out = proc.stdout.read().decode("utf-8", "replace"), proc.stderr.read().decode("utf-8", "replace")
            check_output(_completed(proc, *out), tally, where)
        elif pass_calls:
            tally.kill_points["during the write pass"] += 1
        elif chat_calls:
            tally.kill_points["during the model call"] += 1
        else:
            tally.kill_points["before the model call"] += 1
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        must = not killed or any(text in json.dumps(r.body, ensure_ascii=False) for r in chat_calls)
        sent[text] = must
        tally.messages_sent += must
        check_messages(home, sent, tally, where, via_cli=False)
        check_store(home, tally, where)
        _progress(
            f"{where}: {'killed' if killed else 'finished'}, "
            f"{len(chat_calls)} chat and {len(pass_calls)} memory calls seen; problems so far {len(tally.problems)}"
        )
    # The restart that finishes: its pass must read everything an interrupted pass left.
    settle = f"settle {label}: nothing more today"
    settled = harness.run_kept("ask", settle, home=home, base_url=server.base_url, **PASS_EVERY_TURN)
    check_output(settled, tally, f"settle {label}")
    sent[settle] = True
    tally.messages_sent += 1
    check_messages(home, sent, tally, f"settle {label}")
    check_store(home, tally, f"settle {label}")
    c, last = cursor(home), last_private_id(home)
    unread = [t for t, must in sent.items() if t != settle and must and facts_citing(home, t) == 0]
    if c < last - 1 or unread:  # the settle's own reply may come after its pass read the messages
        tally.passes_not_rerun += 1
        tally.problem(
            f"settle {label}: cursor {c} of {last}; {len(unread)} sent messages never reached the "
            f"fact log; last output: {settled.stderr.strip()[-200:]!r}"
        )


def _progress(line: str) -> None:
    import sys

    print(f"[faults] {line}", file=sys.stderr, flush=True)


def _completed(proc, out: str, err: str):
    import subprocess

    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# --- provider faults -------------------------------------------------------------

# name -> (how to queue it on the server, the error class model_calls must show, or None when the
# fault is not a failed call: plain text and unknown tool names are answered by the loop itself)
FAULTS = {
    "429 with Retry-After": (lambda s: s.fail(429, retry_after=0), "rate_limit"),
    "500": (lambda s: s.fail(500), "server_error"),
    "503": (lambda s: s.fail(503), "server_error"),
    "reset mid-stream": (lambda s: s.disconnect_mid_stream("Booking the meet"), "connection"),
    "truncated stream": (lambda s: s.truncate_stream("Booking the meet"), "malformed_reply"),
    "malformed tool-call JSON": (lambda s: s.reply_malformed_tool_call("send_message"), "malformed_reply"),
    "empty reply": (lambda s: s.reply_empty(), "empty_reply"),
    "plain text instead of a tool call": (lambda s: s.reply_text("I would book that, but here is text."), None),
    "unknown tool name": (lambda s: s.reply_tool_call("teleport", {"to": "Mars"}), None),
}
# Some classes are one class or the other depending on where the transport breaks.
EQUIVALENT = {
    "connection": {"connection", "malformed_reply", "timeout"},
    "malformed_reply": {"malformed_reply", "connection"},
}


def provider_trials(rounds: int = 1, *, workdir: Path | None = None, persistent: bool = True) -> Tally:
    """Each fault class ``rounds`` times, once followed by a good reply (a retried success) and,
    when ``persistent``, once repeated on every attempt (the person must get one clear line)."""
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kept-provider-", dir=workdir) as tmp, RespondingOpenAI() as server:
        home = Path(tmp) / "store"
        sent: dict[str, bool] = {}
        for r in range(rounds):
            for name, (inject, kind) in FAULTS.items():
                for repeat in (1, 4) if persistent and kind is not None else (1,):
                    text = f"fault {r}.{name}.{repeat}: book 30 minutes with Sam on Friday"
                    for _ in range(repeat):
                        inject(server)
                    tally.faults[name] += repeat
                    provider_turn(home, server, text, tally, f"{name} x{repeat}", kind, repeat)
                    _progress(f"provider fault {name} x{repeat}: problems so far {len(tally.problems)}")
                    sent[text] = True
                    tally.messages_sent += 1
                    tally.trials += 1
        check_messages(home, sent, tally, "provider faults")
        check_store(home, tally, "provider faults")
    tally.seconds = time.perf_counter() - started
    return tally


def provider_turn(home: Path, server, text: str, tally: Tally, where: str, kind: str | None, repeat: int):
    """One `kept ask` meeting the queued faults; classifies how the turn ended."""
    before = harness.query(home, "SELECT count(*) FROM model_calls")[0][0] if harness.db_file(home).exists() else 0
    proc = harness.run_kept("ask", text, home=home, base_url=server.base_url, **NO_PASSES)
    check_output(proc, tally, where)
    if proc.returncode == 0:
        tally.outcomes["retried success" if kind else "answered"] += 1
    else:
        tally.outcomes["clear message"] += 1
    rows = harness.query(home, "SELECT error_class FROM model_calls WHERE id > ? ORDER BY id", (before,))
    classes = [r[0] for r in rows if r[0]]
    tally.logged_failures.update(classes)
    if kind is not None:
        allowed = EQUIVALENT.get(kind, {kind})
        logged = sum(1 for c in classes[:repeat] if c in allowed)
        if logged < repeat:
            tally.problem(f"{where}: model_calls shows {classes}, expected {repeat} x {kind}")
            tally.failures_unlogged += 1
        if repeat >= 4 and proc.returncode == 0:
            tally.problem(f"{where}: a turn whose every attempt failed exited 0")
            tally.failures_hidden += 1
    return proc


# --- concurrency -------------------------------------------------------------------


def concurrency_trial(turns: int = 6, *, workdir: Path | None = None, delay: float = 0.05) -> Tally:
    """Two `kept chat` sessions (chats 'me' and 'work') type ``turns`` messages each at once, a
    write pass follows every turn, and `kept memory rewrite` forces passes beside them: nothing
    locked reaches the person, nothing is lost, and no two passes read the same messages."""
    tally = Tally()
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="kept-concurrent-", dir=workdir) as tmp,
        RespondingOpenAI(delay=delay) as server,
    ):
        home = Path(tmp) / "store"
        harness.run_kept("history", home=home)  # create the store before the race
        sent = {
            f"{chat} turn {i}: the {chat} report is due on day {i + 1}": True
            for chat in ("me", "work")
            for i in range(turns)
        }
        lock = threading.Lock()

        def session(chat: str) -> None:
            lines = [t for t in sent if t.startswith(chat)] + ["/quit"]
            proc = harness.run_kept(
                "chat",
                "--chat",
                chat,
                home=home,
                base_url=server.base_url,
                input="\n".join(lines) + "\n",
                **PASS_EVERY_TURN,
            )
            with lock:
                check_output(proc, tally, f"kept chat {chat}")
                if proc.returncode != 0:
                    tally.problem(f"kept chat {chat}: exit {proc.returncode}: {proc.stderr.strip()[-200:]}")

        def forced_passes() -> None:
            for i in range(max(1, turns // 2)):
                proc = harness.run_kept("memory", "rewrite", home=home, base_url=server.base_url)
                with lock:
                    check_output(proc, tally, f"kept memory rewrite {i}")

        threads = [threading.Thread(target=session, args=(chat,)) for chat in ("me", "work")]
        threads.append(threading.Thread(target=forced_passes))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        tally.trials += len(sent)
        tally.messages_sent += len(sent)
        check_messages(home, sent, tally, "concurrency")
        check_store(home, tally, "concurrency")
        # Every message went to exactly one fact-extraction request: no pass read it twice.
        for text in sent:
            reads = sum(
                1
                for r in server.model_requests
                if _tool(r) == "save_facts" and text in json.dumps(r.body, ensure_ascii=False)
            )
            if reads > 1:
                tally.passes_overlapping += 1
                tally.problem(f"concurrency: {reads} passes read {text[:50]!r}")
    tally.seconds = time.perf_counter() - started
    return tally


def _tool(request) -> str | None:
    tools = (request.body or {}).get("tools") or []
    return tools[0]["function"]["name"] if len(tools) == 1 else None


# --- the command ---------------------------------------------------------------------


def privacy_trial(*, workdir: Path | None = None) -> tuple[Tally, dict]:
    """The privacy pass (evals/bench/privacy.py) in a team chat, and the same pass in a private
    chat as the control; a private string reaching a model request or the screen is a problem."""
    import os

    from agent.session import open_store
    from evals.bench import privacy

    tally = Tally()
    started = time.perf_counter()
    saved = os.environ.get("KEPT_HOME")
    with tempfile.TemporaryDirectory(prefix="kept-privacy-", dir=workdir) as tmp:
        os.environ["KEPT_HOME"] = tmp  # the pass reads settings: never the person's own
        try:
            team = privacy.run_pass(open_store(Path(tmp) / "team.db"), team=True)
            control = privacy.run_pass(open_store(Path(tmp) / "control.db"), team=False)
        finally:
            if saved is None:
                os.environ.pop("KEPT_HOME", None)
            else:
                os.environ["KEPT_HOME"] = saved
    tally.trials = len(team.tools) + len(team.commands)
    tally.private_leaks = team.leaked
    for place in privacy.MARKERS:
        n = team.in_requests[place] + team.on_screen[place]
        if n:
            tally.problem(f"privacy: the private {place} reached a team chat {n} times")
    tally.seconds = time.perf_counter() - started
    _progress(privacy.report(team, control))
    return tally, {"team": asdict(team), "control": asdict(control), "summary": privacy.report(team, control)}


def run(trials: int = 50, seed: int = 1, rounds: int = 2, turns: int = 8) -> dict:
    crash = crash_trials(trials, seed=seed)
    provider = provider_trials(rounds)
    concurrent = concurrency_trial(turns)
    private, privacy_detail = privacy_trial()
    total = Tally().merge(crash).merge(provider).merge(concurrent).merge(private)
    return {
        "crash": crash,
        "provider": provider,
        "concurrency": concurrent,
        "privacy": private,
        "privacy_detail": privacy_detail,
        "total": total,
    }


def report(results: dict) -> str:
    crash, provider, concurrent, total = (results[k] for k in ("crash", "provider", "concurrency", "total"))
    lines = [
        f"crash trials (SIGKILL): {crash.trials} in {crash.seconds:.0f} s; kill points: "
        + ", ".join(f"{k} {v}" for k, v in sorted(crash.kill_points.items())),
        f"provider faults: {sum(provider.faults.values())} injected over {provider.trials} turns in "
        f"{provider.seconds:.0f} s: " + ", ".join(f"{k} {v}" for k, v in provider.faults.items()),
        "  turns ended: "
        + ", ".join(f"{k} {v}" for k, v in sorted(provider.outcomes.items()))
        + "; model_calls failures logged: "
        + ", ".join(f"{k} {v}" for k, v in sorted(provider.logged_failures.items())),
        f"concurrency: {concurrent.trials} turns in two `kept chat` sessions with write passes and "
        f"`kept memory rewrite` beside them, {concurrent.seconds:.0f} s",
        f"messages sent {total.messages_sent}, lost {total.messages_lost}, duplicated {total.messages_duplicated}; "
        f"facts duplicated {total.facts_duplicated}",
        f"integrity failures {total.integrity_failures}, cursor errors {total.cursor_errors}, "
        f"interrupted passes not rerun {total.passes_not_rerun}, passes over the same messages {total.passes_overlapping}",
        f"'database is locked' shown {total.locked_errors}, tracebacks or unclear errors {total.unclean_outputs}, "
        f"failures not logged by class {total.failures_unlogged}, failed turns reported as success {total.failures_hidden}",
        results["privacy_detail"]["summary"],
    ]
    if total.problems:
        lines.append("problems (first ones):")
        lines += ["  " + re.sub(r"\s+", " ", p)[:300] for p in total.problems[:12]]
    return "\n".join(lines)


def as_json(results: dict) -> dict:
    return {name: ({**asdict(t), "clean": t.clean} if isinstance(t, Tally) else t) for name, t in results.items()}


def main(argv: list[str] | None = None) -> int:
    """``python -m evals.bench.faults`` does what `kept bench faults` does."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50, help="SIGKILL trials (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2, help="rounds over every provider fault class")
    parser.add_argument("--turns", type=int, default=8, help="turns per session in the concurrency trial")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run(args.trials, args.seed, args.rounds, args.turns)
    print(json.dumps(as_json(results), indent=2) if args.json else report(results))
    return 0 if results["total"].clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
