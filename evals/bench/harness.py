"""Run the real `kept` command in a subprocess against a data directory and a
fake model server, the way a person's terminal would.

Shared by the fault tests (tests/faults/) and `kept bench faults`, so the CI
checks and the long trials measure the same thing.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[2]

# Variables that would point kept at a real provider or at the person's own accounts:
# no test or bench run inherits them (tests/conftest.py clears them for every test).
PERSONAL_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "KEPT_MODEL",
    "KEPT_MEMORY_MODEL",
    "KEPT_LOCAL_MODEL",
    "KEPT_CALDAV_URL",
    "KEPT_CALDAV_USER",
    "KEPT_CALDAV_PASSWORD",
    "KEPT_CALDAV_CALENDAR",
    "KEPT_SMTP_URL",
    "KEPT_SMTP_FROM",
    "KEPT_DELIVERY_TIMEOUT",
)
# A child also gets its own data directory, and writes bytecode: it would otherwise
# compile the SDKs from source on every start.
SCRUBBED = (*PERSONAL_VARS, "KEPT_HOME", "PYTHONDONTWRITEBYTECODE")
FAKE_KEY = "test-key-not-real"


def kept_env(home: Path, base_url: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a child `kept`: its own data dir, the fake server, no real keys."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(KEPT_HOME=str(home), KEPT_TZ=env.get("KEPT_TZ", "Europe/Berlin"), PYTHONUNBUFFERED="1")
    if base_url:
        env.update(
            OPENAI_BASE_URL=base_url,
            OPENAI_API_KEY=FAKE_KEY,
            KEPT_MODEL="openai:fake-model",
            KEPT_MEMORY_MODEL="openai:fake-model",
        )
    env.update({k: str(v) for k, v in extra.items()})
    return env


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent.cli", *args]


def run_kept(
    *args: str,
    home: Path,
    base_url: str | None = None,
    input: bytes | str | None = None,
    timeout: float = 300,
    env: dict[str, str] | None = None,
    **extra: str,
) -> subprocess.CompletedProcess:
    """Run `kept ARGS` to completion; stdout and stderr are text (undecodable bytes replaced)."""
    if isinstance(input, str):
        input = input.encode("utf-8")
    try:
        proc = subprocess.run(
            command(*args),
            cwd=REPO,
            env=env or kept_env(home, base_url, **extra),
            input=input,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:  # counted by the caller as an unclear ending, not a crash of the bench
        return subprocess.CompletedProcess(
            command(*args), 124, "", f"kept {' '.join(args)[:60]}: no answer within {timeout:g} s"
        )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def spawn_kept(
    *args: str, home: Path, base_url: str | None = None, env: dict[str, str] | None = None, **extra: str
) -> subprocess.Popen:
    """Start `kept ARGS` without waiting (to kill it, or to run two at once)."""
    return subprocess.Popen(
        command(*args),
        cwd=REPO,
        env=env or kept_env(home, base_url, **extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def sigkill(proc: subprocess.Popen) -> bool:
    """SIGKILL ``proc`` if it still runs; True when the kill landed before it exited."""
    if proc.poll() is not None:
        return False
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def person_error(proc: subprocess.CompletedProcess) -> str | None:
    """Why stderr is not a clean message for a person, or None when it is.

    Clean means: no Python traceback, and at most one line starting "kept:"
    (a retry notice or the local-model notice may precede it).
    """
    err = proc.stderr
    if "Traceback (most recent call last)" in err:
        return "a traceback reached the person:\n" + err[-2000:]
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("kept:")]
    if proc.returncode != 0 and len(errors) != 1:
        return f"exit {proc.returncode} without exactly one 'kept:' line on stderr:\n{err[-2000:]}"
    return None


def history(home: Path, *, chat: str | None = None) -> list[dict]:
    """The stored messages, read the way a person would: `kept history --json`."""
    args = ["history", "--json"] + (["--chat", chat] if chat else [])
    proc = run_kept(*args, home=home)
    if proc.returncode != 0:
        raise RuntimeError(f"kept history failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout or "[]")


def stored(home: Path) -> list[dict]:
    """The stored messages read straight from the file (quicker than `kept history` when the CLI
    path itself is not what a check is about)."""
    if not db_file(home).exists():
        return []
    rows = query(
        home,
        "SELECT m.id, m.role, m.author, m.text, c.name FROM messages m JOIN chats c ON c.id = m.chat_id ORDER BY m.id",
    )
    return [
        {"id": i, "role": role, "author": author, "text": text, "chat": chat} for i, role, author, text, chat in rows
    ]


def user_texts(rows: list[dict]) -> Counter:
    return Counter(r["text"] for r in rows if r["role"] == "user")


def db_file(home: Path) -> Path:
    return home / "kept.db"


def _open(home: Path) -> sqlite3.Connection:
    """The person's file, opened read-write but never created: a check must not make a store
    appear where kept (killed before it made one) left none."""
    return sqlite3.connect(f"file:{quote(str(db_file(home)))}?mode=rw", uri=True, timeout=30)


def integrity(home: Path) -> str:
    """``PRAGMA integrity_check`` of the person's file ("ok" when sound)."""
    conn = _open(home)
    try:
        return "; ".join(row[0] for row in conn.execute("PRAGMA integrity_check"))
    finally:
        conn.close()


def query(home: Path, sql: str, args: tuple = ()) -> list[tuple]:
    conn = _open(home)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


@dataclass
class Held:
    """The bytes and mode of a file, to prove kept left it untouched."""

    data: bytes
    mode: int

    @classmethod
    def of(cls, path: Path) -> Held:
        return cls(path.read_bytes(), path.stat().st_mode)
