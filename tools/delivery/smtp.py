"""Email over SMTP (stdlib smtplib): STARTTLS on smtp:// when the server offers
it (required before a login, except on this machine's loopback), TLS from the
first byte on smtps://.

The message carries the Message-ID kept made when the outbox row was written,
so a retry after a crash is the same message, which receiving systems
recognise, never a second one.
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime

from tools.delivery.accounts import Account
from tools.delivery.problems import DeliveryProblem, smtp_problem

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def build(
    account: Account, *, to: str, subject: str | None, body: str, message_uid: str, date: datetime
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = account.sender
    message["To"] = to
    message["Subject"] = subject or (body.strip().splitlines() or ["(no subject)"])[0][:78]
    message["Date"] = format_datetime(date)
    message["Message-ID"] = message_uid
    message["X-Mailer"] = "kept"
    message.set_content(body)
    return message


def _connect(account: Account, timeout: float) -> smtplib.SMTP:
    context = ssl.create_default_context()
    if account.implicit_tls:
        client: smtplib.SMTP = smtplib.SMTP_SSL(account.host, account.port, timeout=timeout, context=context)
    else:
        client = smtplib.SMTP(account.host, account.port, timeout=timeout)
    try:
        client.ehlo()
        if not account.implicit_tls:
            if client.has_extn("starttls"):
                client.starttls(context=context)
                client.ehlo()
            elif account.password and account.host not in LOOPBACK:
                raise DeliveryProblem(
                    f"{where(account)} does not offer STARTTLS, so kept will not send the password in the clear; "
                    "use smtps:// or a server that offers STARTTLS",
                    retry=False,
                )
        if account.user and account.password:
            client.login(account.user, account.password)
    except BaseException:
        client.close()
        raise
    return client


def where(account: Account) -> str:
    return f"the mail server {account.host}:{account.port}"


def send(account: Account, message: EmailMessage, timeout: float, accepted=None) -> str:
    """Hand ``message`` to the server; return its answer to the data ("... answered 250 ...").

    ``accepted(answer)`` is called the moment the server has taken the message, before the
    polite QUIT, so the record of it is made as soon as can be: a crash after the server's
    250 and before that record is the one case where a retry sends the message again (with
    the same Message-ID). Raises DeliveryProblem.
    """
    to = message["To"]
    assert account.sender is not None  # accounts.load refuses an smtp account without a From address
    with _session(account, timeout, to) as client:
        code, reply = client.mail(account.sender)
        if code != 250:
            raise smtplib.SMTPSenderRefused(code, reply, account.sender)
        code, reply = client.rcpt(to)
        if code not in (250, 251):
            raise smtplib.SMTPRecipientsRefused({to: (code, reply)})
        code, reply = client.data(message.as_bytes(policy=policy.SMTP))  # CRLF line ends, as on the wire
        if code != 250:  # smtplib.data returns the final reply without checking it
            raise smtplib.SMTPDataError(code, reply)
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
        answer = f"{where(account)} answered {code} {' '.join(text.split())}"
        if accepted is not None:
            accepted(answer)
    return answer


def greet(account: Account, timeout: float) -> str:
    """`kept connect test smtp`: connect, TLS, log in; what the server said."""
    with _session(account, timeout, account.sender or "") as client:
        banner = " ".join((client.ehlo_resp or b"").decode("utf-8", "replace").split())[:200]
        tls = (
            "TLS"
            if account.implicit_tls or getattr(client, "sock", None) and isinstance(client.sock, ssl.SSLSocket)
            else "no TLS"
        )
        login = "logged in" if account.user and account.password else "no login"
    return f"{where(account)} answered: {banner} ({tls}, {login})"


@contextmanager
def _session(account: Account, timeout: float, to: str) -> Iterator[smtplib.SMTP]:
    """A connected, logged-in client, said goodbye to however the block ends; any failure,
    in connecting or in the block, becomes the one-line DeliveryProblem for ``to``."""
    try:
        client = _connect(account, timeout)
        try:
            yield client
        finally:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()
    except Exception as exc:
        raise smtp_problem(exc, where(account), to, timeout) from None
