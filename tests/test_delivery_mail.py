"""Email through a real SMTP server (aiosmtpd on 127.0.0.1): headers, the queue,
no second send, and consent per recipient and channel."""

from __future__ import annotations

import json
from datetime import datetime
from email.utils import parsedate_to_datetime
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

pytest.importorskip("aiosmtpd")

from agent.cli import app
from evals.bench.servers import SmtpServer
from tools import lists
from tools.base import ToolContext, ToolError
from tools.delivery import Deliverer
from tools.messages import TOOLS

BERLIN = ZoneInfo("Europe/Berlin")
SEND = {t.name: t for t in TOOLS}["send_message"]
runner = CliRunner()


@pytest.fixture
def smtp(monkeypatch):
    with SmtpServer(reject={"nobody@example.com"}) as server:
        monkeypatch.setenv("KEPT_SMTP_URL", server.url)
        monkeypatch.setenv("KEPT_SMTP_FROM", "me@example.org")
        monkeypatch.setenv("KEPT_DELIVERY_TIMEOUT", "5")
        yield server


def ctx_for(db, kept_home, approve=lambda prompt: True):
    return ToolContext(
        db=db, now=datetime.now(BERLIN), tz=BERLIN, approve=approve, delivery=Deliverer.from_home(kept_home)
    )


def cli(*args):
    return runner.invoke(app, list(args))


def test_email_reaches_the_server_with_its_headers(db, kept_home, smtp):
    result = SEND.call(
        ctx_for(db, kept_home),
        {"to": "marco@example.com", "subject": "Launch", "body": "The launch moved to Friday.\nGrüße, Ana"},
    )
    assert result["status"] == "sent" and result["delivery"].startswith("delivered: the mail server 127.0.0.1:")
    assert " answered 250 " in result["delivery"]
    assert len(smtp.messages) == 1
    got = smtp.messages[0]
    assert got.sender == "me@example.org" and got.recipients == ["marco@example.com"]
    mail = got.message
    row = lists.get_outbox(db, result["message_id"])
    assert mail["Message-ID"] == row.message_uid and row.message_uid.endswith("@example.org>")
    assert (mail["From"], mail["To"], mail["Subject"]) == ("me@example.org", "marco@example.com", "Launch")
    assert abs((parsedate_to_datetime(mail["Date"]) - row.sent_at).total_seconds()) < 1
    assert mail.get_content().replace("\r\n", "\n").rstrip("\n") == "The launch moved to Friday.\nGrüße, Ana"
    assert lists.delivery_of(db, lists.MESSAGE, row.id).state == lists.DELIVERED


def test_a_retry_never_sends_a_delivered_message_again(db, kept_home, smtp):
    SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "once"})
    out = cli("outbox", "retry")
    assert out.exit_code == 0 and "Nothing is waiting" in out.output
    again = cli("outbox", "retry", "1")
    assert again.exit_code == 1 and "already delivered" in again.output
    assert len(smtp.messages) == 1
    listing = cli("outbox", "list")
    assert "[delivered]" in listing.output


def test_rejected_recipient_is_kept_failed_and_said_in_one_line(db, kept_home, smtp):
    result = SEND.call(ctx_for(db, kept_home), {"to": "nobody@example.com", "body": "hello?"})
    assert result["status"] == "failed"
    assert "refused the recipient nobody@example.com (550" in result["delivery"]
    assert "\n" not in result["delivery"]
    assert lists.outbox(db)[0].body == "hello?"  # the record stays
    rows = json.loads(cli("outbox", "list", "--json").output)
    assert rows[0]["delivery"]["state"] == "failed" and "550" in rows[0]["delivery"]["last_error"]
    assert smtp.messages == []


def test_nothing_configured_says_recorded_not_delivered_and_how_to_connect(db, kept_home):
    result = SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "hi"})
    assert result["status"] == "recorded"
    assert "not delivered" in result["delivery"] and "kept connect smtp" in result["delivery"]
    out = cli("outbox", "list").output
    assert "recorded, not delivered" in out and "kept connect smtp" in out


def test_a_message_recorded_before_connecting_can_be_sent_once_after(db, kept_home, monkeypatch):
    SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "written offline"})
    with SmtpServer() as server:
        monkeypatch.setenv("KEPT_SMTP_URL", server.url)
        monkeypatch.setenv("KEPT_SMTP_FROM", "me@example.org")
        assert cli("outbox", "retry").output.strip() == "Nothing is waiting for delivery."  # local stays local
        out = cli("outbox", "retry", "1")
        assert out.exit_code == 0 and "delivered" in out.output
        assert cli("outbox", "retry", "1").exit_code == 1
        assert [m.message.get_content().strip() for m in server.messages] == ["written offline"]


def test_consent_is_per_recipient_and_channel_and_shows_the_whole_message(db, kept_home, smtp):
    asked: list[str] = []

    def approve(question):
        asked.append(question)
        return True

    ctx = ctx_for(db, kept_home, approve)
    SEND.call(ctx, {"to": "sam@example.com", "body": "ping", "channel": "chat"})
    long_body = "Numbers for the board.\n" + "x" * 400 + "\nP.S. the salary list is attached"
    SEND.call(ctx, {"to": "sam@example.com", "body": long_body, "subject": "Board"})
    assert len(asked) == 2  # a chat message before does not clear the first email
    question = asked[1]
    assert "sam@example.com" in question and "email" in question and "127.0.0.1" in question
    assert "P.S. the salary list is attached" in question and "x" * 400 in question
    SEND.call(ctx, {"to": "sam@example.com", "body": "again"})
    assert len(asked) == 2  # now known on email


def test_refused_consent_sends_nothing(db, kept_home, smtp):
    with pytest.raises(ToolError, match="did not approve a first email message"):
        SEND.call(ctx_for(db, kept_home, lambda q: False), {"to": "eve@example.com", "body": "notes"})
    assert smtp.messages == [] and lists.outbox(db) == []


def test_an_email_through_kept_ask(kept_home, smtp, monkeypatch):
    from agent.models import registry, scripted

    model = scripted.ScriptedModel(
        [
            scripted.tool_call(
                "send_message", to="marco@example.com", subject="Launch", body="The launch moved to Friday."
            ),
            scripted.text("Sent to Marco."),
        ]
    )
    monkeypatch.setattr(registry, "create", lambda *a, **k: model)
    out = cli("ask", "tell marco@example.com the launch moved to Friday", "--yes", "--json")
    assert out.exit_code == 0, out.output
    call = json.loads(out.output[out.output.index("{") :])["tool_calls"][0]
    assert call["result"]["status"] == "sent"
    assert [m.message["Subject"] for m in smtp.messages] == ["Launch"]


def test_pending_messages_are_retried_at_the_next_start(db, kept_home, monkeypatch):
    from agent.models import registry, scripted
    from evals.bench.servers import free_port

    server = SmtpServer()
    server.port = free_port()  # not started yet: the send finds nobody there
    monkeypatch.setenv("KEPT_SMTP_URL", server.url)
    monkeypatch.setenv("KEPT_SMTP_FROM", "me@example.org")
    queued = SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "written while the server was down"})
    assert queued["status"] == "queued"
    # The retry time has come (as it would by the next start); the server is up again.
    db.conn.execute("UPDATE deliveries SET next_retry = '2000-01-01T00:00:00Z'")
    with server:
        model = scripted.ScriptedModel([scripted.text("Morning.")])
        monkeypatch.setattr(registry, "create", lambda *a, **k: model)
        out = cli("ask", "good morning")
        assert out.exit_code == 0, out.output
        assert [m.message.get_content().strip() for m in server.messages] == ["written while the server was down"]
    assert lists.delivery_of(db, lists.MESSAGE, queued["message_id"]).state == lists.DELIVERED


@pytest.mark.parametrize("mode", ["starttls", "implicit"])
def test_tls_to_a_server_this_system_trusts(db, kept_home, monkeypatch, mode):
    pytest.importorskip("cryptography")
    from evals.bench.servers import self_signed

    context, cert = self_signed()
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # what a system CA store would hold
    server = SmtpServer(tls_context=context) if mode == "starttls" else SmtpServer(implicit_tls=context)
    with server:
        assert server.url.startswith("smtps://" if mode == "implicit" else "smtp://")
        monkeypatch.setenv("KEPT_SMTP_URL", server.url)
        monkeypatch.setenv("KEPT_SMTP_FROM", "me@example.org")
        result = SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "over TLS"})
        assert result["status"] == "sent", result
        assert len(server.messages) == 1
        greeting = cli("connect", "test", "smtp")
        assert greeting.exit_code == 0 and "(TLS, logged in)" in greeting.output


def test_retry_with_the_account_gone_says_what_waits_and_keeps_it(db, kept_home, monkeypatch):
    from evals.bench.servers import free_port

    monkeypatch.setenv("KEPT_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")
    monkeypatch.setenv("KEPT_SMTP_FROM", "me@example.org")
    assert SEND.call(ctx_for(db, kept_home), {"to": "marco@example.com", "body": "later"})["status"] == "queued"
    monkeypatch.delenv("KEPT_SMTP_URL")
    out = cli("outbox", "retry")
    assert out.exit_code == 1 and "1 item waits for an account" in out.output and "kept connect smtp" in out.output
    assert lists.delivery_of(db, lists.MESSAGE, 1).state == lists.PENDING


def test_the_consent_question_cannot_hide_text_from_the_screen(db, kept_home):
    asked: list[str] = []
    body = "Quarterly numbers attached.\x1b[8m P.S. and the salary list\x1b[0m\rOK\u202eevil"
    SEND.call(ctx_for(db, kept_home, lambda q: asked.append(q) or True), {"to": "sam@example.com", "body": body})
    [question] = asked
    assert "\x1b" not in question and "\r" not in question and "\u202e" not in question
    assert "P.S. and the salary list" in question and "<U+001B>" in question and "<U+202E>" in question
    assert lists.outbox(db)[0].body == body  # what is sent is what was asked about, byte for byte
