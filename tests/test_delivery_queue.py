"""The delivery queue itself: the migration of an older store, claims and leases,
and an attempt for an old state recording nothing after the item changed."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta

from memory.db import apply_migrations, connect, migrate
from tools import store

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEAD_PID = 2**22 + 12345  # above the usual pid_max: no process has it


def test_an_older_store_gets_message_ids_and_task_uids_once(tmp_path):
    import sqlite_utils

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(connect(path))
    migrate(db, ())  # the bookkeeping table
    apply_migrations(db, "tools.store", store.MIGRATIONS[:1])  # a store written before delivery existed
    for name in ("Sam", "Lee"):
        db.conn.execute(
            "INSERT INTO outbox (recipient, recipient_key, channel, body, sent_at) VALUES (?, ?, 'chat', 'hi', ?)",
            (name, name.lower(), store.utc(NOW)),
        )
        db.conn.execute(
            "INSERT INTO tasks (assignee, assignee_key, title, status, created_at) VALUES (?, ?, 't', 'open', ?)",
            (name, name.lower(), store.utc(NOW)),
        )
    apply_migrations(db, "tools.store", store.MIGRATIONS)
    messages = store.outbox(db)
    assert len({m.message_uid for m in messages}) == 2 and all(m.message_uid.endswith("@kept>") for m in messages)
    assert len({t.uid for t in store.tasks(db)}) == 2
    assert store.deliveries(db, store.MESSAGE) == {}  # old rows were local: no queue entry, shown as local
    assert store.has_sent_to(db, "sam", "chat") and not store.has_sent_to(db, "sam", "email")


def test_a_live_claim_blocks_a_dead_one_does_not(db):
    m = store.add_outbox(db, recipient="a@example.com", body="x", now=NOW, channel="email", delivery=store.PENDING)
    alive = lambda pid: pid != DEAD_PID
    assert store.claim_delivery(db, store.MESSAGE, m.id, NOW, lease_seconds=60, owner=DEAD_PID, alive=alive)
    # The claimer died mid-attempt: its claim is void at once.
    assert store.claim_delivery(db, store.MESSAGE, m.id, NOW, lease_seconds=60, owner=os.getpid(), alive=alive)
    # A live holder (this process, in another thread) keeps it until the lease ends.
    assert not store.claim_delivery(db, store.MESSAGE, m.id, NOW, lease_seconds=60, owner=os.getpid(), alive=alive)
    later = NOW + timedelta(seconds=61)
    assert store.claim_delivery(db, store.MESSAGE, m.id, later, lease_seconds=60, owner=os.getpid(), alive=alive)
    assert store.delivery_of(db, store.MESSAGE, m.id).attempts == 3


def test_an_attempt_for_the_old_state_records_nothing_after_a_cancel(db):
    e = store.add_event(
        db,
        title="Sync",
        start=NOW + timedelta(days=1),
        end=NOW + timedelta(days=1, hours=1),
        now=NOW,
        delivery=store.PENDING,
    )
    me = os.getpid()
    assert store.claim_delivery(db, store.EVENT, e.id, NOW, lease_seconds=60, owner=me, alive=lambda pid: True)
    store.cancel_event(db, e.id, NOW)  # while the PUT of the booking is under way
    after = store.finish_delivery(db, store.EVENT, e.id, NOW, owner=me, state=store.DELIVERED, reply="stored")
    assert after.state == store.PENDING and after.attempts == 0  # the delete is still to be sent
    assert [d.item_id for d in store.due_deliveries(db, NOW)] == [e.id]


def test_local_items_are_never_queued_and_failed_ones_wait_for_the_person(db):
    local = store.add_outbox(db, recipient="Sam", body="x", now=NOW)
    failed = store.add_outbox(db, recipient="b@example.com", body="y", now=NOW, channel="email", delivery=store.PENDING)
    store.claim_delivery(db, store.MESSAGE, failed.id, NOW, lease_seconds=60, owner=1, alive=lambda pid: True)
    store.finish_delivery(db, store.MESSAGE, failed.id, NOW, owner=1, state=store.FAILED, error="550")
    assert store.due_deliveries(db, NOW + timedelta(days=1)) == []
    assert [d.item_id for d in store.due_deliveries(db, None, include_failed=True)] == [failed.id]
    assert store.delivery_of(db, store.MESSAGE, local.id).state == store.LOCAL


def test_the_queue_table_refuses_unknown_states(db):
    import pytest

    with pytest.raises(sqlite3.IntegrityError):
        db.conn.execute("INSERT INTO deliveries (kind, item_id, state, updated_at) VALUES ('message', 99, 'sent', 'x')")
