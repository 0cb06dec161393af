"""The host's clock and time zone: a TZ in any form a host uses never stops kept,
and a clock that was ahead never stops memory passes for good."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.faults.checks import assert_clean

BERLIN = ZoneInfo("Europe/Berlin")
# A summer and a winter moment, to see that a rule's DST is applied.
JULY = datetime(2026, 7, 1, 12, 0, tzinfo=ZoneInfo("UTC"))
JANUARY = datetime(2026, 1, 15, 12, 0, tzinfo=ZoneInfo("UTC"))


@pytest.fixture(autouse=True)
def _c_library_zone_restored():
    """HostRuleZone makes the C library reread TZ; put it back for the tests after these."""
    import os
    import time

    before = os.environ.get("TZ")
    yield
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


HOST_FORMS = {
    ":/etc/localtime": None,  # whatever the host's file says
    "UTC0": (0, 0),
    ":Europe/Berlin": (2, 1),
    "Europe/Berlin": (2, 1),
    "EST5EDT,M3.2.0,M11.1.0": (-4, -5),
    "CET-1CEST,M3.5.0,M10.5.0/3": (2, 1),
    "JST-9": (9, 9),
}


@pytest.mark.parametrize("tz", list(HOST_FORMS))
def test_a_posix_tz_of_the_host_is_understood(monkeypatch, tz):
    from agent import config

    monkeypatch.delenv("KEPT_TZ", raising=False)
    monkeypatch.setenv("TZ", tz)
    notices = []
    zone = config.timezone(config.load(), notice=notices.append)
    assert notices == []
    offsets = HOST_FORMS[tz]
    if offsets is not None:
        summer, winter = (JULY.astimezone(zone).utcoffset(), JANUARY.astimezone(zone).utcoffset())
        assert (summer, winter) == (timedelta(hours=offsets[0]), timedelta(hours=offsets[1])), (summer, winter)


@pytest.mark.parametrize("tz", ["Mars/Olympus_Mons", ":/no/such/zone/file", "garbage,,,"])
def test_a_tz_kept_cannot_read_falls_back_to_etc_localtime_with_one_line(monkeypatch, tz):
    from agent import config

    monkeypatch.delenv("KEPT_TZ", raising=False)
    monkeypatch.setenv("TZ", tz)
    notices = []
    zone = config.timezone(config.load(), notice=notices.append)
    assert zone is not None and datetime.now(zone).utcoffset() is not None
    assert len(notices) == 1 and tz in notices[0] and "/etc/localtime" in notices[0], notices


@pytest.mark.parametrize("tz", ["EST5EDT,M3.2.0,M11.1.0", ":/etc/localtime", "Mars/Olympus_Mons"])
def test_kept_starts_under_any_host_tz(kept, server, tz):
    server.reply_text("ok")
    proc = kept("ask", "hello", TZ=tz, KEPT_TZ="")
    assert_clean(proc)
    assert proc.returncode == 0, proc.stderr


def test_a_time_zone_given_to_kept_itself_that_is_wrong_is_still_refused(monkeypatch):
    from agent import config

    monkeypatch.setenv("KEPT_TZ", "Mars/Olympus_Mons")
    with pytest.raises(config.ConfigError, match="Mars/Olympus_Mons"):
        config.timezone(config.load())


def test_a_last_pass_dated_in_the_future_counts_as_now_and_passes_resume(db, caplog):
    from memory import messages as store
    from memory import state, writer

    now = datetime(2026, 10, 6, 10, 0, tzinfo=BERLIN)
    chat = store.get_chat(db)
    for i in range(10):
        store.add_message(db, chat, "user" if i % 2 == 0 else "assistant", "me", f"turn {i}", now)
    state.put(db, writer.LAST_PASS, (now + timedelta(days=400)).isoformat())  # a clock that was a year ahead
    schedule = writer.Schedule(every_turns=4, min_user_turns=2, min_hours=3)
    with caplog.at_level("WARNING", logger="kept.memory"):
        ok, why = writer.due(db, schedule, now)
    assert not ok  # it counts as a pass just now
    assert [r for r in caplog.records if "future" in r.getMessage()], "no notice"
    # ...so passes resume once min_hours have passed, instead of in 400 days.
    assert writer.due(db, schedule, now + timedelta(hours=3, minutes=1))[0]
