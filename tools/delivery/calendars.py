"""Events and tasks on the person's CalDAV server (RFC 4791), with the
``caldav`` client and ``icalendar`` for what the server sends back.

Each object is PUT at the address its UID names (the caldav library makes
the URL from the UID) and the UID is kept's, made once: a retried PUT
replaces the same object, it never adds a second one. A delete of an object
that is already gone counts as done.

``KEPT_CALDAV_URL`` may be the server, the person's principal or one
calendar: kept asks the server for the principal's calendars and picks the
one named by the account, the one the URL points at, or the first that
holds events. Tasks go to that calendar when it takes VTODO, else to the
first one that does.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from tools import ics
from tools.delivery.accounts import Account
from tools.delivery.problems import DeliveryProblem, caldav_problem
from tools.lists import CANCELLED, Event, Task


class CalendarServer:
    def __init__(self, account: Account, timeout: float):
        self.account = account
        self.timeout = timeout
        self._client = None
        self._calendars: list | None = None
        self._chosen = None

    @property
    def where(self) -> str:
        parts = urlsplit(self.account.url)
        return f"the calendar server {parts.hostname}" + (f":{parts.port}" if parts.port else "")

    def _call(self, fn):
        try:
            return fn()
        except DeliveryProblem:
            raise
        except Exception as exc:
            raise caldav_problem(exc, self.where, self.timeout) from None

    # --- discovery ----------------------------------------------------------

    def client(self):
        if self._client is None:
            import caldav

            self._client = caldav.DAVClient(
                url=self.account.url,
                username=self.account.user,
                password=self.account.password,
                timeout=self.timeout,
                enable_rfc6764=False,
            )
        return self._client

    def calendars(self) -> list:
        if self._calendars is None:

            def find():
                return list(self.client().principal().calendars())

            self._calendars = self._call(find)
        return self._calendars

    def _components(self, calendar) -> list[str]:
        try:
            return list(calendar.get_supported_components())
        except Exception:
            return ["VEVENT", "VTODO"]  # a server that does not say takes both, as the RFC's default

    def calendar(self):
        """The calendar events go to (and are read from)."""
        if self._chosen is not None:
            return self._chosen
        found = self.calendars()
        if not found:
            raise DeliveryProblem(
                f"{self.where} has no calendar for user {self.account.user or '(none)'}; "
                "make one in your calendar app, then `kept connect test caldav`",
                retry=False,
            )
        wanted = self.account.calendar
        if wanted:
            match = [c for c in found if wanted in (self._name(c), _tail(c.url))]
            if not match:
                names = ", ".join(self._name(c) for c in found)
                raise DeliveryProblem(
                    f"{self.where} has no calendar called {wanted!r} (it has: {names}); "
                    "check KEPT_CALDAV_CALENDAR or `kept connect caldav --calendar`",
                    retry=False,
                )
            self._chosen = match[0]
            return self._chosen
        target = str(self.account.url).rstrip("/")
        match = [c for c in found if str(c.url).rstrip("/") == target]
        self._chosen = match[0] if match else next((c for c in found if "VEVENT" in self._components(c)), found[0])
        return self._chosen

    def task_calendar(self):
        chosen = self.calendar()
        if "VTODO" in self._components(chosen):
            return chosen
        for candidate in self.calendars():
            if "VTODO" in self._components(candidate):
                return candidate
        raise DeliveryProblem(
            f"no calendar on {self.where} takes tasks (VTODO); make one that does, or tasks stay in kept only",
            retry=False,
        )

    @staticmethod
    def _name(calendar) -> str:
        try:
            return calendar.get_display_name() or _tail(calendar.url)
        except Exception:
            return _tail(calendar.url)

    # --- writing ------------------------------------------------------------

    def put_event(self, event: Event, stamp: datetime) -> str:
        if event.status == CANCELLED:
            return self.delete(event.uid)
        text = ics.wrap(ics.event_lines(event, stamp))
        calendar = self.calendar()
        self._call(lambda: calendar.add_event(text, increase_seqno=False))
        return f"{self.where} stored it in calendar {self._name(calendar)!r}"

    def put_todo(self, task: Task, stamp: datetime) -> str:
        text = ics.wrap(ics.todo_lines(task, stamp))
        calendar = self.task_calendar()
        self._call(lambda: calendar.add_todo(text, increase_seqno=False))
        return f"{self.where} stored the task in calendar {self._name(calendar)!r}"

    def delete(self, uid: str) -> str:
        calendar = self.calendar()

        def remove():
            from caldav.lib.error import NotFoundError

            try:
                calendar.object_by_uid(uid).delete()
            except NotFoundError:
                return f"{self.where} no longer has it in calendar {self._name(calendar)!r}"
            return f"{self.where} deleted it from calendar {self._name(calendar)!r}"

        return self._call(remove)

    # --- reading ------------------------------------------------------------

    def events(self, start: datetime, end: datetime, tz: ZoneInfo) -> list[Event]:
        """Events on the server overlapping [start, end), repeats expanded, as unsaved ``Event``s (id 0)."""
        calendar = self.calendar()
        found = self._call(lambda: calendar.search(start=start, end=end, event=True, expand=True))
        out = []
        for obj in found:
            try:  # one odd object (a broken date, an unknown type) must not hide the rest
                event = ics.event_from_component(obj.icalendar_component, tz, origin="server")
            except Exception:
                continue
            if event is not None and event.end > start and event.start < end:
                out.append(event)
        return sorted(out, key=lambda e: (e.start, e.title))

    def describe(self) -> str:
        """`kept connect test caldav`: what the server has."""
        rows = []
        for calendar in self.calendars():
            parts = self._components(calendar)
            rows.append(
                f"{self._name(calendar)!r} ({', '.join(p for p in parts if p in ('VEVENT', 'VTODO')) or 'no events'})"
            )
        chosen = self.calendar()
        try:
            tasks = f"tasks go to {self._name(self.task_calendar())!r}"
        except DeliveryProblem:
            tasks = "no calendar takes tasks (VTODO)"
        return f"{self.where} has {len(rows)} calendar(s): {'; '.join(rows)}. Events go to {self._name(chosen)!r}; {tasks}."


def _tail(url) -> str:
    return str(url).rstrip("/").rsplit("/", 1)[-1]
