"""Delivery: what kept books and sends reaches the person's own accounts.

The local store stays the record; delivery is a queue beside it
(``tools.lists`` deliveries table). An item is written with its delivery
row in one transaction (``pending`` when an account is configured, ``local``
when not), then an attempt claims it, talks to the server and records the
outcome: ``delivered`` with the server's reply, ``pending`` with the error
and the next retry when a retry can help, ``failed`` when the person must
fix something first. A crash anywhere leaves the row pending, and the retry
carries the same Message-ID / UID, so nothing is lost and the server sees
one item, never two.

Slow imports (caldav, keyring) load on first use.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tools import lists
from tools.delivery.accounts import CALDAV, SMTP, Account, AccountError, scrub
from tools.delivery.problems import DeliveryProblem

DEFAULT_TIMEOUT = 20.0
MAX_ATTEMPTS = 12
FIRST_BACKOFF = 30.0  # seconds; doubled per attempt, capped at MAX_BACKOFF
MAX_BACKOFF = 6 * 3600.0

CONNECT_MAIL = "kept connect smtp smtp://USER@HOST:587 --from YOUR@ADDRESS"
CONNECT_CALENDAR = "kept connect caldav https://HOST/dav/ --user NAME"

__all__ = ["Deliverer", "AccountError", "DeliveryProblem", "CONNECT_MAIL", "CONNECT_CALENDAR"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def timeout_from_env() -> float:
    raw = os.environ.get("KEPT_DELIVERY_TIMEOUT")
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise AccountError(f"KEPT_DELIVERY_TIMEOUT={raw!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise AccountError(f"KEPT_DELIVERY_TIMEOUT={raw!r} must be between 0 and 600 seconds")
    return value


class Deliverer:
    """Sends queued items to the configured accounts. ``accounts`` maps 'caldav'/'smtp' to an Account."""

    def __init__(
        self,
        accounts: dict[str, Account] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        problem: str | None = None,
    ):
        self.accounts = dict(accounts or {})
        self.timeout = timeout
        self.owner = os.getpid()
        # A configuration that could not be read: items stay local and every result says why.
        self.problem = problem
        self._server = None
        self._unreachable: set[str] = set()  # accounts that could not be reached in this run

    @classmethod
    def from_home(cls, home: Path) -> Deliverer:
        """The accounts from the environment and ``home``; a malformed one becomes ``problem``, not a crash."""
        try:
            return cls(_load(home), timeout=timeout_from_env())
        except AccountError as exc:
            return cls({}, problem=str(exc))

    @property
    def mail(self) -> Account | None:
        return self.accounts.get(SMTP)

    @property
    def calendar(self) -> Account | None:
        return self.accounts.get(CALDAV)

    def server(self):
        if self._server is None and self.calendar is not None:
            from tools.delivery.calendars import CalendarServer

            self._server = CalendarServer(self.calendar, self.timeout)
        return self._server

    def _secrets(self) -> list[str | None]:
        return [a.password for a in self.accounts.values()]

    # --- what a new item starts as ------------------------------------------

    def message_state(self, channel: str, recipient: str) -> tuple[str, str | None]:
        """(state, why it stays local) for a new outbox row."""
        if channel != "email":
            return lists.LOCAL, (
                f"kept has no {channel} connection; only email is delivered (give an email address and channel 'email')"
            )
        if "@" not in recipient or " " in recipient.strip():
            return lists.LOCAL, f"{recipient!r} is not an email address; send to an address to deliver it"
        if self.mail is None:
            return lists.LOCAL, self._not_connected("email", CONNECT_MAIL)
        return lists.PENDING, None

    def calendar_state(self) -> tuple[str, str | None]:
        if self.calendar is None:
            return lists.LOCAL, self._not_connected("calendar", CONNECT_CALENDAR)
        return lists.PENDING, None

    def _not_connected(self, what: str, how: str) -> str:
        if self.problem:
            return f"the {what} account cannot be used ({self.problem})"
        return f"no {what} account is connected; connect one with `{how}`"

    # --- attempts -----------------------------------------------------------

    def deliver(self, db, kind: str, item_id: int, now: datetime | None = None) -> lists.Delivery | None:
        """One attempt at one item (if it is waiting and no other live process holds it)."""
        now = now or datetime.now(UTC)
        lease = 2 * self.timeout + 30  # longer than any one attempt can take
        if not lists.claim_delivery(db, kind, item_id, now, lease_seconds=lease, owner=self.owner, alive=_alive):
            return lists.delivery_of(db, kind, item_id)
        recorded: list[lists.Delivery] = []

        def delivered(reply: str) -> lists.Delivery:
            return lists.finish_delivery(
                db,
                kind,
                item_id,
                datetime.now(UTC),
                owner=self.owner,
                state=lists.DELIVERED,
                reply=scrub(reply, *self._secrets()),
            )

        def accepted(reply: str) -> None:  # the server has it: say so before anything else can fail
            recorded.append(delivered(reply))

        try:
            reply = self._attempt(db, kind, item_id, accepted)
        except DeliveryProblem as problem:
            if recorded:  # only the goodbye after the server took it failed
                return recorded[0]
            return self._failed(db, kind, item_id, problem)
        except Exception as exc:  # a bug or an unforeseen library error: keep the item, say what it was
            if recorded:
                return recorded[0]
            return self._failed(
                db,
                kind,
                item_id,
                DeliveryProblem(f"delivery failed: {type(exc).__name__}: {str(exc)[:160]}", retry=True),
            )
        return recorded[0] if recorded else delivered(reply)

    def _failed(self, db, kind: str, item_id: int, problem: DeliveryProblem) -> lists.Delivery:
        if problem.unreachable:
            self._unreachable.add(SMTP if kind == lists.MESSAGE else CALDAV)
        now = datetime.now(UTC)
        current = lists.delivery_of(db, kind, item_id)
        attempts = current.attempts if current else 1
        line = scrub(problem.line, *self._secrets())
        if problem.retry and attempts < MAX_ATTEMPTS:
            wait = min(FIRST_BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF)
            return lists.finish_delivery(
                db,
                kind,
                item_id,
                now,
                owner=self.owner,
                state=lists.PENDING,
                error=line,
                next_retry=now + timedelta(seconds=wait),
            )
        if problem.retry:
            line += f" (gave up after {attempts} attempts)"
        return lists.finish_delivery(db, kind, item_id, now, owner=self.owner, state=lists.FAILED, error=line)

    def _attempt(self, db, kind: str, item_id: int, accepted) -> str:
        stamp = datetime.now(UTC)
        if kind == lists.MESSAGE:
            message = lists.get_outbox(db, item_id)
            assert message is not None  # a delivery row is written with its item, and outbox rows are never deleted
            state, why = self.message_state(message.channel, message.recipient)
            if state != lists.PENDING:
                assert why is not None  # message_state says why whenever it keeps a message local
                raise DeliveryProblem(why, retry=False)
            assert self.mail is not None  # message_state queues a message only with an email account
            assert message.message_uid is not None  # add_outbox makes one for every new row; m002 filled older ones
            from tools.delivery import smtp

            email = smtp.build(
                self.mail,
                to=message.recipient,
                subject=message.subject,
                body=message.body,
                message_uid=message.message_uid,
                date=message.sent_at,
            )
            return smtp.send(self.mail, email, self.timeout, accepted)
        server = self.server()
        if server is None:
            raise DeliveryProblem(self._not_connected("calendar", CONNECT_CALENDAR), retry=False)
        if kind == lists.EVENT:
            return server.put_event(lists.get_event(db, item_id), stamp)
        if kind == lists.TASK:
            return server.put_todo(lists.get_task(db, item_id), stamp)
        raise ValueError(kind)

    def run_due(
        self, db, now: datetime | None = None, *, include_failed: bool = False, progress=None
    ) -> list[lists.Delivery]:
        """Attempt every waiting item once (failed ones too with ``include_failed``).

        After a server refuses a connection or times out, the rest of that
        server's items wait for the next run instead of each waiting out the timeout.
        """
        now = now or datetime.now(UTC)
        self._unreachable.clear()
        done = []
        for item in lists.due_deliveries(db, None if include_failed else now, include_failed=include_failed):
            target = SMTP if item.kind == lists.MESSAGE else CALDAV
            if target in self._unreachable or target not in self.accounts:  # it waits for the next run
                continue
            result = self.deliver(db, item.kind, item.item_id, now)
            if result is not None:
                done.append(result)
                if progress:
                    progress(result)
        return done

    # --- reading the server's calendar ---------------------------------------

    def server_events(self, start: datetime, end: datetime, tz) -> tuple[list[lists.Event], str | None]:
        """Events on the calendar server in [start, end) that kept did not book: (events, why none were read)."""
        server = self.server()
        if server is None:
            return [], None
        try:
            found = server.events(start, end, tz)
        except DeliveryProblem as problem:
            return [], scrub(problem.line, *self._secrets())
        return found, None


def _load(home: Path) -> dict[str, Account]:
    from tools.delivery import accounts

    return accounts.load(home)


def outcome(delivery: lists.Delivery | None, tz, *, why_local: str | None = None) -> tuple[str, str]:
    """(a status word, one line saying what happened) for a tool result.

    'sent' the server took it; 'queued' kept tries again (when, and why not yet);
    'recorded' kept only, and why; 'failed' what the person must fix first.
    """
    if delivery is None or delivery.state == lists.LOCAL:
        return "recorded", f"recorded in kept only, not delivered: {why_local or 'no account is connected'}"
    if delivery.state == lists.DELIVERED:
        return "sent", f"delivered: {delivery.reply}"
    if delivery.state == lists.PENDING:
        retry = delivery.next_retry.astimezone(tz).strftime("%Y-%m-%d %H:%M") if delivery.next_retry else "soon"
        what = f"not delivered yet: {delivery.last_error}" if delivery.last_error else "queued for delivery"
        return "queued", f"{what}; kept keeps it and tries again at {retry} (or now with `kept outbox retry`)"
    return "failed", (
        f"not delivered: {delivery.last_error}. It is kept in kept's record; once that is fixed, "
        "`kept outbox retry` tries again"
    )


def deliver_now(ctx, kind: str, item_id: int, state: str, why_local: str | None) -> tuple[str, str]:
    """A tool's new item: one attempt now when it is queued; (status word, one line) for the result."""
    record = ctx.deliverer().deliver(ctx.db, kind, item_id) if state == lists.PENDING else None
    return outcome(record, ctx.tz, why_local=why_local)


def deliver_change(ctx, kind: str, item_id: int, why_local: str) -> tuple[str, str]:
    """After a cancel or a completion: the server hears of it when the item went (or was going) there."""
    queued = lists.delivery_of(ctx.db, kind, item_id)
    state = lists.LOCAL if queued is None or queued.state == lists.LOCAL else lists.PENDING
    return deliver_now(ctx, kind, item_id, state, why_local)
