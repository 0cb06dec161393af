"""The person's database file under damage: corrupted, from a newer kept,
in a read-only or full directory. kept says so in one line and never
overwrites a file it cannot read."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from agent.session import open_store
from evals.bench import harness, sandbox
from memory import messages as store
from tests.faults.checks import assert_clean, assert_one_line_error

BERLIN = ZoneInfo("Europe/Berlin")
needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="needs a private mount namespace (unshare -m)")


def _make_store(home, n: int = 40) -> None:
    db = open_store(home / "kept.db")
    chat = store.get_chat(db)
    for i in range(n):
        store.add_message(
            db, chat, "user", "me", f"stored message {i}: " + "words " * 30, datetime(2026, 10, 1, 9, tzinfo=BERLIN)
        )
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()


def _assert_refused_and_untouched(kept, path, before: harness.Held, server) -> None:
    for args in (("history", "--json"), ("ask", "hello"), ("ask", "hello again")):
        proc = kept(*args)
        assert_one_line_error(proc)
        assert harness.Held.of(path) == before, f"`kept {' '.join(args)}` changed the file it could not read"
    assert server.model_requests == [], "kept called the model with a store it cannot read"


def test_a_file_that_is_not_a_database_is_refused_in_one_line_and_left_untouched(kept, server, kept_home):
    kept_home.mkdir(parents=True)
    path = kept_home / "kept.db"
    path.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(64 * 1024)))
    path.chmod(0o600)
    _assert_refused_and_untouched(kept, path, harness.Held.of(path), server)


def _assert_read_or_refused_untouched(kept, server, path) -> None:
    before = harness.Held.of(path)
    for args in (("history", "--json"), ("ask", "hello")):
        server.reply_text("hi")
        proc = kept(*args)
        assert_clean(proc)
        if proc.returncode != 0:
            assert harness.Held.of(path) == before, "a refused file was changed"


def test_a_truncated_database_is_refused_or_read_but_never_tracebacks(kept, server, kept_home):
    _make_store(kept_home, 400)
    path = kept_home / "kept.db"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    _assert_read_or_refused_untouched(kept, server, path)


def test_a_database_with_garbage_pages_is_refused_or_read_but_never_tracebacks(kept, server, kept_home):
    _make_store(kept_home, 400)
    path = kept_home / "kept.db"
    data = bytearray(path.read_bytes())
    rng = random.Random(3)
    page = 4096
    for p in range(2, len(data) // page, 3):  # scribble over every third page after the schema
        data[p * page + 8 : p * page + 200] = bytes(rng.randrange(256) for _ in range(192))
    path.write_bytes(bytes(data))
    _assert_read_or_refused_untouched(kept, server, path)


def test_a_database_from_a_newer_kept_is_refused_in_one_line_and_left_untouched(kept, server, kept_home):
    _make_store(kept_home, 5)
    path = kept_home / "kept.db"
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _migrations (migration_set, name) VALUES ('memory.messages', 'm999_from_the_future')")
    conn.commit()
    conn.close()
    before = harness.Held.of(path)
    proc = kept("history")
    assert "newer" in assert_one_line_error(proc)
    _assert_refused_and_untouched(kept, path, before, server)


def test_a_store_written_before_two_owners_were_renamed_opens_without_rerunning_them(tmp_path):
    # tools.store became tools.lists and memory.calls became memory.call_log; a store
    # records migrations by owner name, so the renamed owners keep the names stores hold.
    path = tmp_path / "kept.db"
    db = open_store(path)
    before = {r[0]: r[1] for r in db.conn.execute("SELECT migration_set, count(*) FROM _migrations GROUP BY 1")}
    db.conn.close()
    assert {"tools.store", "memory.calls"} <= set(before)
    assert not {"tools.lists", "memory.call_log"} & set(before)
    again = open_store(path)
    after = {r[0]: r[1] for r in again.conn.execute("SELECT migration_set, count(*) FROM _migrations GROUP BY 1")}
    assert after == before


def test_the_database_and_its_directory_are_private_to_the_owner(kept, server, kept_home):
    server.reply_text("ok")
    assert kept("ask", "hello").returncode == 0
    for f in kept_home.iterdir():
        if f.name.startswith("kept.db"):
            assert f.stat().st_mode & 0o077 == 0, f"{f.name} is readable by others: {oct(f.stat().st_mode)}"


@needs_sandbox
def test_a_read_only_data_directory_gets_one_line_and_the_store_is_untouched(server, kept_home):
    _make_store(kept_home, 5)
    path = kept_home / "kept.db"
    before = harness.Held.of(path)
    env = harness.kept_env(kept_home, server.base_url)
    server.reply_text("ok")
    proc = sandbox.read_only(kept_home, harness.command("ask", "hello from a read-only disk"), env)
    assert_one_line_error(proc)
    # Reading may work or fail, but cleanly.
    assert_clean(sandbox.read_only(kept_home, harness.command("history", "--json"), env))
    assert harness.Held.of(path) == before


@needs_sandbox
@pytest.mark.parametrize("free_kb", [0, 64])
def test_a_full_data_directory_gets_one_line_and_leaves_a_sound_store(server, kept_home, tmp_path, free_kb):
    """0 KB free fails while opening the store; 64 KB free lets the message's transaction
    start and fails its COMMIT."""
    _make_store(kept_home, 5)
    env = harness.kept_env(kept_home, server.base_url)
    for _ in range(4):
        server.reply_text("ok")
    after = tmp_path / "after"
    proc = sandbox.nearly_full(
        kept_home,
        harness.command("ask", "a message written to a full disk " + "x" * 20_000),
        env,
        size_kb=2048,
        leave_bytes=free_kb * 1024,
        seed_from=kept_home,
        copy_back=after,
    )
    line = assert_one_line_error(proc)
    assert "full" in line.replace(str(kept_home), "the data directory"), line  # the tmp path says "full" too
    assert harness.integrity(after) == "ok"
    before = [r["text"] for r in harness.history(kept_home)]
    assert [r["text"] for r in harness.history(after)][: len(before)] == before


def test_a_full_disk_inside_sqlite_gets_one_line_not_a_traceback(kept_home, monkeypatch):
    """Simulated without mounts: SQLite's max_page_count makes every write fail with SQLITE_FULL."""
    import agent.session as session_module
    from agent import cli
    from agent.models import registry, scripted
    from agent.models.scripted import ScriptedModel

    _make_store(kept_home, 5)
    real_open = session_module.open_store

    def full_store(path=None):
        db = real_open(path)
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(session_module, "open_store", full_store)
    monkeypatch.setattr(registry, "create", lambda spec=None, memory=False: ScriptedModel([scripted.text("ok")]))
    result = CliRunner().invoke(cli.app, ["ask", "hello " + "x" * 50_000])
    assert isinstance(result.exception, SystemExit), f"uncaught {result.exception!r}"
    assert result.exit_code != 0
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kept:") and "full" in lines[0], result.output


# --- exports go only to regular files; every folder kept makes is owner-only --------------


def _special_targets(tmp_path):
    import os
    import socket
    import stat

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    link = tmp_path / "link-to-fifo"
    link.symlink_to(fifo)
    targets = {"FIFO": fifo, "folder": folder, "socket": sock_path, "link to a FIFO": link}
    # A device node of its own in tmp (never the real /dev/null: were the refusal broken, it would be replaced).
    device = tmp_path / "null-device"
    try:
        os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        targets["character device"] = device
    except PermissionError:  # not root: FIFOs, sockets and folders still stand for every special file
        pass
    return targets, sock


@pytest.mark.parametrize("group, name", [("memory", "export"), ("calendar", "export")])
def test_an_export_onto_anything_but_a_regular_file_is_refused_and_leaves_it_alone(kept_offline, tmp_path, group, name):
    import stat

    targets, sock = _special_targets(tmp_path)
    try:
        for what, target in targets.items():
            before = target.lstat()
            line = assert_one_line_error(kept_offline(group, name, str(target)))
            assert "regular file" in line, (what, line)
            after = target.lstat()
            assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino), what
    finally:
        sock.close()
    # The control: a regular file (new, or there already) is written.
    ok = tmp_path / "out.json"
    assert kept_offline(group, name, str(ok)).returncode == 0 and ok.is_file()


def test_kept_home_and_every_folder_kept_makes_are_owner_only(server, tmp_path):
    import os

    home = tmp_path / "new" / "nested" / "kept-home"
    old = os.umask(0o022)
    try:
        server.reply_text("ok")
        proc = harness.run_kept("ask", "hello", home=home, base_url=server.base_url)
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    for folder in (home, home.parent, home.parent.parent):
        assert folder.stat().st_mode & 0o777 == 0o700, f"{folder}: {oct(folder.stat().st_mode)}"
    for f in home.rglob("*"):
        if f.is_dir():
            assert f.stat().st_mode & 0o077 == 0, f"{f}: {oct(f.stat().st_mode)}"
