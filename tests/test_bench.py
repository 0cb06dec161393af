"""evals/bench: the scale bench's shape and the gate bench's table on the dev set."""

from __future__ import annotations

from evals.bench import gate, scale


def test_scale_reports_recall_search_long_queries_and_adding_a_message():
    report = scale.run([300], n_facts=60, n_queries=8)
    r = report["recall"]
    assert r["kept (cached index)"]["p50_ms"] > 0 and r["plain BM25 built per query"]["p50_ms"] > 0
    (row,) = report["messages"]
    assert row["messages"] == 300 and row["hits_per_query"] > 0
    for key in ("search", "search_long", "add_message"):
        assert row[key]["p50_ms"] > 0
    text = scale.render(report)
    assert "20-word query p50 ms" in text and "kept/plain p50" in text


def test_gate_bench_marks_the_chosen_gate_and_splits_tasks_from_questions():
    report = gate.run()
    chosen = [row for row in report["rows"] if row["gate"].endswith("(chosen)")]
    assert len(chosen) == 1
    assert report["turns"]["answerable tasks"] > 0 and report["turns"]["of them rules"] > 0
    row = chosen[0]
    assert row["tasks_keep_gold"] is not None and row["questions_keep_gold"] is not None
    assert "tasks_keep_gold" in gate.render(report)
