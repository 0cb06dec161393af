"""Series counts on the labelled series sets, with an oracle memory model.

``python -m evals.series_counts`` runs two write-pass series stages over
tests/data/series_{dev,test}.json and prints, per split, how many series are
counted exactly, and how many supersession chains give the exact number of
changes for each question (English and Chinese).

``--code`` runs the stage the embedded model gets instead (memory.series.plan_in_code: no
model, the kinds of event read from meaning and shared content); each series it makes is
scored as the labelled series most of its occurrences belong to, and a series whose
occurrences are mostly unlabelled is an extra one.

Without ``--code`` the memory model is an oracle: for every message the code shows it, it
names the labelled series (S<k> for a kept one, N<i> for one it named earlier
in the same reply, else 'new'). So the figure measures what code decides:
which messages reach the model (the pre-filter), which the gates refuse
(questions, plans, hedges), how occurrences in two languages join one series,
and the counting. How well a real model assigns series is not measured here.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SPLITS = ("dev", "test", "test2")
TZ = ZoneInfo("Europe/Berlin")


def load(split: str) -> dict:
    return json.loads((DATA / f"series_{split}.json").read_text(encoding="utf-8"))


class Oracle:
    """Answers the series calls from the labels, for the messages it is shown."""

    def __init__(self, data: dict):
        self.label = {m["text"][:1000]: m["series"] for m in data["messages"]}
        self.names = data["names"]
        self.words = data.get("words", {})
        self.key_of_name = {v: k for k, v in self.names.items()}

    def __call__(self, *, purpose, system, prompt, schema=None, schema_name="", max_tokens=0):
        shown = re.findall(r"^\[(\d+)\] \S+: (.*)$", prompt, re.M)
        if purpose == "series backfill":
            named = {self.key_of_name.get(name): ref for ref, name in re.findall(r"^(N\d+)\. (.*)$", prompt, re.M)}
            return {
                "occurrences": [
                    {"message": int(n), "series": named[self.label[t]], "date_text": ""}
                    for n, t in shown
                    if self.label.get(t) in named
                ]
            }
        listed = {
            self.key_of_name.get(name): ref for ref, name in re.findall(r"^(S\d+)\. (.*?) \(\d+ so far", prompt, re.M)
        }
        born: list[str] = []
        out = []
        for n, text in shown:
            key = self.label.get(text)
            if key is None:
                continue
            if key in listed:
                ref, name = listed[key], ""
            elif key in born:
                ref, name = f"N{born.index(key) + 1}", ""
            else:
                born.append(key)
                ref, name = "new", self.names[key]
            out.append(
                {
                    "message": int(n),
                    "series": ref,
                    "name": name,
                    "words": self.words.get(key, "") if name else "",
                    "date_text": "",
                }
            )
        return {"occurrences": out}


def score(data: dict, code: bool = False) -> dict:
    from memory import facts, series
    from memory import messages as store
    from memory.db import open_db, transaction

    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(Path(tmp) / "kept.db")
        chat = store.get_chat(db)
        llm = Oracle(data)
        for n in (1, 2):
            msgs = []
            for m in data["messages"]:
                if m["pass"] == n:
                    mid = store.add_message(
                        db, chat, "user", "me", m["text"], datetime(2026, 10, m["day"], 10, tzinfo=TZ)
                    )
                    msgs.append(store.get(db, mid))
            plan = (series.plan_in_code if code else series.plan)(db, msgs, llm, date(2026, 10, 20))
            with transaction(db) as conn:
                series.apply(conn, plan)
        got: dict[str, int] = {}
        for s in series.all_series(db):
            key = llm.key_of_name.get(s.name) or (_majority(db, s, llm) if code else s.name)
            got[key] = max(got.get(key, 0), s.count)
        counts = {key: (want, got.get(key, 0)) for key, want in data["counts"].items()}
        extra = sorted(set(got) - set(data["counts"]))

        chains = []
        for c in data["chains"]:
            with transaction(db) as conn:
                fid = facts.add_fact(conn, c["versions"][0], "2026-10-01", [])
                for day, text in enumerate(c["versions"][1:], 2):
                    fid = facts.update_fact(conn, fid, text, f"2026-10-{day:02d}", [])
            chains.append(c)
        asked = []
        for c in chains:
            for q in c["questions"]:
                lines = [line for line in series.changes_for(db, q) if c["versions"][-1].rstrip(".。") in line]
                m = re.match(r"changed (once|\d+ times)", lines[0]) if lines else None
                n = (1 if m.group(1) == "once" else int(m.group(1).split()[0])) if m else 0
                asked.append((q, c["count"], n))
        db.conn.close()
    return {"counts": counts, "extra": extra, "chains": asked}


def _majority(db, s, llm) -> str:
    """The labelled series most of a code-made series' occurrences belong to, else its own name."""
    from collections import Counter

    from memory import messages as store

    texts = [m.text[:1000] for m in (store.get(db, mid) for mid in s.message_ids) if m is not None]
    labels = Counter(llm.label.get(t) for t in texts)
    top, n = labels.most_common(1)[0] if labels else (None, 0)
    return top if top and n * 2 > len(s.message_ids) else s.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.series_counts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", choices=SPLITS, help="list every series and question of a split")
    parser.add_argument("--code", action="store_true", help="the stage read in code (the embedded model's), no model")
    args = parser.parse_args(argv)
    for split in SPLITS:
        s = score(load(split), code=args.code)
        exact = sum(w == g for w, g in s["counts"].values())
        chain_exact = sum(w == g for _, w, g in s["chains"])
        print(
            f"{split:5} series counted exactly {exact}/{len(s['counts'])}, extra series {len(s['extra'])}; "
            f"changes counted exactly {chain_exact}/{len(s['chains'])} questions"
        )
        if args.show == split:
            for key, (w, g) in s["counts"].items():
                print(f"    {key:12} want {w} got {g}")
            for name in s["extra"]:
                print(f"    extra: {name}")
            for q, w, g in s["chains"]:
                print(f"    {q!r}: want {w} got {g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
