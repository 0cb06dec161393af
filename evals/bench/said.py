"""What the person's own words add to recall, and what they cost in tokens.

``memory.said`` quotes up to three of the person's earlier messages when a
turn is about their world and no fact comes. Two measures:

- **LongMemEval-S** (public, not tuned on by this source): each question's
  haystack is loaded into a real store as a private chat (user and
  assistant turns, dated, in date order) with no facts, as before any write
  pass, and the question asked in a new chat. Without the second source kept
  brings nothing (LongMemEval has no facts); with it: how often it opens,
  whether a gold session or gold turn is among the quoted messages, whether a
  short answer (up to ``SHORT_ANSWER`` characters) is in the quoted text, and
  the tokens the block adds. Beside it: the full-text search's top 3 with no
  gate and no matcher (what raw BM25 over the messages would bring).
- **The recall sets** (tests/data/recall_*.jsonl: the dev splits, or the files given): each fact
  also stored as the person's message it came from (the fact's source, dated
  its day), then every turn asked twice: with the facts (the second source
  opens only when none comes) and with messages only (no write pass yet). Per
  turn class: answerable turns with all gold covered by facts or quoted
  messages, and ordinary, general and never-stored turns that get any
  message (the gate must hold: these should stay near zero).

Tokens are counted with the embedded model's tokenizer when its file is
installed (``kept model install``), else estimated as characters / 4 (the
report says which).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from evals.bench import gate
from evals.bench.common import latency_ms, mean, progress, render_table

# The held-out splits (gate.HELD_OUT) are left out: they are run once, by name, with --split FILE.
SPLITS = {name: path for name, path in gate.SPLITS.items() if name not in gate.HELD_OUT}
SHORT_ANSWER = 40  # characters: longer gold answers (rubrics, explanations) are not looked for verbatim
UTC = ZoneInfo("UTC")


class Tokens:
    """Token counts of prompt text: the embedded model's tokenizer, or characters / 4."""

    def __init__(self) -> None:
        self.how = "characters / 4 (estimate: the embedded model is not installed)"
        self._count: Callable[[str], int] = lambda text: (len(text) + 3) // 4
        try:
            import llama_cpp

            from agent.models import model_file

            found = model_file.locate()
            if found is not None:
                vocab = llama_cpp.Llama(str(found.path), vocab_only=True, verbose=False)
                self._count = lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))
                self.how = f"the embedded model's tokenizer ({found.path.name})"
        except Exception:  # no llama.cpp, or a file it cannot read: the estimate, said so in the report
            pass

    def __call__(self, text: str) -> int:
        return self._count(text) if text else 0


def block(heard: Sequence) -> str:
    """The prompt block agent/context.py adds for these messages (empty when none)."""
    from agent.context import quote
    from memory import said

    if not heard:
        return ""
    return quote(said.QUOTE[0], "\n".join(f"- {h.line()}" for h in heard), said.QUOTE[1])


def _lme_date(raw: str) -> datetime:
    return datetime.strptime(raw.split(" (")[0] + " " + raw.rsplit(" ", 1)[-1], "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def _lme_store(item: dict):
    """One question's haystack as a private chat; returns (db, ask chat, {message id: (session, gold turn)})."""
    from memory import messages as store
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    chat = store.get_chat(db, "history")
    where: dict[int, tuple[int, bool]] = {}
    order = sorted(range(len(item["haystack_sessions"])), key=lambda s: _lme_date(item["haystack_dates"][s]))
    with transaction(db):
        for s in order:
            at = _lme_date(item["haystack_dates"][s])
            for turn in item["haystack_sessions"][s]:
                role = "user" if turn.get("role") == "user" else "assistant"
                mid = store.add_message(db, chat, role, "me" if role == "user" else "kept", turn["content"], at)
                if role == "user":
                    where[mid] = (s, bool(turn.get("has_answer")))
    return db, store.get_chat(db, "question"), where


def longmemeval(path: str | Path, limit: int | None = None, show_progress: bool = True, data=None) -> dict:
    from evals.bench import longmemeval as lme
    from memory import recall, said, search

    items = [it for it in (data if data is not None else lme.load(path)) if lme.evaluable(it)]
    if limit:
        items = items[:limit]
    count = Tokens()
    names = ("kept said (gate + matcher, k=3)", "FTS top-3, no gate")
    rows: dict[str, dict[str, list]] = {n: {} for n in names}
    short = 0
    took: dict[str, list[float]] = {n: [] for n in names}
    for item in progress(items, "LongMemEval said", len(items), show_progress):
        db, chat, where = _lme_store(item)
        try:
            gold_sessions = {s for s, gold in where.values() if gold}
            answer = str(item["answer"]).casefold().strip()
            is_short = 0 < len(answer) <= SHORT_ANSWER
            short += is_short
            recall.gate(db, "")  # the store's (empty) fact index, built once, as in a chat
            start = time.perf_counter()
            heard = said.for_turn(db, chat, item["question"], recent=0)
            took[names[0]].append(time.perf_counter() - start)
            start = time.perf_counter()
            raw = [
                said.Said(m.id, m.at[:10], search.snippet(m.text, [], said.MAX_CHARS), 0.0, "")
                for m in search.own_messages(db, item["question"], said.MAX_SAID)
            ]
            took[names[1]].append(time.perf_counter() - start)
            whole = {m.id: m.text for m in search.own_messages(db, item["question"], said.CANDIDATES)}
            for name, got in zip(names, (heard, raw), strict=True):
                row = rows[name]
                sessions = {where[h.id][0] for h in got}
                row.setdefault("opens", []).append(bool(got))
                row.setdefault("gold session among quoted", []).append(bool(sessions & gold_sessions))
                row.setdefault("all gold sessions quoted", []).append(gold_sessions <= sessions)
                row.setdefault("gold turn quoted", []).append(any(where[h.id][1] for h in got))
                if is_short:
                    quoted = " ".join(h.text for h in got).casefold()
                    full = " ".join(whole.get(h.id, h.text) for h in got).casefold()
                    row.setdefault("short answer in quoted text", []).append(answer in quoted)
                    row.setdefault("short answer in the whole messages", []).append(answer in full)
                tokens = count(block(got))
                row.setdefault("tokens per turn", []).append(tokens)
                if got:
                    row.setdefault("tokens per turn it opens", []).append(tokens)
        finally:
            db.conn.close()
    figures = {n: {**{m: round(mean(v), 3) for m, v in r.items()}, **latency_ms(took[n])} for n, r in rows.items()}
    return {
        "benchmark": "LongMemEval-S",
        "n": len(items),
        "short answers": short,
        "tokens": count.how,
        "systems": figures,
    }


def _split_store(split: dict, with_facts: bool):
    """The split's facts (optionally) and, for every fact, the person's message it came from."""
    from memory import facts as fact_log
    from memory import messages as store
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    chat = store.get_chat(db, "me")
    message_of: dict[int, int] = {}  # message id -> split fact id
    to_db: dict = {}
    with transaction(db) as conn:
        for f in sorted(split["facts"], key=lambda f: f["said_on"]):
            at = datetime.fromisoformat(f["said_on"]).replace(hour=9, tzinfo=UTC)
            mid = store.add_message(db, chat, "user", "me", f["text"], at)
            message_of[mid] = f["id"]
            if not with_facts:
                continue
            if f.get("replaces") is not None:
                to_db[f["id"]] = fact_log.update_fact(conn, to_db[f["replaces"]], f["text"], f["said_on"], [mid])
            else:
                to_db[f["id"]] = fact_log.add_fact(conn, f["text"], f["said_on"], [mid])
    return db, store.get_chat(db, "ask"), message_of, {v: k for k, v in to_db.items()}


def recall_sets(paths: dict[str, Path] | None = None) -> dict:
    from memory import recall, said

    count = Tokens()
    report: dict = {"tokens": count.how, "splits": {}}
    for split_name, path in (paths or SPLITS).items():
        if not Path(path).exists():
            continue
        split = gate.load(path)
        figures: dict = {}
        for setting, with_facts in (("facts + messages", True), ("messages only", False)):
            db, chat, message_of, fact_of = _split_store(split, with_facts)
            try:
                per: dict[str, list] = {}
                for turn in split["turns"]:
                    cls = turn["class"]
                    recalled = recall.recall_facts(db, turn["text"]) if with_facts else []
                    heard = said.for_turn(db, chat, turn["text"], recalled, recent=0)
                    per.setdefault(f"{cls}: any message", []).append(bool(heard))
                    per.setdefault(f"{cls}: tokens", []).append(count(block(heard)))
                    if cls == "answerable":
                        from_facts = {fact_of[r.id] for r in recalled if r.id in fact_of}
                        from_said = {message_of[h.id] for h in heard}
                        gold = set(turn["gold"])
                        per.setdefault("answerable: all gold, facts", []).append(gold <= from_facts)
                        per.setdefault("answerable: all gold, facts or messages", []).append(
                            gold <= from_facts | from_said
                        )
            finally:
                db.conn.close()
            figures[setting] = {m: round(mean(v), 3) for m, v in sorted(per.items())}
        report["splits"][split_name] = {"path": str(path), "settings": figures}
    return report


def render(lme: dict | None, sets: dict | None) -> str:
    out = []
    if lme is not None:
        systems = lme["systems"]
        metrics = list(next(iter(systems.values())))
        out.append(
            render_table(
                f"LongMemEval-S, no facts stored (kept without this source brings nothing): n = {lme['n']}, "
                f"{lme['short answers']} with a short answer; tokens: {lme['tokens']}",
                ["system", *metrics],
                [[name, *(fig.get(m) for m in metrics)] for name, fig in systems.items()],
            )
        )
    if sets is not None:
        splits = sets["splits"]
        cols = [(s, setting) for s, r in splits.items() for setting in r["settings"]]
        metrics = sorted({m for s, setting in cols for m in splits[s]["settings"][setting]})
        out.append(
            render_table(
                f"The recall sets, each fact also stored as the message it came from; tokens: {sets['tokens']}",
                ["per turn", *(f"{s}: {setting}" for s, setting in cols)],
                [[m, *(splits[s]["settings"][setting].get(m) for s, setting in cols)] for m in metrics],
            )
        )
    return "\n\n".join(out)
