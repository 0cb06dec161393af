"""`kept connect`: accounts saved without their password, the password in the OS
keyring or an owner-only file, `test` reaching real servers, and no password
anywhere kept writes."""

from __future__ import annotations

import json
import os
import stat

import pytest
from typer.testing import CliRunner

pytest.importorskip("aiosmtpd")
keyring = pytest.importorskip("keyring")

from agent.cli import app  # noqa: E402
from evals.bench.servers import CaldavServer, SmtpServer, make_password  # noqa: E402

runner = CliRunner()


class MemoryKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def __init__(self):
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def get_password(self, service, username):
        return self.items.get((service, username))

    def delete_password(self, service, username):
        self.items.pop((service, username), None)


@pytest.fixture
def no_keyring():
    from keyring.backends import fail

    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(before)


@pytest.fixture
def memory_keyring():
    before = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(before)


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_connect_smtp_without_a_keyring_keeps_the_password_in_an_owner_only_file(kept_home, no_keyring):
    with SmtpServer() as server:
        url = f"smtp://{server.user}@127.0.0.1:{server.port}"
        out = cli("connect", "smtp", url, "--from", "ana@example.com", "--password-stdin", input=server.password + "\n")
        assert out.exit_code == 0, out.output
        assert "owner-only" in out.output and "answered" in out.output  # saved, then reached the server
        accounts = (kept_home / "accounts.json").read_text()
        assert server.password not in accounts
        secrets = kept_home / "passwords.json"
        assert server.password in secrets.read_text()
        assert stat.S_IMODE(os.stat(secrets).st_mode) == 0o600
        listing = cli("connect", "list")
        assert "smtp" in listing.output and "password: file" in listing.output
        assert server.password not in listing.output
        assert "answered" in cli("connect", "test", "smtp").output
    removed = cli("connect", "remove", "smtp")
    assert removed.exit_code == 0
    assert server.password not in secrets.read_text()
    assert "No accounts connected" in cli("connect", "list").output


def test_connect_uses_the_os_keyring_when_there_is_one(kept_home, memory_keyring):
    password = make_password()
    out = cli(
        "connect", "smtp", "smtp://ana@127.0.0.1:1", "--from", "ana@example.com", "--no-test", input=password + "\n"
    )  # typed at the hidden prompt
    assert out.exit_code == 0, out.output
    assert "OS keyring" in out.output
    assert list(memory_keyring.items.values()) == [password]
    assert not (kept_home / "passwords.json").exists()
    assert password not in (kept_home / "accounts.json").read_text()
    from tools.delivery import accounts

    assert accounts.load(kept_home)["smtp"].password == password
    cli("connect", "remove", "smtp")
    assert memory_keyring.items == {}


def test_connect_test_caldav_says_what_the_server_has(kept_home, tmp_path, no_keyring):
    with CaldavServer(tmp_path / "radicale") as server:
        server.make_calendar("Work")
        server.make_calendar("Birthdays", components=("VEVENT",))
        out = cli(
            "connect", "caldav", server.url, "--user", server.user, "--password-stdin", input=server.password + "\n"
        )
        assert out.exit_code == 0, out.output
        assert "'Work' (VEVENT, VTODO)" in out.output and "'Birthdays' (VEVENT)" in out.output
        assert "tasks go to 'Work'" in out.output
        wrong = cli("connect", "caldav", server.url, "--user", server.user, "--password-stdin", input="wrong\n")
        assert wrong.exit_code == 1 and "refused the login (401)" in wrong.output
        assert wrong.output.count("\n") <= 2  # saved line + one error line


@pytest.mark.parametrize(
    "args, needle",
    [
        (("connect", "smtp", "mail.example.com", "--from", "a@example.com"), "is not a smtp URL"),
        (("connect", "smtp", "smtp://host:notaport", "--from", "a@example.com"), "is not a valid URL"),
        (("connect", "smtp", "smtp://host:587", "--from", "not an address"), "is not an email address"),
        (("connect", "caldav", "cal.example.com/dav", "--user", "ana"), "is not a caldav URL"),
        (("connect", "test", "imap"), "not an account name"),
    ],
)
def test_bad_input_is_one_line(args, needle):
    out = cli(*args, input="\n")
    assert out.exit_code == 1 and needle in out.output and "Traceback" not in out.output


def test_malformed_environment_url_is_said_and_nothing_is_lost(db, kept_home, monkeypatch):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from tools import lists
    from tools.base import ToolContext
    from tools.delivery import Deliverer
    from tools.messages import TOOLS

    secret = make_password()
    monkeypatch.setenv("KEPT_SMTP_URL", f"smtp://ana:{secret}@")
    monkeypatch.setenv("KEPT_SMTP_FROM", "ana@example.com")
    delivery = Deliverer.from_home(kept_home)
    assert "KEPT_SMTP_URL" in delivery.problem and secret not in delivery.problem
    ctx = ToolContext(
        db=db, now=datetime.now(ZoneInfo("Europe/Berlin")), tz=ZoneInfo("Europe/Berlin"), delivery=delivery
    )
    result = {t.name: t for t in TOOLS}["send_message"].call(ctx, {"to": "sam@example.com", "body": "hi"})
    assert result["status"] == "recorded" and "KEPT_SMTP_URL" in result["delivery"]
    assert lists.outbox(db)[0].body == "hi"
    out = cli("connect", "list")
    assert out.exit_code == 1 and "KEPT_SMTP_URL" in out.output and secret not in out.output


def test_no_password_reaches_the_database_or_an_export(db, kept_home, tmp_path, monkeypatch):
    """A wrong password (the server says 535) and a right one: neither is in any file kept writes."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from tools.base import ToolContext
    from tools.delivery import Deliverer
    from tools.messages import TOOLS

    send = {t.name: t for t in TOOLS}["send_message"]
    tz = ZoneInfo("Europe/Berlin")
    wrong = make_password()
    with SmtpServer() as server:
        monkeypatch.setenv("KEPT_SMTP_FROM", "ana@example.com")
        for password in (wrong, server.password):
            monkeypatch.setenv("KEPT_SMTP_URL", f"smtp://{server.user}:{password}@127.0.0.1:{server.port}")
            ctx = ToolContext(db=db, now=datetime.now(tz), tz=tz, delivery=Deliverer.from_home(kept_home))
            result = send.call(ctx, {"to": "sam@example.com", "body": "hello"})
            assert password not in json.dumps(result)
        assert result["status"] == "sent"
    export = tmp_path / "export.json"
    assert cli("memory", "export", str(export)).exit_code == 0
    assert cli("calendar", "export", str(tmp_path / "cal.ics")).exit_code == 0
    listing = cli("outbox", "list", "--json").output
    assert "535" in listing  # the first attempt's refusal is kept, as a line
    db.conn.execute("PRAGMA wal_checkpoint(FULL)")
    for path in [*kept_home.rglob("*"), export, tmp_path / "cal.ics"]:
        if path.is_file():
            data = path.read_bytes()
            for password in (wrong, server.password):
                assert password.encode() not in data, path
    assert wrong not in listing and server.password not in listing
