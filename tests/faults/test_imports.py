"""An import is validated before anything is written: a crafted file is refused
in one line naming the row and the field, and the store stays empty and usable."""

from __future__ import annotations

import json

import pytest

from memory import transfer
from tests.faults.checks import assert_clean, assert_one_line_error


def _export(**parts) -> dict:
    data = {
        "kept_export": 1,
        "exported_at": "2026-10-06T10:00:00+00:00",
        "notes": [],
        "facts": [],
        "events": [],
        "promises": {},
        "series": {},
    }
    data.update(parts)
    return data


FACT = {
    "id": 1,
    "text": "2026-10-01: the Atlas budget is 5,000 euros",
    "said_on": "2026-10-01",
    "status": "active",
    "replaces": None,
    "source_ids": "[]",
    "created_at": "2026-10-01T10:00:00Z",
    "touched_at": "2026-10-01T10:00:00Z",
}
EVENT = {
    "id": 1,
    "fact_id": 1,
    "event": "ADD",
    "old_text": None,
    "new_text": FACT["text"],
    "at": "2026-10-01",
    "reason": None,
}

CRAFTED = {
    "source_ids not JSON": (_export(facts=[{**FACT, "source_ids": "not json ["}]), ("facts row 1", "source_ids")),
    "source_ids JSON of strings": (_export(facts=[{**FACT, "source_ids": '["a"]'}]), ("facts row 1", "source_ids")),
    "a row that is not an object": (_export(facts=[FACT, "just text"]), ("facts row 2",)),
    "a list value": (_export(facts=[{**FACT, "text": ["a", "b"]}]), ("facts row 1", "text")),
    "a number where text goes": (_export(facts=[{**FACT, "said_on": 20261001}]), ("facts row 1", "said_on")),
    "a string id": (_export(facts=[{**FACT, "id": "one"}]), ("facts row 1", "id")),
    "a true id": (_export(facts=[{**FACT, "id": True}]), ("facts row 1", "id")),
    "duplicate ids": (_export(facts=[FACT, {**FACT, "text": "2026-10-01: other"}]), ("facts row 2", "id 1")),
    "NOT NULL missing": (_export(facts=[{k: v for k, v in FACT.items() if k != "text"}]), ("facts row 1", "text")),
    "NOT NULL null": (_export(facts=[{**FACT, "said_on": None}]), ("facts row 1", "said_on")),
    "a dangling reference": (
        _export(facts=[FACT], events=[{**EVENT, "fact_id": 99}]),
        ("fact_events row 1", "fact_id"),
    ),
    "a self-reference to nothing": (_export(facts=[{**FACT, "replaces": 42}]), ("facts row 1", "replaces")),
    "a CHECK violation": (_export(facts=[{**FACT, "status": "maybe"}]), ("facts row 1", "status")),
    "an unknown field": (_export(facts=[{**FACT, "colour": "red"}]), ("facts row 1", "colour")),
    "facts not a list": (_export(facts={"1": FACT}), ("facts",)),
    "a promises table not a list": (_export(promises={"promises": {"a": 1}}), ("promises",)),
    "an oversized fact": (
        _export(facts=[{**FACT, "id": 7, "text": "2026-10-01: " + "x" * 10_000_000}]),
        ("facts row 1", "id 7", "text", "limit"),
    ),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_import_is_refused_naming_row_and_field_and_writes_nothing(db, name):
    data, words = CRAFTED[name]
    with pytest.raises(transfer.ImportRefused) as err:
        transfer.import_data(db, json.loads(json.dumps(data)))
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message
    assert transfer.is_empty(db)


def test_deep_nesting_is_one_line(kept_offline, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    line = assert_one_line_error(kept_offline("memory", "import", str(path)))
    assert "deep.json" in line


def test_after_a_refused_import_every_command_still_works(kept_offline, server, kept_home, tmp_path):
    from evals.bench import harness

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_export(facts=[{**FACT, "source_ids": "not json ["}])))
    line = assert_one_line_error(kept_offline("memory", "import", str(path)))
    assert "source_ids" in line and "row 1" in line
    assert_clean(kept_offline("memory", "facts"))
    server.reply_text("ok")
    proc = harness.run_kept("ask", "what is the Atlas budget?", home=kept_home, base_url=server.base_url)
    assert_clean(proc)
    assert proc.returncode == 0


def test_a_good_export_still_imports_and_round_trips(db, tmp_path):
    from agent.session import open_store

    data = _export(
        facts=[FACT, {**FACT, "id": 2, "replaces": 1, "text": "2026-10-02: now 6,000 euros", "source_ids": "[3, 4]"}],
        events=[EVENT],
    )
    counts = transfer.import_data(db, data)
    assert counts["facts"] == 2 and counts["events"] == 1
    again = open_store(tmp_path / "again.db")
    transfer.import_data(again, json.loads(json.dumps(transfer.export_data(db))))
    assert transfer.export_data(again)["facts"] == transfer.export_data(db)["facts"]


NOTE = {
    "id": 1,
    "kind": "memory",
    "text": "Atlas: budget talks in October",
    "at": "2026-10-01T10:00:00Z",
    "reason": None,
}


def test_a_row_the_schema_refuses_after_others_were_written_leaves_the_store_empty(db):
    # Notes and facts are inserted before the events; the CHECK on the event kind fails
    # only at the insert, and takes the rows already written back with it.
    data = _export(notes=[NOTE], facts=[FACT], events=[{**EVENT, "event": "REWRITE"}])
    with pytest.raises(transfer.ImportRefused) as err:
        transfer.import_data(db, data)
    assert "fact_events row 1 (id 1)" in str(err.value) and "CHECK" in str(err.value)
    assert transfer.is_empty(db)
    counts = transfer.import_data(db, _export(notes=[NOTE], facts=[FACT], events=[EVENT]))
    assert counts == {"notes": 1, "facts": 1, "events": 1, "promises": 0, "series": 0}


def test_a_field_one_row_leaves_out_takes_its_column_default(db):
    # The first row names source_ids, the second does not: the second gets the column's
    # default ('[]'), not a NULL its NOT NULL column would refuse.
    second = {k: v for k, v in {**FACT, "id": 2, "text": "2026-10-02: now 6,000 euros"}.items() if k != "source_ids"}
    transfer.import_data(db, _export(facts=[{**FACT, "source_ids": "[3]"}, second]))
    assert [f["source_ids"] for f in transfer.export_data(db)["facts"]] == ["[3]", "[]"]
