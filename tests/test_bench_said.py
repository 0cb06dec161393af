"""`kept bench said`: what the person's own messages add, on data written for these tests."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from evals.bench import said as bench


def _split(tmp_path):
    rows = [
        {"kind": "meta", "how": "written for this test"},
        {"kind": "fact", "id": 1, "said_on": "2026-09-01", "text": "User's dentist is Dr. Okafor on Linden Street."},
        {"kind": "fact", "id": 2, "said_on": "2026-09-02", "text": "User's plumber quoted 480 euros for the sink."},
        {"kind": "turn", "class": "answerable", "text": "Who is my dentist again?", "gold": [1]},
        {"kind": "turn", "class": "general", "text": "What does a dentist do?", "gold": []},
    ]
    path = tmp_path / "tiny.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_recall_sets_count_what_messages_add_beside_facts_and_alone(tmp_path):
    report = bench.recall_sets({"tiny": _split(tmp_path)})
    with_facts, alone = report["splits"]["tiny"]["settings"].values()
    # With the fact stored the facts cover the turn: no message is added.
    assert with_facts["answerable: all gold, facts"] == 1.0 and with_facts["answerable: any message"] == 0.0
    # Before any write pass the person's own message answers it; the general question gets none either way.
    assert alone["answerable: all gold, facts"] == 0.0 and alone["answerable: all gold, facts or messages"] == 1.0
    assert alone["answerable: tokens"] > 0
    assert with_facts["general: any message"] == alone["general: any message"] == 0.0


def _lme_item():
    session = [
        {
            "role": "user",
            "content": "I graduated last spring with a degree in Business Administration.",
            "has_answer": True,
        },
        {"role": "assistant", "content": "Congratulations on your degree!"},
    ]
    other = [
        {"role": "user", "content": "Can you suggest a recipe for lentil soup?"},
        {"role": "assistant", "content": "Sure."},
    ]
    return {
        "question_id": "q1",
        "question": "What degree did I graduate with?",
        "answer": "Business Administration",
        "haystack_dates": ["2023/05/20 (Sat) 07:47", "2023/05/21 (Sun) 10:00"],
        "haystack_sessions": [session, other],
    }


def test_longmemeval_loads_the_haystack_as_messages_and_scores_the_quoted_ones():
    report = bench.longmemeval(None, show_progress=False, data=[_lme_item()])
    kept = report["systems"]["kept said (gate + matcher, k=3)"]
    assert report["n"] == 1 and report["short answers"] == 1
    assert kept["opens"] == 1.0 and kept["gold session among quoted"] == 1.0 and kept["gold turn quoted"] == 1.0
    assert kept["short answer in quoted text"] == 1.0 and kept["tokens per turn"] > 0


def test_the_command_prints_both_settings_for_a_given_split(tmp_path):
    from agent.cli import app

    result = CliRunner().invoke(app, ["bench", "said", "--split", str(_split(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "tiny: facts + messages" in result.output and "tiny: messages only" in result.output
    missing = CliRunner().invoke(app, ["bench", "said", "--split", str(tmp_path / "none.jsonl")])
    assert missing.exit_code != 0 and "no recall split at" in missing.output
