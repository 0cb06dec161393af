"""The fact log: dated facts, every change an event, nothing overwritten."""

from __future__ import annotations

from memory import facts
from memory.db import transaction


def test_add_fact_dates_it_and_records_an_add_event(db):
    with transaction(db) as conn:
        fid = facts.add_fact(conn, "the Atlas launch moved to November 10.", "2026-10-07", [4, 2, 4])
    fact = facts.get(db, fid)
    assert fact.text == "2026-10-07: the Atlas launch moved to November 10."
    assert fact.said_on == "2026-10-07" and fact.status == facts.ACTIVE
    assert fact.source_ids == [2, 4]
    [event] = facts.events(db)
    assert (event.fact_id, event.event, event.old_text, event.new_text) == (fid, "ADD", None, fact.text)


def test_the_same_fact_said_the_same_day_is_stored_once(db):
    with transaction(db) as conn:
        a = facts.add_fact(conn, "The Atlas launch moved to November 10.", "2026-10-07", [1])
        b = facts.add_fact(conn, "2026-10-07: the atlas launch  moved to November 10", "2026-10-07", [3])
        c = facts.add_fact(conn, "The Atlas launch moved to November 10.", "2026-10-08", [5])
    assert a == b != c
    assert len(facts.by_status(db)) == 2
    assert [e.event for e in facts.events(db)] == ["ADD", "ADD"]


def test_update_supersedes_links_and_keeps_both_texts(db):
    with transaction(db) as conn:
        old = facts.add_fact(conn, "Atlas launch is November 10", "2026-10-07", [1])
        new = facts.update_fact(conn, old, "Atlas launch moved to November 17", "2026-10-09", [7])
    assert facts.get(db, old).status == facts.SUPERSEDED
    assert facts.get(db, new).replaces == old
    assert facts.replaced_by(db, old).id == new
    assert [f.id for f in facts.lineage(db, new)] == [old, new]
    update = facts.events(db)[0]
    assert update.event == "UPDATE" and update.fact_id == new
    assert update.old_text == "2026-10-07: Atlas launch is November 10"
    assert update.new_text == "2026-10-09: Atlas launch moved to November 17"


def test_delete_marks_deleted_with_an_event_and_keeps_the_row(db):
    with transaction(db) as conn:
        fid = facts.add_fact(conn, "Sam owns billing", "2026-10-07", [1])
        assert facts.delete_fact(conn, fid, "forgotten on request") is True
        assert facts.delete_fact(conn, fid, "again") is False
    assert facts.get(db, fid).status == facts.DELETED
    delete = facts.events(db)[0]
    assert (delete.event, delete.old_text, delete.reason) == (
        "DELETE",
        "2026-10-07: Sam owns billing",
        "forgotten on request",
    )
    assert len(facts.events(db)) == 2


def test_archive_over_bound_archives_the_least_recently_touched(db):
    with transaction(db) as conn:
        ids = [facts.add_fact(conn, f"fact number {i}", "2026-10-01", [i]) for i in range(6)]
        facts.touch(conn, [ids[0]], "2099-01-01T00:00:00.000+00:00")  # used last: must survive the bound
        archived = facts.archive_over_bound(conn, 4)
    assert archived == [ids[1], ids[2]]
    assert [f.id for f in facts.by_status(db, facts.ACTIVE)] == [ids[0]] + ids[3:]
    assert [f.id for f in facts.by_status(db, facts.ARCHIVED)] == [ids[1], ids[2]]
    assert [e.event for e in facts.events(db, 2)] == ["ARCHIVE", "ARCHIVE"]
    with transaction(db) as conn:
        assert facts.archive_over_bound(conn, 4) == []


def test_secrets_never_enter_the_fact_log(db):
    key = "sk-ant-" + "FAKEFAKEFAKEFAKE1234567890"
    with transaction(db) as conn:
        a = facts.add_fact(conn, f"the staging API key is {key}", "2026-10-07", [1])
        b = facts.update_fact(conn, a, "the db password: hunter2hunter2", "2026-10-08", [2])
    texts = (
        [f.text for f in facts.by_status(db)]
        + [e.old_text or "" for e in facts.events(db)]
        + [e.new_text or "" for e in facts.events(db)]
    )
    assert all(key not in t and "hunter2hunter2" not in t for t in texts)
    assert "[redacted secret]" in facts.get(db, b).text
