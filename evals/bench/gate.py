"""The relevance gate's trade-off on a dev set of facts and turns.

The dev set (JSONL) holds facts (``kind: fact``), ordinary turns that need no
memory (``ordinary``), questions about things never stored (``absent``) and
questions or tasks the store answers (``answerable``, with ``gold`` fact ids).
For each gate setting it reports how many facts reach the prompt on ordinary
and absent turns, and how many answerable turns keep their gold fact.
"""

from __future__ import annotations

import json
from pathlib import Path

from evals.bench.common import render_table

DEFAULT_DEV = Path(__file__).resolve().parents[2] / "tests" / "data" / "recall_dev.jsonl"

# Two families of signal: idf-mass coverage of the query with a minimum of
# shared words (and a floor relative to the best score), and a plain floor on
# the BM25 score, for comparison (a score floor does not carry over between
# stores of different sizes: idf grows with the number of facts).
COVERAGES = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)
RELATIVES = (0.3,)
MIN_TERMS = (1, 2, 3)
SCORE_FLOORS = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0)


def load(path: str | Path) -> dict:
    facts, turns = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            (facts if row["kind"] == "fact" else turns).append(row)
    return {"facts": facts, "turns": turns}


def evaluate(dev: dict, recall_fn, k: int = 12) -> dict:
    """Figures for one gate: ``recall_fn(query, k) -> [(fact index, score)]``.

    Turns marked ``task`` ask kept to act (send, schedule, assign...); they are
    also reported on their own, since a task names what it needs less fully
    than a question does. ``rule`` marks tasks whose gold is a standing rule or
    preference of the person that shares no word with the request."""
    facts = dev["facts"]
    ids = [f["id"] for f in facts]
    per_kind: dict[str, list] = {"ordinary": [], "absent": [], "answerable": []}
    task_kind: dict[str, list] = {"ordinary": [], "absent": [], "answerable": []}
    kept_gold, task_gold, question_gold, rule_gold = [], [], [], []
    for turn in dev["turns"]:
        got = [ids[i] for i, _ in recall_fn(turn["text"], k)]
        per_kind[turn["kind"]].append(len(got))
        if turn.get("task"):
            task_kind[turn["kind"]].append(len(got))
        if turn["kind"] == "answerable":
            hit = any(g in got for g in turn["gold"])
            kept_gold.append(hit)
            (task_gold if turn.get("task") else question_gold).append(hit)
            if turn.get("rule"):
                rule_gold.append(hit)

    def share_any(counts):
        return round(sum(1 for c in counts if c) / len(counts), 3) if counts else None

    def avg(counts):
        return round(sum(counts) / len(counts), 2) if counts else None

    def share(hits):
        return round(sum(hits) / len(hits), 3) if hits else None

    return {
        "ordinary_with_facts": share_any(per_kind["ordinary"]),
        "ordinary_facts_per_turn": avg(per_kind["ordinary"]),
        "task_ordinary_with_facts": share_any(task_kind["ordinary"] + task_kind["absent"]),
        "absent_with_facts": share_any(per_kind["absent"]),
        "absent_facts_per_turn": avg(per_kind["absent"]),
        "answerable_keep_gold": share(kept_gold),
        "questions_keep_gold": share(question_gold),
        "tasks_keep_gold": share(task_gold),
        "rules_keep_gold": share(rule_gold),
        "answerable_facts_per_turn": avg(per_kind["answerable"]),
    }


def run(path: str | Path = DEFAULT_DEV) -> dict:
    from memory import recall
    from memory.recall import _DocsIndex, fact_body

    dev = load(path)
    docs = _DocsIndex([fact_body(f["text"]) for f in dev["facts"]])
    rows = []
    rows.append({"gate": "none (rank top 12)", **evaluate(dev, lambda q, k: docs.rank(q, k))})
    for c in COVERAGES:
        for r in RELATIVES:
            for m in MIN_TERMS:
                chosen = (c, r, m) == (recall.MIN_COVERAGE, recall.MIN_RELATIVE, recall.MIN_TERMS)
                rows.append({
                    "gate": f"coverage>={c} rel>={r} terms>={m}" + (" (chosen)" if chosen else ""),
                    **evaluate(dev, lambda q, k, c=c, r=r, m=m: docs.recall(q, k, min_coverage=c, min_relative=r, min_terms=m)),
                })
    for floor in SCORE_FLOORS[1:]:
        rows.append({
            "gate": f"score>={floor} only",
            **evaluate(dev, lambda q, k, floor=floor: [p for p in docs.rank(q, k) if p[1] >= floor]),
        })
    counts = {kind: sum(1 for t in dev["turns"] if t["kind"] == kind) for kind in ("ordinary", "absent", "answerable")}
    counts["answerable tasks"] = sum(1 for t in dev["turns"] if t["kind"] == "answerable" and t.get("task"))
    counts["of them rules"] = sum(1 for t in dev["turns"] if t["kind"] == "answerable" and t.get("rule"))
    counts["task-shaped ordinary or absent"] = sum(1 for t in dev["turns"] if t["kind"] != "answerable" and t.get("task"))
    return {"dev": str(path), "facts": len(dev["facts"]), "turns": counts, "rows": rows,
            "chosen": {"min_coverage": recall.MIN_COVERAGE, "min_relative": recall.MIN_RELATIVE,
                       "min_terms": recall.MIN_TERMS}}


COLUMNS = ("ordinary_with_facts", "ordinary_facts_per_turn", "task_ordinary_with_facts", "absent_with_facts",
           "absent_facts_per_turn", "answerable_keep_gold", "questions_keep_gold", "tasks_keep_gold", "rules_keep_gold",
           "answerable_facts_per_turn")


def render(report: dict) -> str:
    t = report["turns"]
    title = f"Relevance gate on {report['facts']} facts; turns: " + ", ".join(f"{v} {k}" for k, v in t.items())
    return render_table(title, ["gate", *COLUMNS], [[row["gate"], *[row[c] for c in COLUMNS]] for row in report["rows"]])
