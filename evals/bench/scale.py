"""The store at scale: recall over the fact log, search over raw messages,
and the cost of adding one message.

Stores are built in a temporary directory from seeded synthetic text (a
Zipf-like vocabulary of work words, names, numbers and dates), so every run
measures the same thing. Recall is compared with building a plain BM25 index
(rank-bm25 over lowercase words) per query, which is what caching saves.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.bench.common import latency_ms, lowercase_words, render_table

_TOPICS = """billing cutover launch budget invoice contract vendor renewal roadmap sprint release deploy
rollback incident postmortem latency checkout payments search mobile android ios backend frontend database
postgres kafka pipeline dashboard metrics churn revenue forecast hiring interview offsite travel flight hotel
visa passport dentist doctor gym swimming school daughter son anniversary dinner lunch coffee meeting review
design spec migration audit compliance security password rotation oncall pager alert staging production
customer support ticket escalation partner api quota ratelimit pricing discount quarter target goal okr""".split()
_NAMES = "Priya Marco Elena David Jonas Lena Tom Sam Mia Nina Omar Yuki Carlos Aisha Ben Chloe Wei Zhang".split()
_VERBS = "moved approved asked wants needs scheduled cancelled shipped blocked fixed owns leads prefers booked".split()
_FILLER = "the a for on with to at by about after before next this our my their new old".split()
_MONTHS = "January February March April May June July August September October November December".split()


def _sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(2, 4)):
        words.append(rng.choice(_NAMES) if rng.random() < 0.3 else rng.choice(_TOPICS[: rng.randint(8, len(_TOPICS))]))
        words.append(rng.choice(_VERBS))
        words.append(rng.choice(_FILLER))
    if rng.random() < 0.4:
        words.append(f"{rng.choice(_MONTHS)} {rng.randint(1, 28)}")
    if rng.random() < 0.3:
        words.append(f"${rng.randint(1, 200)},000")
    return " ".join(words).capitalize() + "."


def _query(rng: random.Random) -> str:
    return f"What about the {rng.choice(_TOPICS)} {rng.choice(_TOPICS)} {rng.choice(_NAMES)}?"


def _task_query(rng: random.Random) -> str:
    return (
        f"Send {rng.choice(_NAMES)} the {rng.choice(_TOPICS)} {rng.choice(_TOPICS)} notes by {rng.choice(_MONTHS)} 3."
    )


def _long_query(rng: random.Random, words: int = 20) -> str:
    """A pasted-paragraph query: many words, most of them common."""
    return " ".join(rng.choice(_TOPICS + _NAMES + _VERBS) for _ in range(words))


def _time(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        start = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - start)
    return out


def run(message_counts: list[int], n_facts: int = 500, n_queries: int = 200, seed: int = 7) -> dict:
    from agent.session import open_store
    from memory import messages, recall, search
    from memory.db import transaction

    rng = random.Random(seed)
    queries = [_query(rng) for _ in range(n_queries)]
    long_rng = random.Random(seed + 1)  # its own stream: the stores stay those of earlier runs
    long_queries = [_long_query(long_rng) for _ in range(max(1, n_queries // 4))]
    task_queries = [_task_query(long_rng) for _ in range(n_queries)]
    from memory import meaning

    on = meaning.available()
    report: dict = {"facts": n_facts, "queries": n_queries, "meaning": on, "recall": {}, "messages": []}
    with tempfile.TemporaryDirectory(prefix="kept-scale-") as tmp:
        db = open_store(Path(tmp) / "kept.db")
        day = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
        with transaction(db) as conn:
            for i in range(n_facts):
                said = (day + timedelta(days=i % 300)).date().isoformat()
                conn.execute(
                    "INSERT INTO facts (text, said_on, status, created_at, touched_at) VALUES (?, ?, 'active', ?, ?)",
                    (f"{said}: {_sentence(rng)}", said, said, said),
                )

        # Recall: the first call builds the cached index (and, with the meaning model, loads it and
        # embeds the facts, storing their vectors); later ones reuse it.
        start = time.perf_counter()
        recall.recall_facts(db, queries[0])
        cold = time.perf_counter() - start
        warm = _time(lambda i: recall.recall_facts(db, queries[i]), n_queries)
        warm_tasks = _time(lambda i: recall.recall_facts(db, task_queries[i]), n_queries)
        # What a new process meets once the vectors are stored: the model loads, the facts' vectors
        # are read from the store, only the turn is embedded.
        recall._FACT_CACHE.clear()
        meaning.forget_loaded()
        start = time.perf_counter()
        recall.recall_facts(db, queries[1])
        cold_stored = time.perf_counter() - start

        def plain(i):
            from rank_bm25 import BM25Okapi

            from memory.facts import by_status

            texts = [f.text for f in by_status(db, "active")]
            BM25Okapi([lowercase_words(t) for t in texts]).get_scores(lowercase_words(queries[i]))

        plain_times = _time(plain, n_queries)
        meaning_rows: dict = {}
        if on:
            # Where the model's cost shows up: loaded at the first turn that needs it (words brought
            # nothing, or a question's focus is judged), then each new turn text is embedded once.
            meaning.forget_loaded()
            start = time.perf_counter()
            meaning.encoder()
            meaning_rows["meaning model load (first turn needing it)"] = {
                "p50_ms": round((time.perf_counter() - start) * 1000, 3),
                "p95_ms": None,
            }
            meaning_rows["meaning: embedding one new turn"] = latency_ms(
                _time(lambda i: meaning.embed_one(queries[i]), min(50, n_queries))
            )
        report["recall"] = {
            "kept (cached index)": latency_ms(warm),
            "kept, task-shaped turns": latency_ms(warm_tasks),
            "kept first call (builds index)": {"p50_ms": round(cold * 1000, 3), "p95_ms": None},
            "kept first call, new process, vectors stored": {"p50_ms": round(cold_stored * 1000, 3), "p95_ms": None},
            **meaning_rows,
            "plain BM25 built per query": latency_ms(plain_times),
            "ratio_p50": round(statistics.median(warm) / statistics.median(plain_times), 4),
        }

        chat = messages.get_chat(db)
        have = 0
        for target in sorted(message_counts):
            with transaction(db):  # bulk load in one transaction; the index hook runs per message
                while have < target:
                    messages.add_message(
                        db,
                        chat,
                        "user" if have % 2 == 0 else "assistant",
                        "me",
                        _sentence(rng),
                        day + timedelta(minutes=have),
                    )
                    have += 1
            found: list[int] = []
            search_times = _time(
                lambda i, found=found: found.append(len(search.search_messages(db, queries[i], 10))), n_queries
            )

            def add_one(i, have=have):
                messages.add_message(db, chat, "user", "me", _sentence(rng), day + timedelta(minutes=have + i))

            add_times = _time(add_one, 50)
            have += 50
            long_times = _time(lambda i: search.search_messages(db, long_queries[i], 10), len(long_queries))
            report["messages"].append(
                {
                    "messages": target,
                    "search": latency_ms(search_times),
                    "hits_per_query": round(statistics.fmean(found), 1),
                    "search_long": latency_ms(long_times),
                    "add_message": latency_ms(add_times),
                }
            )
        db.conn.close()
    return report


def render(report: dict) -> str:
    r = report["recall"]
    rows = [[name, v["p50_ms"], v["p95_ms"]] for name, v in r.items() if isinstance(v, dict)]
    first = render_table(
        f"Recall over {report['facts']} active facts ({report['queries']} queries), meaning model"
        f" {'on' if report.get('meaning') else 'off'}; kept/plain p50 = {r['ratio_p50']}",
        ["recall", "p50 ms", "p95 ms"],
        rows,
    )
    second = render_table(
        "search_memory messages (FTS5) and the cost of adding one message (own transaction, index updated)",
        [
            "messages",
            "search p50 ms",
            "search p95 ms",
            "hits/query",
            "20-word query p50 ms",
            "20-word p95 ms",
            "add p50 ms",
            "add p95 ms",
        ],
        [
            [
                m["messages"],
                m["search"]["p50_ms"],
                m["search"]["p95_ms"],
                m["hits_per_query"],
                m["search_long"]["p50_ms"],
                m["search_long"]["p95_ms"],
                m["add_message"]["p50_ms"],
                m["add_message"]["p95_ms"],
            ]
            for m in report["messages"]
        ],
    )
    return first + "\n\n" + second
