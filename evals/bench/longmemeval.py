"""LongMemEval-S retrieval recall, with the paper's protocol.

Index the user turns only (a session is its user turns joined); gold is the
evidence sessions (those holding a user turn with ``has_answer``) or those
turns; abstention questions (``_abs``) and questions with no user-side
evidence are skipped (n = 418 on the cleaned 498-question file).
Each question has its own haystack, so every query's time includes indexing
that haystack (about 48 sessions, ~500 user turns), for kept and baselines alike.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path

from evals.bench.common import latency_ms, mean, ndcg, progress, recall_all, recall_any, systems, window

# The published flat-BM25 figures (benchmarks README, whitespace tokens, n = 418).
PUBLISHED = {
    "session": {"recall_all@5": 0.742, "ndcg_any@5": 0.771, "recall_all@10": 0.823, "ndcg_any@10": 0.793},
    "turn": {"recall_all@5": 0.488, "ndcg_any@5": 0.530, "recall_all@10": 0.591, "recall_any@10": 0.804},
}
METRICS = ("recall_all@5", "ndcg_any@5", "recall_all@10", "ndcg_any@10", "recall_any@10")


def load(path: str | Path) -> list[dict]:
    path = Path(path)
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def corpus(item: dict) -> tuple[list[str], set[int], list[str], set[int]]:
    """(session docs, gold session indexes, turn docs, gold turn indexes) of one question."""
    sessions: list[str] = []
    turns: list[str] = []
    gold_sessions: set[int] = set()
    gold_turns: set[int] = set()
    for s, session in enumerate(item["haystack_sessions"]):
        user = [t for t in session if t.get("role") == "user"]
        sessions.append(" ".join(t["content"] for t in user))
        for t in user:
            if t.get("has_answer"):
                gold_sessions.add(s)
                gold_turns.add(len(turns))
            turns.append(t["content"])
    return sessions, gold_sessions, turns, gold_turns


def evaluable(item: dict) -> bool:
    if item["question_id"].endswith("_abs"):
        return False
    return any(t.get("has_answer") for s in item["haystack_sessions"] for t in s if t.get("role") == "user")


def run(
    path: str | Path,
    limit: int | None = None,
    show_progress: bool = True,
    data: list[dict] | None = None,
    skip: int = 0,
) -> dict:
    """``skip``: leave out the first N evaluable questions, then take ``limit`` (a dev slice and a
    test slice of one file: ``--limit 100`` and ``--skip 100 --limit 150``)."""
    items = [it for it in (data if data is not None else load(path)) if evaluable(it)]
    items = window(items, skip, limit)
    report: dict = {"benchmark": "LongMemEval-S", "n": len(items), "skip": skip, "granularities": {}}
    for granularity in ("session", "turn"):
        runners = systems()
        scores: dict[str, dict[str, list[float]]] = {r.name: {m: [] for m in METRICS} for r in runners}
        for item in progress(items, f"LongMemEval {granularity}", len(items), show_progress):
            sessions, gold_s, turns, gold_t = corpus(item)
            docs, gold = (sessions, gold_s) if granularity == "session" else (turns, gold_t)
            for r in runners:
                ranked = r.rank(docs, item["question"], 10)
                row = scores[r.name]
                row["recall_all@5"].append(recall_all(ranked, gold, 5))
                row["ndcg_any@5"].append(ndcg(ranked, gold, 5))
                row["recall_all@10"].append(recall_all(ranked, gold, 10))
                row["ndcg_any@10"].append(ndcg(ranked, gold, 10))
                row["recall_any@10"].append(recall_any(ranked, gold, 10))
        report["granularities"][granularity] = {
            r.name: {**{m: mean(v) for m, v in scores[r.name].items()}, **latency_ms(r.latencies)} for r in runners
        }
        report["granularities"][granularity]["published bm25"] = dict(PUBLISHED[granularity])
    return report
