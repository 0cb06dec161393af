"""Delivery kill trials: SIGKILL `kept outbox retry` at a random moment while
it delivers email (aiosmtpd) and events and tasks (Radicale), run it again,
and count what the servers received.

Each trial seeds a fresh store with queued items (emails, events, one of
them cancelled after it was queued, and tasks), starts the real `kept`
command in a subprocess, kills it after a random delay drawn over the time a
whole run takes, then runs it again to completion. Afterwards:

- lost: an email whose Message-ID the SMTP server never received, an event
  or task missing from the calendar, or a cancelled event still there;
- duplicated: a calendar object stored twice, or an email received under a
  second, different Message-ID (a second message a reader would see twice);
- re-sent: an email received twice under its one Message-ID. SMTP cannot
  tell a client whether a message it accepted just before the client died
  arrived, so a kill in the instant between the server's "250" and kept's
  own record resends it, with the same Message-ID, which receiving systems
  recognise as the same message. This is at-least-once by design; the
  figure says how often the window was hit;
- not delivered: an item still not 'delivered' in kept's record.

`kept bench delivery` prints the figures (100 trials by default);
tests/faults/test_delivery_faults.py runs 10 in CI.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.bench import harness
from evals.bench.servers import CaldavServer, SmtpServer

EMAILS, EVENTS, TASKS = 6, 4, 2


@dataclass
class Tally:
    trials: int = 0
    items: int = 0
    kills: Counter = field(default_factory=Counter)  # before any delivery / mid-delivery / after the last
    lost: int = 0
    duplicated: int = 0
    resent_same_id: int = 0
    not_delivered: int = 0
    unclean_outputs: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.not_delivered or self.unclean_outputs)


def _env(home: Path, smtp: SmtpServer, caldav: CaldavServer, calendar: str) -> dict[str, str]:
    return harness.kept_env(
        home,
        KEPT_SMTP_URL=smtp.url,
        KEPT_SMTP_FROM="ana@example.org",
        KEPT_CALDAV_URL=caldav.url,
        KEPT_CALDAV_USER=caldav.user,
        KEPT_CALDAV_PASSWORD=caldav.password,
        KEPT_CALDAV_CALENDAR=calendar,
        KEPT_DELIVERY_TIMEOUT="10",
    )


def seed(home: Path, trial: int) -> dict[str, list[str]]:
    """Queued items as kept writes them when accounts are connected; returns their ids by kind."""
    from agent.session import open_store
    from tools import lists

    db = open_store(home / "kept.db")
    now = datetime.now(UTC)
    ids: dict[str, list[str]] = {"emails": [], "events": [], "cancelled": [], "tasks": []}
    for i in range(EMAILS):
        m = lists.add_outbox(
            db,
            recipient=f"person{i}@example.com",
            body=f"trial {trial} message {i}",
            now=now,
            channel="email",
            subject=f"t{trial}-{i}",
            delivery=lists.PENDING,
            domain="example.org",
        )
        assert m.message_uid is not None  # add_outbox writes one
        ids["emails"].append(m.message_uid)
    for i in range(EVENTS):
        start = now + timedelta(days=1, hours=i)
        e = lists.add_event(
            db,
            title=f"trial {trial} event {i}",
            start=start,
            end=start + timedelta(minutes=30),
            now=now,
            attendees=["sam@example.com"],
            delivery=lists.PENDING,
        )
        if i == 0:
            lists.cancel_event(db, e.id, now)
            ids["cancelled"].append(e.uid)
        else:
            ids["events"].append(e.uid)
    for i in range(TASKS):
        t = lists.add_task(db, assignee="Sam", title=f"trial {trial} task {i}", now=now, delivery=lists.PENDING)
        assert t.uid is not None  # add_task writes one
        ids["tasks"].append(t.uid)
    db.conn.close()
    return ids


def _delivered_count(home: Path) -> int:
    return harness.query(home, "SELECT COUNT(*) FROM deliveries WHERE state = 'delivered'")[0][0]


def calibrate(workdir: Path, smtp: SmtpServer, caldav: CaldavServer) -> tuple[float, float]:
    """When, after `kept outbox retry` starts, the first item is delivered and the run ends (seconds).

    Kills are drawn over that window, so they land while items are being delivered, not while
    Python is still importing.
    """
    home = workdir / "calibrate"
    caldav.make_calendar("calibrate")  # the calendar must exist before a run delivers to it
    seed(home, -1)
    started = time.monotonic()
    proc = harness.spawn_kept("outbox", "retry", home=home, env=_env(home, smtp, caldav, "calibrate"))
    first = None
    while proc.poll() is None:
        if first is None and _delivered_count(home) > 0:
            first = time.monotonic() - started
        time.sleep(0.02)
    proc.communicate()
    end = time.monotonic() - started
    return (first or end), end


def trial(
    n: int,
    workdir: Path,
    smtp: SmtpServer,
    caldav: CaldavServer,
    rng: random.Random,
    span: tuple[float, float],
    tally: Tally,
) -> None:
    home = workdir / f"trial-{n}"
    calendar = f"trial-{n}"
    caldav.make_calendar(calendar)
    ids = seed(home, n)
    total = EMAILS + EVENTS + TASKS
    tally.items += total
    env = _env(home, smtp, caldav, calendar)
    proc = harness.spawn_kept("outbox", "retry", home=home, env=env)
    first, end = span
    if rng.random() < 0.2:  # now and then, during start-up and the first item
        time.sleep(rng.uniform(0, first + 0.1))
    else:
        # Start-up time varies with the machine's load: wait for the first delivery, then kill
        # at a moment drawn over the time the rest takes.
        while proc.poll() is None and _delivered_count(home) == 0:
            time.sleep(0.02)  # each look opens the file: looking faster would slow kept down
        time.sleep(rng.uniform(0, max(0.05, end - first)))
    killed = harness.sigkill(proc)
    if proc.poll() is None:
        proc.wait()
    done_before = _delivered_count(home)
    tally.kills[
        "exited before the kill"
        if not killed
        else "before any delivery"
        if done_before == 0
        else "after the last delivery"
        if done_before >= total
        else "mid-delivery"
    ] += 1
    for _ in range(3):  # a run after a crash; a second one only if the first left something due
        after = harness.run_kept("outbox", "retry", home=home, env=env, timeout=120)
        problem = harness.person_error(after)
        if problem and after.returncode not in (0, 1):
            tally.unclean_outputs += 1
            tally.problems.append(f"trial {n}: {problem[:300]}")
        if "Traceback" in after.stderr:
            tally.unclean_outputs += 1
            tally.problems.append(f"trial {n}: traceback: {after.stderr[-300:]}")
        if _delivered_count(home) >= total:
            break
    _count(n, ids, smtp, caldav, calendar, home, tally)
    tally.trials += 1


def _count(n, ids, smtp, caldav, calendar, home, tally: Tally) -> None:
    received = Counter(i for i in smtp.message_ids() if i in set(ids["emails"]))
    subjects = Counter(
        str(m.message["Subject"]) for m in list(smtp.messages) if str(m.message["Subject"]).startswith(f"t{n}-")
    )
    for uid in ids["emails"]:
        if received[uid] == 0:
            tally.lost += 1
            tally.problems.append(f"trial {n}: email {uid} never reached the server")
        tally.resent_same_id += max(0, received[uid] - 1)
    # A second Message-ID for one message would show as more copies of a subject than of its ids.
    tally.duplicated += max(0, sum(subjects.values()) - sum(received.values()))
    events = Counter(caldav.uids(calendar))
    todos = Counter(caldav.uids(calendar, todo=True))
    for uid in ids["events"]:
        if events[uid] == 0:
            tally.lost += 1
            tally.problems.append(f"trial {n}: event {uid} missing from the calendar")
        tally.duplicated += max(0, events[uid] - 1)
    for uid in ids["cancelled"]:
        if events[uid]:
            tally.lost += 1  # the cancel was lost
            tally.problems.append(f"trial {n}: cancelled event {uid} still on the calendar")
    for uid in ids["tasks"]:
        if todos[uid] == 0:
            tally.lost += 1
            tally.problems.append(f"trial {n}: task {uid} missing from the calendar")
        tally.duplicated += max(0, todos[uid] - 1)
    extra = set(events) - set(ids["events"]) - set(ids["cancelled"])
    tally.duplicated += len(extra)
    left = harness.query(home, "SELECT kind, item_id, state, last_error FROM deliveries WHERE state != 'delivered'")
    tally.not_delivered += len(left)
    for kind, item, state, error in left:
        tally.problems.append(f"trial {n}: {kind} {item} is {state}: {error}")


def run(trials: int = 100, seed_value: int = 1, *, workdir: Path | None = None, progress=None) -> Tally:
    rng = random.Random(seed_value)
    tally = Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kept-delivery-") as tmp:
        root = Path(workdir or tmp)
        with SmtpServer() as smtp, CaldavServer(root / "radicale") as caldav:
            span = calibrate(root, smtp, caldav)
            for n in range(trials):
                trial(n, root, smtp, caldav, rng, span, tally)
                if progress:
                    progress(n + 1, trials, tally)
    tally.seconds = time.monotonic() - started
    return tally


def report(tally: Tally) -> str:
    kills = ", ".join(f"{k} {v}" for k, v in sorted(tally.kills.items()))
    lines = [
        f"Delivery kill trials: {tally.trials} trials, {tally.items} items "
        f"({EMAILS} emails, {EVENTS} events of which 1 cancelled, {TASKS} tasks per trial), {tally.seconds:.0f} s",
        f"  where the kill landed: {kills}",
        f"  lost: {tally.lost}",
        f"  duplicated (a second calendar object, or a second Message-ID): {tally.duplicated}",
        f"  emails re-sent under their one Message-ID (killed between the server's 250 and kept's record): "
        f"{tally.resent_same_id}",
        f"  items not delivered at the end: {tally.not_delivered}",
        f"  runs with a traceback or an unclear error: {tally.unclean_outputs}",
    ]
    lines += [f"  ! {p}" for p in tally.problems[:20]]
    return "\n".join(lines)


def as_json(tally: Tally) -> dict:
    data = asdict(tally)
    data["kills"] = dict(tally.kills)
    data["clean"] = tally.clean
    return data
