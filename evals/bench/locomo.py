"""LoCoMo retrieval recall: each session one document, or each turn one document.

A document is its turns as "Speaker: text" (an image's caption is part of
the turn, as "[image: ...]"), the same documents for kept and the baselines.
Gold is the evidence ids written exactly as "D3:7" that name an existing
session or turn; questions without any are skipped (n = 1,978 / 1,977). Every category is kept, the adversarial one (5) included. Each
conversation is indexed once; a query's time is its ranking alone, plus the
indexing for the first question of each conversation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from evals.bench.common import latency_ms, mean, ndcg, progress, recall_frac, systems, window

PUBLISHED = {
    "session": {"hit@1": 0.640, "recall@5": 0.833, "ndcg@5": 0.746},
    "turn": {"hit@1": 0.285, "recall@5": 0.494, "recall@10": 0.576},
}
FUSION = {"session": {"hit@1": 0.752, "recall@5": 0.894}}
METRICS = ("hit@1", "recall@5", "recall@10", "ndcg@5")
_EVIDENCE = re.compile(r"D(\d+):(\d+)")


def load(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def turn_text(turn: dict) -> str:
    text = f"{turn.get('speaker', '')}: {turn.get('text', '')}"
    if turn.get("blip_caption"):
        text += f" [image: {turn['blip_caption']}]"
    return text


def documents(conversation: dict) -> tuple[list[str], list[int], list[str], list[str]]:
    """(session docs, their session numbers, turn docs, their dia_ids)."""
    conv = conversation["conversation"]
    numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k])
    sessions, turns, turn_ids = [], [], []
    for n in numbers:
        session = conv[f"session_{n}"]
        sessions.append("\n".join(turn_text(t) for t in session))
        for t in session:
            turns.append(turn_text(t))
            turn_ids.append(t["dia_id"])
    return sessions, numbers, turns, turn_ids


def gold(qa: dict) -> tuple[set[int], set[str]]:
    """Evidence ids written exactly as "D<session>:<turn>"; malformed ones
    ("D8:6; D9:17", "D") are dropped, as in the published runs (n = 1,978 / 1,977)."""
    sessions, turns = set(), set()
    for ev in qa.get("evidence") or []:
        m = _EVIDENCE.fullmatch(str(ev))
        if m:
            sessions.add(int(m.group(1)))
            turns.add(str(ev))
    return sessions, turns


def run(
    path: str | Path,
    limit: int | None = None,
    show_progress: bool = True,
    skip: int = 0,
    data: list[dict] | None = None,
) -> dict:
    """``skip``: leave out the first N evaluable questions of each granularity, then take ``limit``
    (a dev slice and a test slice: ``--limit 400`` and ``--skip 400 --limit 600``)."""
    data = data if data is not None else load(path)
    report: dict = {"benchmark": "LoCoMo", "n": {}, "skip": skip, "granularities": {}}
    for granularity in ("session", "turn"):
        runners = systems()
        scores: dict[str, dict[str, list[float]]] = {r.name: {m: [] for m in METRICS} for r in runners}
        jobs = []
        for conv in data:
            sessions, numbers, turns, turn_ids = documents(conv)
            for qa in conv["qa"]:
                g_sessions, g_turns = gold(qa)
                if granularity == "session":
                    g = {numbers.index(s) for s in g_sessions if s in numbers}
                    jobs.append((sessions, qa["question"], g))
                else:
                    g = {turn_ids.index(t) for t in g_turns if t in turn_ids}
                    jobs.append((turns, qa["question"], g))
        jobs = window([j for j in jobs if j[2]], skip, limit)
        for docs, question, g in progress(jobs, f"LoCoMo {granularity}", len(jobs), show_progress):
            for r in runners:
                ranked = r.rank(docs, question, 10)
                row = scores[r.name]
                row["hit@1"].append(float(bool(ranked) and ranked[0] in g))
                row["recall@5"].append(recall_frac(ranked, g, 5))
                row["recall@10"].append(recall_frac(ranked, g, 10))
                row["ndcg@5"].append(ndcg(ranked, g, 5))
        report["n"][granularity] = len(jobs)
        table = {
            r.name: {**{m: mean(v) for m, v in scores[r.name].items()}, **latency_ms(r.latencies)} for r in runners
        }
        table["published bm25"] = dict(PUBLISHED[granularity])
        if granularity in FUSION:
            table["published bm25+e5-large fusion"] = dict(FUSION[granularity])
        report["granularities"][granularity] = table
    return report
