"""The delivery queue itself: the migration of an older store, claims and leases,
and an attempt for an old state recording nothing after the item changed."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta

from memory.db import apply_migrations, connect, migrate
from tools import lists

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEAD_PID = 2**22 + 12345  # above the usual pid_max: no process has it


def test_an_older_store_gets_message_ids_and_task_uids_once(tmp_path):
    import sqlite_utils

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(connect(path))
    migrate(db, ())  # the bookkeeping table
    apply_migrations(db, lists.MIGRATION_SET, lists.MIGRATIONS[:1])  # a store written before delivery existed
    for name in ("Sam", "Lee"):
        db.conn.execute(
            "INSERT INTO outbox (recipient, recipient_key, channel, body, sent_at) VALUES (?, ?, 'chat', 'hi', ?)",
            (name, name.lower(), lists.utc(NOW)),
        )
        db.conn.execute(
            "INSERT INTO tasks (assignee, assignee_key, title, status, created_at) VALUES (?, ?, 't', 'open', ?)",
            (name, name.lower(), lists.utc(NOW)),
        )
    apply_migrations(db, lists.MIGRATION_SET, lists.MIGRATIONS)
    messages = lists.outbox(db)
    assert len({m.message_uid for m in messages}) == 2 and all(m.message_uid.endswith("@kept>") for m in messages)
    assert len({t.uid for t in lists.tasks(db)}) == 2
    assert lists.deliveries(db, lists.MESSAGE) == {}  # old rows were local: no queue entry, shown as local
    assert lists.has_sent_to(db, "sam", "chat") and not lists.has_sent_to(db, "sam", "email")


def test_a_live_claim_blocks_a_dead_one_does_not(db):
    m = lists.add_outbox(db, recipient="a@example.com", body="x", now=NOW, channel="email", delivery=lists.PENDING)
    alive = lambda pid: pid != DEAD_PID
    assert lists.claim_delivery(db, lists.MESSAGE, m.id, NOW, lease_seconds=60, owner=DEAD_PID, alive=alive)
    # The claimer died mid-attempt: its claim is void at once.
    assert lists.claim_delivery(db, lists.MESSAGE, m.id, NOW, lease_seconds=60, owner=os.getpid(), alive=alive)
    # A live holder (this process, in another thread) keeps it until the lease ends.
    assert not lists.claim_delivery(db, lists.MESSAGE, m.id, NOW, lease_seconds=60, owner=os.getpid(), alive=alive)
    later = NOW + timedelta(seconds=61)
    assert lists.claim_delivery(db, lists.MESSAGE, m.id, later, lease_seconds=60, owner=os.getpid(), alive=alive)
    assert lists.delivery_of(db, lists.MESSAGE, m.id).attempts == 3


def test_an_attempt_for_the_old_state_records_nothing_after_a_cancel(db):
    e = lists.add_event(
        db,
        title="Sync",
        start=NOW + timedelta(days=1),
        end=NOW + timedelta(days=1, hours=1),
        now=NOW,
        delivery=lists.PENDING,
    )
    me = os.getpid()
    assert lists.claim_delivery(db, lists.EVENT, e.id, NOW, lease_seconds=60, owner=me, alive=lambda pid: True)
    lists.cancel_event(db, e.id, NOW)  # while the PUT of the booking is under way
    after = lists.finish_delivery(db, lists.EVENT, e.id, NOW, owner=me, state=lists.DELIVERED, reply="stored")
    assert after.state == lists.PENDING and after.attempts == 0  # the delete is still to be sent
    assert [d.item_id for d in lists.due_deliveries(db, NOW)] == [e.id]


def test_local_items_are_never_queued_and_failed_ones_wait_for_the_person(db):
    local = lists.add_outbox(db, recipient="Sam", body="x", now=NOW)
    failed = lists.add_outbox(db, recipient="b@example.com", body="y", now=NOW, channel="email", delivery=lists.PENDING)
    lists.claim_delivery(db, lists.MESSAGE, failed.id, NOW, lease_seconds=60, owner=1, alive=lambda pid: True)
    lists.finish_delivery(db, lists.MESSAGE, failed.id, NOW, owner=1, state=lists.FAILED, error="550")
    assert lists.due_deliveries(db, NOW + timedelta(days=1)) == []
    assert [d.item_id for d in lists.due_deliveries(db, None, include_failed=True)] == [failed.id]
    assert lists.delivery_of(db, lists.MESSAGE, local.id).state == lists.LOCAL


def test_the_queue_table_refuses_unknown_states(db):
    import pytest

    with pytest.raises(sqlite3.IntegrityError):
        db.conn.execute("INSERT INTO deliveries (kind, item_id, state, updated_at) VALUES ('message', 99, 'sent', 'x')")
