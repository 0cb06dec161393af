"""Delivery faults against real and broken servers on 127.0.0.1: each ends in one
clear line to the person and the model, queued for retry where a retry can
help, nothing lost, nothing sent twice, no traceback."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

pytest.importorskip("aiosmtpd")
pytest.importorskip("radicale")

from evals.bench import harness
from evals.bench.servers import (
    CaldavServer,
    HttpStatusServer,
    SilentServer,
    SmtpServer,
    free_port,
    make_password,
    self_signed_context,
)
from tests.faults.checks import assert_clean
from tools import calendar, lists, messages, tasks
from tools.base import ToolContext
from tools.delivery import Deliverer
from tools.delivery.accounts import Account, parse_url

BERLIN = ZoneInfo("Europe/Berlin")
T = {t.name: t for t in calendar.TOOLS + messages.TOOLS + tasks.TOOLS}


def mail_account(url: str, timeout: float = 2) -> Deliverer:
    clean, user, password = parse_url("smtp", url, where="test")
    return Deliverer({"smtp": Account("smtp", clean, user, password, sender="ana@example.org")}, timeout=timeout)


def calendar_account(url: str, user="ana", password=None, name=None, timeout: float = 2) -> Deliverer:
    return Deliverer(
        {"caldav": Account("caldav", url, user, password or make_password(), calendar=name)}, timeout=timeout
    )


def ctx(db, delivery) -> ToolContext:
    return ToolContext(db=db, now=datetime.now(BERLIN), tz=BERLIN, delivery=delivery)


def one_line(text: str) -> str:
    assert "\n" not in text and "Traceback" not in text, text
    return text


def email(db, delivery, to="sam@example.com", body="The launch moved to Friday."):
    return T["send_message"].call(ctx(db, delivery), {"to": to, "body": body, "subject": "Launch"})


def booking(db, delivery, title="Launch review"):
    return T["schedule_meeting"].call(ctx(db, delivery), {"title": title, "start": "tomorrow 10:00"})


def state(db, kind, item_id):
    return lists.delivery_of(db, kind, item_id)


# --- mail ---------------------------------------------------------------------


def test_connection_refused_queues_the_email_and_a_later_retry_sends_it_once(db):
    port = free_port()  # nobody listens here
    server = SmtpServer()
    server.port = port
    delivery = mail_account(server.url)
    result = email(db, delivery)
    assert result["status"] == "queued"
    assert "connection refused" in one_line(result["delivery"]) and "tries again" in result["delivery"]
    row = state(db, lists.MESSAGE, result["message_id"])
    assert row.state == lists.PENDING and row.attempts == 1 and row.next_retry > datetime.now(UTC)
    with server:  # the server comes up on that port
        done = delivery.run_due(db, include_failed=True)
        assert [d.state for d in done] == [lists.DELIVERED]
        assert delivery.run_due(db, include_failed=True) == []
        assert len(server.messages) == 1


def test_a_server_that_goes_down_loses_nothing_and_sends_nothing_twice(db):
    server = SmtpServer().start()
    delivery = mail_account(server.url)
    assert email(db, delivery, body="one")["status"] == "sent"
    server.stop()
    second = email(db, delivery, body="two")
    assert second["status"] == "queued"
    port, password, got = server.port, server.password, list(server.messages)
    back = SmtpServer(password=password)
    back.port = port
    with back:
        delivery.run_due(db, include_failed=True)
        delivery.run_due(db, include_failed=True)
        bodies = [m.message.get_content().strip() for m in got + back.messages]
    assert bodies == ["one", "two"]
    assert [m.body for m in lists.outbox(db)] == ["one", "two"]


def test_a_server_that_never_answers_times_out_and_is_queued(db):
    with SilentServer() as silent:
        delivery = mail_account(f"smtp://ana:{make_password()}@127.0.0.1:{silent.port}", timeout=1)
        result = email(db, delivery)
    assert result["status"] == "queued" and "did not answer within 1 s" in one_line(result["delivery"])


def test_a_rejected_recipient_fails_without_retry(db):
    with SmtpServer(reject={"gone@example.com"}) as server:
        result = email(db, mail_account(server.url), to="gone@example.com")
        assert result["status"] == "failed"
        assert "refused the recipient gone@example.com (550" in one_line(result["delivery"])
        assert mail_account(server.url).run_due(db) == []  # failed items wait for the person
        assert server.messages == []


@pytest.mark.parametrize(
    "reply, status, retry",
    [
        ("451 4.3.0 try again later", "queued", True),
        ("554 5.7.1 message refused", "failed", False),
    ],
)
def test_a_refused_message_is_queued_only_when_the_server_says_later(db, reply, status, retry):
    with SmtpServer(data_reply=reply) as server:
        result = email(db, mail_account(server.url))
    assert result["status"] == status and reply.split()[0] in one_line(result["delivery"])


def test_a_wrong_password_fails_with_the_login_named_and_the_password_nowhere(db):
    with SmtpServer() as server:
        wrong = make_password()
        result = email(db, mail_account(f"smtp://{server.user}:{wrong}@127.0.0.1:{server.port}"))
    assert result["status"] == "failed" and "refused the login (535" in one_line(result["delivery"])
    assert wrong not in json.dumps(result) and wrong not in (state(db, lists.MESSAGE, 1).last_error or "")


def test_tls_errors_say_so_and_send_nothing(db):
    with SmtpServer() as plain:  # TLS spoken to a plain server
        result = email(db, mail_account(f"smtps://{plain.user}:{plain.password}@127.0.0.1:{plain.port}"))
        assert result["status"] == "failed" and "TLS error" in one_line(result["delivery"])
        assert plain.messages == []
    with SmtpServer(tls_context=self_signed_context()) as untrusted:  # STARTTLS with a certificate nobody trusts
        result = email(db, mail_account(untrusted.url))
        assert result["status"] == "failed" and "certificate" in one_line(result["delivery"])
        assert untrusted.messages == []


def test_a_malformed_url_is_one_line_and_the_message_stays_recorded(db, kept_home, monkeypatch):
    monkeypatch.setenv("KEPT_SMTP_URL", "smtp//mail.example.com")
    monkeypatch.setenv("KEPT_SMTP_FROM", "ana@example.org")
    result = email(db, Deliverer.from_home(kept_home))
    assert result["status"] == "recorded" and "KEPT_SMTP_URL" in one_line(result["delivery"])
    assert [m.body for m in lists.outbox(db)] == ["The launch moved to Friday."]


# --- calendar -----------------------------------------------------------------


@pytest.fixture(scope="module")
def radicale(tmp_path_factory):
    with CaldavServer(tmp_path_factory.mktemp("radicale")) as server:
        server.make_calendar("Work")
        yield server


def test_calendar_server_refusing_connections_queues_the_booking(db):
    result = booking(db, calendar_account(f"http://127.0.0.1:{free_port()}/"))
    assert result["delivery_state"] == "queued" and "connection refused" in one_line(result["delivery"])
    assert lists.get_event(db, result["event_id"]).title == "Launch review"  # the record stays


def test_wrong_calendar_password_is_401_and_not_retried(db, radicale):
    result = booking(db, calendar_account(radicale.url, radicale.user, "not-the-password"))
    assert result["delivery_state"] == "failed" and "refused the login (401)" in one_line(result["delivery"])


@pytest.mark.parametrize(
    "status, needle, retried",
    [
        (403, "403 forbidden", False),
        (404, "no calendar at that address (404)", False),
        (500, "server error (500)", True),
        (503, "server error (503)", True),
    ],
)
def test_calendar_server_statuses(db, status, needle, retried):
    with HttpStatusServer(status) as broken:
        result = booking(db, calendar_account(broken.url))
    line = one_line(result["delivery"])
    assert needle in line, line
    assert result["delivery_state"] == ("queued" if retried else "failed")


def test_a_calendar_name_the_server_does_not_have(db, radicale):
    result = booking(db, calendar_account(radicale.url, radicale.user, radicale.password, name="Holidays"))
    assert result["delivery_state"] == "failed"
    assert "no calendar called 'Holidays'" in one_line(result["delivery"]) and "Work" in result["delivery"]


def test_calendar_timeout_and_tls(db, radicale):
    with SilentServer() as silent:
        result = booking(db, calendar_account(f"http://127.0.0.1:{silent.port}/", timeout=1))
    assert result["delivery_state"] == "queued" and "did not answer within 1 s" in one_line(result["delivery"])
    tls = booking(db, calendar_account(radicale.url.replace("http://", "https://"), radicale.user, radicale.password))
    assert tls["delivery_state"] == "failed" and "TLS error" in one_line(tls["delivery"])


def test_an_unreadable_calendar_server_still_books_and_says_conflicts_were_checked_locally(db):
    delivery = calendar_account(f"http://127.0.0.1:{free_port()}/")
    result = booking(db, delivery)
    assert "conflicts were checked against kept's own record only" in result["calendar_server"]
    listed = T["list_events"].call(ctx(db, delivery), {"from_date": "tomorrow"})
    assert listed["count"] == 1 and "kept's own record only" in listed["calendar_server"]


# --- through the real command -------------------------------------------------


def test_outbox_retry_with_the_server_down_is_one_line_per_item_and_no_traceback(kept_home):
    port = free_port()
    env = harness.kept_env(
        kept_home,
        KEPT_SMTP_URL=f"smtp://ana:{make_password()}@127.0.0.1:{port}",
        KEPT_SMTP_FROM="ana@example.org",
        KEPT_DELIVERY_TIMEOUT="2",
    )
    from agent.session import open_store

    db = open_store(kept_home / "kept.db")
    now = datetime.now(UTC) - timedelta(minutes=1)
    for i in range(2):
        lists.add_outbox(
            db, recipient=f"p{i}@example.com", body=f"m{i}", now=now, channel="email", delivery=lists.PENDING
        )
    proc = harness.run_kept("outbox", "retry", home=kept_home, env=env, timeout=60)
    assert proc.returncode == 1
    assert_clean(proc)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert lines == [
        f"message #1: pending (next try {lines[0].split('next try ')[1].split(',')[0]}, tried 1x: "
        f"could not connect to the mail server 127.0.0.1:{port}: connection refused (is the server "
        "running?))"
    ], lines  # the second waits: the server is known to be down
    listing = harness.run_kept("outbox", "list", home=kept_home, env=env)
    assert_clean(listing)
    assert listing.stdout.count("pending") == 2


def test_kill_trials_lose_and_duplicate_nothing(tmp_path):
    """SIGKILL `kept outbox retry` at random points of a delivery (10 trials; `kept bench delivery` runs 100)."""
    from evals.bench import delivery

    tally = delivery.run(10, 7, workdir=tmp_path)
    assert tally.trials == 10
    assert tally.lost == 0, tally.problems
    assert tally.duplicated == 0, tally.problems
    assert tally.not_delivered == 0, tally.problems
    assert tally.unclean_outputs == 0, tally.problems
    assert sum(tally.kills.values()) == 10
