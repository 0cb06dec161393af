"""evals/bench longmemeval and locomo: --skip leaves out the first evaluable questions, then --limit."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from evals.bench import locomo, longmemeval
from evals.bench.common import window


def test_window_skips_then_limits():
    items = list(range(10))
    assert window(items) == items
    assert window(items, 3) == list(range(3, 10))
    assert window(items, 3, 4) == [3, 4, 5, 6]
    assert window(items, 0, 2) == [0, 1]
    assert window(items, 12, 5) == []


def _lme_item(n: int) -> dict:
    evidence = {"role": "user", "content": f"My locker number at the pool is {n}.", "has_answer": True}
    other = {"role": "user", "content": "Can you suggest a recipe for lentil soup?"}
    return {
        "question_id": f"q{n}",
        "question": "What is my locker number at the pool?",
        "haystack_sessions": [[evidence], [other]],
    }


def _abstention() -> dict:
    item = _lme_item(99)
    item["question_id"] = "q99_abs"
    return item


def test_longmemeval_skip_counts_evaluable_questions_only():
    # An abstention question first: skipping one leaves out the first *evaluable* question.
    data = [_abstention(), _lme_item(1), _lme_item(2), _lme_item(3)]
    report = longmemeval.run(None, skip=1, limit=1, show_progress=False, data=data)
    assert report["n"] == 1 and report["skip"] == 1
    assert longmemeval.run(None, skip=1, show_progress=False, data=data)["n"] == 2
    assert longmemeval.run(None, skip=5, show_progress=False, data=data)["n"] == 0


def _conversation() -> dict:
    turns = [
        {"speaker": "Ana", "dia_id": f"D1:{i + 1}", "text": f"I adopted a cat named Miso number {i}."} for i in range(3)
    ]
    qa = [{"question": f"What is cat {i} called?", "evidence": [f"D1:{i + 1}"]} for i in range(3)]
    qa.append({"question": "Malformed evidence is not evaluable", "evidence": ["D"]})
    return {"conversation": {"speaker_a": "Ana", "session_1": turns}, "qa": qa}


def test_locomo_skip_leaves_out_the_first_evaluable_questions_of_each_granularity():
    data = [_conversation()]
    report = locomo.run(None, skip=1, limit=1, show_progress=False, data=data)
    assert report["n"] == {"session": 1, "turn": 1} and report["skip"] == 1
    assert locomo.run(None, skip=1, show_progress=False, data=data)["n"] == {"session": 2, "turn": 2}


def test_the_commands_take_skip(tmp_path):
    from agent.cli import app

    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([_conversation()]), encoding="utf-8")
    result = CliRunner().invoke(app, ["bench", "locomo", "--data", str(path), "--skip", "2", "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["n"] == {"session": 1, "turn": 1}
    for command in ("locomo", "longmemeval"):
        shown = CliRunner().invoke(app, ["bench", command, "--help"])
        assert "--skip" in shown.output
