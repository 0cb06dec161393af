"""The item format: strict, validated, unknown keys rejected."""

from __future__ import annotations

import json

import pytest

from evals.items import ItemError, load_items, parse_item
from evals.run import PERSONAS_DIR

GOOD = {
    "id": "x-1",
    "persona": "x",
    "kind": "old_fact",
    "query": "What's the budget?",
    "sources": ["m0001"],
    "needs": [["(?im)^(?=.*budget).*$"]],
    "reply": {"current": ["42"]},
}


def test_a_good_item_parses():
    item = parse_item(GOOD)
    assert item.kind == "old_fact" and item.reply.current == ["42"] and item.needs_memory


@pytest.mark.parametrize(
    "change,message",
    [
        ({"colour": "red"}, "unknown key(s) colour"),
        ({"kind": "gossip"}, "kind 'gossip'"),
        ({"needs": [["(unclosed"]]}, "bad pattern"),
        ({"reply": {"current": [], "maybe": True}}, "reply: unknown key(s) maybe"),
        ({"reply": None}, "needs a reply rule or at least one check"),
        (
            {"checks": [{"type": "field_equals", "table": "outbox", "field": "to"}], "reply": None},
            "missing key(s) value",
        ),
        ({"checks": [{"type": "vibes"}]}, "unknown check type"),
        (
            {"checks": [{"type": "pattern", "table": "outbox", "field": "to", "regex": "x", "extra": 1}]},
            "unknown key(s) extra",
        ),
        (
            {
                "checks": [
                    {"type": "instant_equals", "table": "calendar_events", "field": "start", "at": "2026-12-01T10:00"}
                ]
            },
            "time zone",
        ),
    ],
)
def test_bad_items_are_rejected_with_the_key_named(change, message):
    with pytest.raises(ItemError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_item({**GOOD, **change})


def test_missing_required_keys_are_named():
    data = dict(GOOD)
    del data["sources"]
    with pytest.raises(ItemError, match="missing key.*sources"):
        parse_item(data)


def test_file_errors_name_the_line(tmp_path):
    path = tmp_path / "x.items.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "id": "x-2", "oops": 1}) + "\n")
    with pytest.raises(ItemError, match=r"x.items.jsonl:2: unknown key"):
        load_items(path)
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(ItemError, match="duplicate id"):
        load_items(path)


def test_every_committed_item_file_loads_and_round_trips():
    for path in sorted(PERSONAS_DIR.glob("*.items.jsonl")):
        items = load_items(path)
        assert items, path
        for item in items:
            assert parse_item(json.loads(json.dumps(item.to_json()))) == item
