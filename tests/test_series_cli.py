"""`kept memory series` shows each repeated event's count and dates."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agent.cli import app
from memory import series
from memory.db import transaction


def test_memory_series_lists_counts_and_dates(db):
    plan = series.SeriesPlan(
        new={"data engineering interview": "interviewed a data engineering candidate"},
        occurrences=[
            series.Occurrence(1, "2026-10-02", "interviewed a candidate", new_key="data engineering interview"),
            series.Occurrence(2, "2026-10-09", "interviewed another one", new_key="data engineering interview"),
            series.Occurrence(3, "2026-11-03", "another interview today", new_key="data engineering interview"),
        ],
    )
    with transaction(db) as conn:
        series.apply_pass(conn, plan)
    runner = CliRunner()
    text = runner.invoke(app, ["memory", "series"])
    assert text.exit_code == 0, text.output
    assert "3 times, first 2026-10-02, last 2026-11-03" in text.output
    rows = json.loads(runner.invoke(app, ["memory", "series", "--json"]).output)
    assert [(r["count"], r["first"], r["last"]) for r in rows] == [(3, "2026-10-02", "2026-11-03")]


def test_memory_series_says_when_there_are_none(db):
    result = CliRunner().invoke(app, ["memory", "series"])
    assert result.exit_code == 0 and "No repeated events yet." in result.output
