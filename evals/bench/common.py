"""What the retrieval benchmarks share: the systems compared, metrics, timing, tables."""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Sequence

_WORDS = re.compile(r"\w+")


def whitespace_tokens(text: str) -> list[str]:
    return text.split()


def lowercase_words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


class PlainBM25:
    """A baseline: rank-bm25's BM25Okapi over a plain tokenizer, as published."""

    def __init__(self, docs: Sequence[str], tokenize: Callable[[str], list[str]], k1: float = 1.5, b: float = 0.75):
        from rank_bm25 import BM25Okapi

        self.tokenize = tokenize
        # rank-bm25 divides by the mean length: an empty corpus or all-empty docs would fail.
        self.bm25 = BM25Okapi([tokenize(d) or ["<empty>"] for d in docs], k1=k1, b=b)

    def rank(self, query: str, k: int) -> list[int]:
        scores = self.bm25.get_scores(self.tokenize(query))
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return order[:k]


class System:
    """A named ranker over one document list at a time, timed per query."""

    def __init__(self, name: str, make: Callable[[Sequence[str]], Callable[[str, int], list[int]]]):
        self.name = name
        self.make = make
        self.latencies: list[float] = []
        self._docs: Sequence[str] | None = None
        self._ranker: Callable[[str, int], list[int]] | None = None

    def rank(self, docs: Sequence[str], query: str, k: int) -> list[int]:
        """Rank ``docs`` for ``query``; the time counted includes indexing a new document list."""
        start = time.perf_counter()
        if self._ranker is None or self._docs is not docs:
            self._ranker = self.make(docs)
            self._docs = docs  # held, so its identity cannot be reused
        out = self._ranker(query, k)
        self.latencies.append(time.perf_counter() - start)
        return out


def kept_system() -> System:
    from memory.recall import rank

    def make(docs):
        docs = list(docs)
        return lambda query, k: [i for i, _ in rank(query, docs, k)]

    return System("kept", make)


def kept_gated_system() -> System:
    """What kept ships: ``recall()``, the gated matcher (it may return fewer than ``k``, or nothing)."""
    from memory.recall import recall

    def make(docs):
        docs = list(docs)
        return lambda query, k: [i for i, _ in recall(query, docs, k)]

    return System("kept recall() (gated)", make)


def plain_system(name: str, tokenize: Callable[[str], list[str]]) -> System:
    def make(docs):
        index = PlainBM25(docs, tokenize)
        return index.rank

    return System(name, make)


def systems() -> list[System]:
    return [
        kept_system(),
        kept_gated_system(),
        plain_system("bm25 whitespace", whitespace_tokens),
        plain_system("bm25 lowercase \\w+", lowercase_words),
    ]


# --- metrics -----------------------------------------------------------------


def recall_all(ranked: Sequence, gold: set, k: int) -> float:
    return float(gold.issubset(ranked[:k]))


def recall_any(ranked: Sequence, gold: set, k: int) -> float:
    return float(any(r in gold for r in ranked[:k]))


def recall_frac(ranked: Sequence, gold: set, k: int) -> float:
    return len(gold.intersection(ranked[:k])) / len(gold)


def ndcg(ranked: Sequence, gold: set, k: int) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, r in enumerate(ranked[:k]) if r in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def window(items: list, skip: int = 0, limit: int | None = None) -> list:
    """The items after the first ``skip``, at most ``limit`` of them (None or 0: all the rest)."""
    rest = items[skip:]
    return rest[:limit] if limit else rest


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_ms(values: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 0.5) * 1000, 3), "p95_ms": round(percentile(values, 0.95) * 1000, 3)}


def mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 4) if values else float("nan")


def progress(items, description: str, total: int | None = None, show: bool = True):
    """Iterate with a rich progress bar on a terminal (rich loads only here)."""
    if not show:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description=description, total=total, transient=True)


def render_table(title: str, columns: Sequence[str], rows: Sequence[Sequence]) -> str:
    """A plain aligned text table (copyable into the README)."""
    cells = [[str(c) for c in columns]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = [title, "| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in cells[1:]:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + " |")
    return "\n".join(lines)


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def render_report(report: dict, metrics: Sequence[str]) -> str:
    """One table per granularity: systems as rows, metrics and latency as columns."""
    out = []
    n = report.get("n")
    for granularity, table in report["granularities"].items():
        count = n.get(granularity) if isinstance(n, dict) else n
        columns = ["system", *metrics, "p50 ms", "p95 ms"]
        rows = [
            [name, *[row.get(m) for m in metrics], row.get("p50_ms"), row.get("p95_ms")] for name, row in table.items()
        ]
        out.append(render_table(f"{report['benchmark']}, {granularity} (n = {count})", columns, rows))
    return "\n\n".join(out)
