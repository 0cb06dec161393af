"""What went wrong talking to a server, as one line for the person and the model,
and whether trying again later can help.

Network trouble (refused, unreachable, timed out, a 5xx, a 4xx SMTP reply)
is worth a retry; a refused login, a missing calendar, a TLS certificate the
system does not trust or a 5xx SMTP rejection of the recipient is not: the
person has to fix something first, so those are "failed" until retried by hand.
"""

from __future__ import annotations

import errno
import smtplib
import socket
import ssl


class DeliveryProblem(Exception):
    def __init__(self, line: str, retry: bool, unreachable: bool = False):
        super().__init__(line)
        self.line = line
        self.retry = retry
        self.unreachable = unreachable  # the server could not be reached at all: its other items can wait


def _status_of(exc: BaseException) -> int | None:
    """An HTTP status carried by a caldav/niquests error, if any."""
    for attr in ("status", "status_code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip()[:3].isdigit():
            return int(value.strip()[:3])
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    if isinstance(code, int):
        return code
    reason = str(getattr(exc, "reason", "") or exc)
    for token in reason.replace("(", " ").replace(")", " ").split():
        if len(token) == 3 and token.isdigit() and token[0] in "45":
            return int(token)
    return None


def _chain(exc: BaseException | None):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _network(exc: BaseException, where: str, timeout: float) -> DeliveryProblem | None:
    for link in _chain(exc):
        text = str(link)
        if isinstance(link, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in text:
            reason = getattr(link, "verify_message", None) or "certificate verify failed"
            return DeliveryProblem(
                f"TLS error with {where}: {reason} (the server's certificate is not trusted "
                "by this system); fix the server's certificate or the URL",
                retry=False,
            )
        if isinstance(link, ssl.SSLError) or "SSL" in type(link).__name__ or "WRONG_VERSION_NUMBER" in text:
            return DeliveryProblem(
                f"TLS error with {where}: {getattr(link, 'reason', None) or text[:120]} "
                "(is the port right for TLS? smtps:// is TLS from the start, smtp:// uses STARTTLS)",
                retry=False,
            )
        if (
            isinstance(link, ConnectionRefusedError)
            or getattr(link, "errno", None) == errno.ECONNREFUSED
            or "Connection refused" in text
            or "ConnectionRefused" in text
        ):
            return DeliveryProblem(
                f"could not connect to {where}: connection refused (is the server running?)",
                retry=True,
                unreachable=True,
            )
        if (
            isinstance(link, (socket.timeout, TimeoutError))
            or "timed out" in text.lower()
            or "Timeout" in type(link).__name__
        ):
            return DeliveryProblem(f"{where} did not answer within {timeout:g} s", retry=True, unreachable=True)
        if (
            isinstance(link, socket.gaierror)
            or "Name or service not known" in text
            or "nodename nor servname" in text
            or "Failed to resolve" in text
        ):
            return DeliveryProblem(f"cannot find the server {where} (no such host name)", retry=True, unreachable=True)
        if (
            isinstance(link, (ConnectionResetError, BrokenPipeError, smtplib.SMTPServerDisconnected))
            or "RemoteDisconnected" in type(link).__name__
            or "Connection aborted" in text
            or "connection closed" in text.lower()
        ):
            return DeliveryProblem(f"{where} closed the connection before the item was accepted", retry=True)
        if isinstance(link, OSError) and getattr(link, "errno", None) in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return DeliveryProblem(f"cannot reach {where} (network unreachable)", retry=True, unreachable=True)
    return None


def smtp_problem(exc: BaseException, where: str, recipient: str, timeout: float) -> DeliveryProblem:
    if isinstance(exc, DeliveryProblem):
        return exc
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return DeliveryProblem(
            f"{where} refused the login ({exc.smtp_code} {_text(exc.smtp_error)}); check the user and "
            "password with `kept connect test smtp`",
            retry=False,
        )
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, message = next(iter(exc.recipients.values()), (0, b""))
        return DeliveryProblem(
            f"{where} refused the recipient {recipient} ({code} {_text(message)})", retry=400 <= code < 500
        )
    if isinstance(exc, (smtplib.SMTPSenderRefused, smtplib.SMTPDataError)):
        code = exc.smtp_code
        what = "the sender address" if isinstance(exc, smtplib.SMTPSenderRefused) else "the message"
        return DeliveryProblem(f"{where} refused {what} ({code} {_text(exc.smtp_error)})", retry=400 <= code < 500)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return DeliveryProblem(f"{where}: {exc}", retry=False)
    if isinstance(exc, smtplib.SMTPResponseException):
        code = exc.smtp_code
        return DeliveryProblem(f"{where} answered {code} {_text(exc.smtp_error)}", retry=code < 500)
    found = _network(exc, where, timeout)
    if found:
        return found
    return DeliveryProblem(f"sending to {where} failed: {type(exc).__name__}: {str(exc)[:160]}", retry=True)


def caldav_problem(exc: BaseException, where: str, timeout: float) -> DeliveryProblem:
    if isinstance(exc, DeliveryProblem):
        return exc
    found = _network(exc, where, timeout)
    if found:
        return found
    status = _status_of(exc)
    name = type(exc).__name__
    if status == 401 or name == "AuthorizationError" and status is None:
        return DeliveryProblem(
            f"{where} refused the login (401); check the user and password with `kept connect test caldav`", retry=False
        )
    if status == 403:
        return DeliveryProblem(f"{where} refused access (403 forbidden); this account may not write there", retry=False)
    if status == 404 or name == "NotFoundError":
        return DeliveryProblem(
            f"{where}: no calendar at that address (404); check the URL or KEPT_CALDAV_CALENDAR "
            "with `kept connect test caldav`",
            retry=False,
        )
    if status is not None and status >= 500:
        return DeliveryProblem(f"{where} had a server error ({status}); it will be tried again", retry=True)
    if status == 429:
        return DeliveryProblem(f"{where} is rate-limiting (429); it will be tried again", retry=True)
    return DeliveryProblem(f"the calendar server {where} failed: {name}: {str(exc)[:160]}", retry=True)


def _text(value) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return " ".join(str(value).split())[:160]
