"""CI: the context level on every persona, with gold facts."""

from __future__ import annotations

import json

import pytest

from evals.run import Settings, read_records, run


@pytest.mark.slow
@pytest.mark.timeout(900)  # about a minute of CPU on 2 free cores; more on a loaded machine
def test_context_level_on_all_personas_is_fair_and_kept_beats_none(tmp_path):
    run_dir = run(Settings(personas=["tiny", "light", "heavy", "mixed", "yearlong"]), base=tmp_path)
    fairness = json.loads((run_dir / "fairness.json").read_text())
    # Without memory nothing that needs memory passes; with exactly the sources, nearly all do.
    assert fairness["none_passing"] == [], fairness["none_passing"]
    assert fairness["oracle_rate"] >= 0.95, fairness["oracle_failing"]
    records = read_records(run_dir)

    def rate(design):
        rs = [r for r in records if r["design"] == design and r["needs_memory"]]
        return sum(r["passed"] for r in rs) / len(rs)

    assert rate("kept") > rate("none")
    assert {r["persona"] for r in records} == {"tiny", "light", "heavy", "mixed", "yearlong"}
    print((run_dir / "context.md").read_text())
