"""The first sessions' write pass alone, in code: facts and SOUL without running a chat.

`kept eval session` runs every turn through the embedded model (minutes a session) before its
write pass. The write pass for that model makes no model call (memory/embedded_writer.py), and
reads only the person's own messages, so it can be measured on its own in seconds: each
session's messages before its "pass" step are stored as the person said them, the pass runs
in code, and the store is graded with the session grader's own reading of facts right / stale /
invented and SOUL (evals/first_session.py ``grade_memory``). Kept's replies are not stored: the
pass does not read them. Later-chat steps are not sent.

    python -m evals.session_pass --data evals/data/first_sessions_test5.json
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from evals import first_session


def run_one(session: dict, home: Path, *, short: bool = False) -> tuple[first_session.SessionResult, dict]:
    from agent.session import open_store
    from memory import messages as store
    from memory import writer

    os.environ["KEPT_HOME"] = str(home)
    db = open_store(home / "kept.db")
    now = datetime.now().astimezone()
    said: list[str] = []
    result = first_session.SessionResult(session["id"])
    for i, step in enumerate(session["steps"]):
        if step.get("pass"):
            break
        if short and step.get("long"):
            continue
        text = step.get("say") or step.get("ask") or ""
        chat = store.get_chat(db, step.get("chat", "me"))
        at = now - timedelta(minutes=len(session["steps"]) - i)
        store.add_message(db, chat, "user", "me", text, at)
        store.add_message(db, chat, "assistant", "kept", "Noted.", at + timedelta(seconds=20))
        said.append(text)
    passed = writer.run_pass(db, None, cap=1500, max_active=200, force=True, in_code=True, now=now)
    result.pass_output = "\n".join(passed.extra.get("facts", {}).get("decisions", []))
    first_session._read_memory(result, home / "kept.db")
    return result, first_session.grade_memory(result, session, said, short=short)


def run(data: Path, *, short: bool = False) -> list[tuple[first_session.SessionResult, dict]]:
    sessions = json.loads(data.read_text(encoding="utf-8"))["sessions"]
    out = []
    saved = os.environ.get("KEPT_HOME")
    try:
        for session in sessions:
            if short and not session.get("short"):
                continue
            with tempfile.TemporaryDirectory(prefix=f"kept-pass-{session['id']}-") as tmp:
                out.append(run_one(session, Path(tmp), short=short))
    finally:
        if saved is None:
            os.environ.pop("KEPT_HOME", None)
        else:
            os.environ["KEPT_HOME"] = saved
    return out


def render(results: list[tuple[first_session.SessionResult, dict]], *, verbose: bool = False) -> str:
    lines = []
    total = {"facts_checked": 0, "facts_right": 0, "facts_stale": 0, "facts_invented": 0, "soul": 0, "soul_of": 0}
    for r, g in results:
        lines.append(
            f"{r.id}: SOUL {g['soul_has']}; facts right {g['facts_right']}/{g['facts_checked']}, stale "
            f"{g['facts_stale']}, invented {g['facts_invented']} of {g['facts_active']} active"
        )
        for key in ("facts_checked", "facts_right", "facts_stale", "facts_invented"):
            total[key] += g[key]
        total["soul"] += sum(g["soul_has"].values())
        total["soul_of"] += len(g["soul_has"])
        for fact in r.facts:
            lines.append(f"    fact: {fact[:130]}")
        if verbose:
            lines += [f"    {line}" for line in r.pass_output.splitlines()]
    lines.append(
        f"all: facts right {total['facts_right']}/{total['facts_checked']}, stale {total['facts_stale']}, "
        f"invented {total['facts_invented']}; SOUL words {total['soul']}/{total['soul_of']}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m evals.session_pass", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", help="Session files (default: first_sessions.json).")
    parser.add_argument("--short", action="store_true", help="Only the short session, without its long steps.")
    parser.add_argument("-v", "--verbose", action="store_true", help="Print what the pass did with every sentence.")
    args = parser.parse_args()
    for path in args.data or [first_session.DATA]:
        print(f"== {path}")
        print(render(run(path, short=args.short), verbose=args.verbose))
    sys.exit(0)
