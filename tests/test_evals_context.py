"""CI: the context level on every persona (the year-long one generated on demand), with gold facts.

About 5 seconds on a loaded 2-core machine, so `make test` runs it."""

from __future__ import annotations

import json

import pytest

from evals.designs import DESIGNS
from evals.records import read_records
from evals.run import Settings, resolve_persona, run

PERSONAS = ["tiny", "light", "heavy", "mixed", "yearlong"]


@pytest.mark.timeout(300)
def test_context_level_on_all_personas_is_fair_and_kept_beats_none(tmp_path):
    run_dir = run(Settings(personas=PERSONAS), base=tmp_path)
    records = read_records(run_dir)
    # Every item of every persona, once per design.
    expected = {(name, i.id, d) for name in PERSONAS for i in resolve_persona(name)[1] for d in DESIGNS}
    assert {(r["persona"], r["item"], r["design"]) for r in records} == expected and len(records) == len(expected)

    fairness = json.loads((run_dir / "fairness.json").read_text())
    # Without memory nothing that needs memory passes, no task above all; with exactly the sources, nearly all do.
    assert fairness["none_passing"] == [], fairness["none_passing"]
    none_tasks = [r for r in records if r["design"] == "none" and r["is_task"] and r["needs_memory"]]
    assert none_tasks and not any(r["passed"] for r in none_tasks)
    assert fairness["oracle_checked"] == sum(1 for r in records if r["design"] == "oracle" and r["needs_memory"])
    assert fairness["oracle_rate"] >= 0.95, fairness["oracle_failing"]

    def rate(design):
        rs = [r for r in records if r["design"] == design and r["needs_memory"]]
        assert rs and all(r["passed"] is not None for r in rs)
        return sum(r["passed"] for r in rs) / len(rs)

    assert rate("kept") > rate("none")
    print((run_dir / "context.md").read_text())
