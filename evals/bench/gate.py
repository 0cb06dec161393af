"""What recall brings, per kind of turn, on held-out and dev stores.

Each split (JSONL, see tests/data/recall_test.jsonl) is one person's store of
facts, phrased the way a memory model writes them, some superseded by later
ones, and turns of five classes:

- ``answerable``: a question or a task the store answers; ``gold`` is every
  fact it needs. Some are ``rule`` tasks (the gold is a standing rule of the
  person's that shares few words with the request) and some ask about an
  ``update`` (``current``: the newest value; ``chain``: the whole history).
- ``ordinary``: a turn that needs no memory (thanks, rewrite this, a poem).
- ``general``: a general-knowledge question on a stored topic.
- ``absent``: a question about the person's world that the store cannot answer.

Each split is loaded into a real store (``:memory:``) and asked through
``memory.recall.recall_facts`` (what kept ships; with the meaning model
installed, also without it: "kept, words only") beside plain BM25 top-12 over
the active facts (no gate). The older dev file (tests/data/recall_dev.jsonl,
one line per fact or turn, no updates) is read too.

Splits, in the order they print (a missing file is left out):

- ``test39``: tests/data/recall_test39.jsonl, written at the start of the twenty-ninth round by a
  helper without reading the code (only recall_test37.jsonl, for its format): the IT and facilities
  manager of a 120-person architecture firm in Nairobi with a Kigali branch, buying laptops from
  Shenzhen (Simplified characters) and insuring with a Hong Kong firm (Traditional, some Cantonese);
  held out.

- ``test38``: tests/data/recall_test38.jsonl, written at the same time by another helper the same
  way: the head chef and co-owner of a 60-cover restaurant in Montréal buying seafood from Dalian and
  dumpling wrappers from a supplier who writes Simplified characters, wine from Taipei (Traditional);
  held out.

- ``test37``: tests/data/recall_test37.jsonl, written at the start of the twenty-seventh round by a
  helper without reading the code (only recall_test35.jsonl, for its format): the procurement and
  logistics lead of a bicycle and e-bike parts importer in Rotterdam buying from Taichung
  (Traditional characters) and Shenzhen; held out.

- ``test36``: tests/data/recall_test36.jsonl, written at the same time by another helper the same way:
  a veterinary surgeon co-owning a mixed-practice animal hospital in Hobart, with a practice manager
  who writes Traditional characters and a nurse from Guangzhou; held out.

- ``test35``: tests/data/recall_test35.jsonl, written at the start of the twenty-sixth round by a
  helper without reading the code (only recall_test33.jsonl, for its format): a freelance documentary
  producer in Lisbon co-producing with a Taipei company (Traditional characters) and a Berlin
  broadcaster; held out.

- ``test34``: tests/data/recall_test34.jsonl, written at the same time by another helper the same way:
  the head of facilities at a private primary school in Kuala Lumpur with Mandarin-speaking staff and
  parents; held out.

- ``test33``: tests/data/recall_test33.jsonl, written at the start of the twenty-third round by
  another person (a helper) without reading the code (only recall_test32.jsonl, for its format): the
  operations lead of a ship chandler in Singapore (Pasir Panjang) with Mandarin-speaking colleagues
  and a Shanghai client; held out.

- ``test32``: tests/data/recall_test32.jsonl, written at the start of the twenty-second round by
  another person (a helper) without reading the code (only recall_test27.jsonl, for its format): the
  co-owner of a pre-wedding photography studio in Queenstown whose clients come from mainland China
  (facts 58% English, 24% Chinese, 18% mixed); held out.

- ``test31``: tests/data/recall_test31.jsonl, written at the start of the twenty-first round by
  another person (a helper) without reading the code (only recall_test27.jsonl, for its format): an
  operations manager at a brake-caliper maker in Taichung who writes in Traditional characters
  (turns 60% Traditional Chinese, 20% mixed, 20% English); held out.
- ``test29``, ``test30``: tests/data/recall_test29.jsonl and recall_test30.jsonl, written at the
  start of the nineteenth round by two other people (a helper each) without reading the code (only
  one older set each, for its format); held out.
- ``test28``: tests/data/recall_test28.jsonl, written late in the eighteenth round by another person
  (a helper) without reading the code (only recall_test23.jsonl, for its format: a palm-oil mill's
  head of logistics in Sabah, shipping to 张家港); read only at that round's end; held out.
- ``dev19 (was test26)``, ``dev19b (was test27)``: tests/data/recall_test26.jsonl and
  recall_test27.jsonl, the eighteenth round's held-out sets (a ferry operator's chief engineer in
  Vancouver; a hull-cleaning robot start-up's founder in Singapore), read at that round's start,
  end and once more after a late change; dev from the nineteenth round on.
- ``dev18 (was test24)``, ``dev18b (was test25)``: tests/data/recall_test24.jsonl and
  recall_test25.jsonl, the seventeenth round's held-out sets (a hospital pharmacy procurement lead
  in Porto; a hotel and wedding-venue owner near Chiang Mai), read at that round's start and end;
  dev from the eighteenth round on.
- ``dev17 (was test22)``, ``dev17b (was test23)``: tests/data/recall_test22.jsonl and
  recall_test23.jsonl, the sixteenth round's held-out sets (a seafood processor's operations
  manager in Ålesund; a bus operator's general manager in Launceston), read at that round's start
  and end; dev from the seventeenth round on.
- ``dev16 (was test20)``, ``dev16b (was test21)``: tests/data/recall_test20.jsonl and
  recall_test21.jsonl, the fifteenth round's held-out sets (a hospital laundry in Porto; a
  curriculum coordinator in Suzhou), read at that round's start and end; dev from the sixteenth
  round on.
- ``dev15 (was test18)``, ``dev15b (was test19)``: tests/data/recall_test18.jsonl and
  recall_test19.jsonl, the fourteenth round's held-out sets (an estates head at a Leeds
  university; a nursing deputy director in Xi'an), read at that round's start and end; dev from
  the fifteenth round on.
- ``dev14 (was test16)``, ``dev14b (was test17)``: tests/data/recall_test16.jsonl and
  recall_test17.jsonl, the thirteenth round's held-out sets (a procurement head at a Nairobi solar
  mini-grid company; a game producer in Chengdu), read at that round's start and end; dev from the
  fourteenth round on.
- ``dev13 (was test14)``, ``dev13b (was test15)``: tests/data/recall_test14.jsonl and
  recall_test15.jsonl, the twelfth round's held-out sets (an operating theatre manager in Kuala
  Lumpur; a tea exporter in Xiamen), read at that round's start and end; dev from the thirteenth
  round on.
- ``dev12 (was test12)``, ``dev12b (was test13)``: tests/data/recall_test12.jsonl and
  recall_test13.jsonl, the eleventh round's held-out sets (a construction project manager in
  Singapore; a game-studio producer in Chengdu), read at that round's start and end; dev from the
  twelfth round on.
- ``dev11 (was test10)``, ``dev11b (was test11)``: tests/data/recall_test10.jsonl and
  recall_test11.jsonl, the tenth round's held-out sets, read at that round's start and end (and
  one revert was decided on them); dev from the eleventh round on.
- ``dev10 (was test9)``: tests/data/recall_test9.jsonl, the ninth round's held-out set (a brewery
  owner in Melbourne), read at that round's start and end; dev from the tenth round on.
- ``dev9 (was test8)``: tests/data/recall_test8.jsonl, the eighth round's held-out set (a hospital
  pharmacy manager in Burnaby), read at that round's start and end; dev from the ninth round on.
- ``dev8 (was test7)``: tests/data/recall_test7.jsonl, the seventh round's held-out set (a
  Rotterdam freight forwarder), read at that round's start and end; dev from the eighth round on.
- ``dev7 (was test6)``: tests/data/recall_test6.jsonl, the sixth round's held-out set, read in
  aggregate in the sixth and seventh rounds; dev from the eighth round on.
- ``dev6 (was test5)``: tests/data/recall_test5.jsonl, written late in the fifth round for the
  standing-rules change, read in aggregate in the fifth to seventh rounds; dev from the eighth.
- ``dev5 (was test4)``: tests/data/recall_test4.jsonl, the fifth round's held-out set, read
  twice in aggregate; dev from the sixth round on (``--split test4`` still names it).
- ``dev4 (was test3)``: tests/data/recall_test3.jsonl, the third round's held-out set, read at
  five points in aggregate; dev from the sixth round on (``--split test3`` still names it).
- ``dev3 (was test2)``: tests/data/recall_test2.jsonl. It was the held-out set of
  the second round, read once at its end; its misses guided the third round, so
  it is dev now (``--split test2`` still names it).
- ``dev (was test)``: tests/data/recall_test.jsonl. It was the held-out set of
  the first round; its figures guided that round's last changes, so it is dev now.
- ``dev2``: tests/data/recall_dev2.jsonl, written for tuning.
- ``dev-old``: tests/data/recall_dev.jsonl, the oldest dev file (in-sample).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from evals.bench.common import render_table

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SPLITS = {
    "test39": DATA / "recall_test39.jsonl",
    "test38": DATA / "recall_test38.jsonl",
    "test37": DATA / "recall_test37.jsonl",
    "test36": DATA / "recall_test36.jsonl",
    "test35": DATA / "recall_test35.jsonl",
    "test34": DATA / "recall_test34.jsonl",
    "test33": DATA / "recall_test33.jsonl",
    "test32": DATA / "recall_test32.jsonl",
    "test31": DATA / "recall_test31.jsonl",
    "test29": DATA / "recall_test29.jsonl",
    "test30": DATA / "recall_test30.jsonl",
    "test28": DATA / "recall_test28.jsonl",
    "dev19 (was test26)": DATA / "recall_test26.jsonl",
    "dev19b (was test27)": DATA / "recall_test27.jsonl",
    "dev18 (was test24)": DATA / "recall_test24.jsonl",
    "dev18b (was test25)": DATA / "recall_test25.jsonl",
    "dev17 (was test22)": DATA / "recall_test22.jsonl",
    "dev17b (was test23)": DATA / "recall_test23.jsonl",
    "dev16 (was test20)": DATA / "recall_test20.jsonl",
    "dev16b (was test21)": DATA / "recall_test21.jsonl",
    "dev15 (was test18)": DATA / "recall_test18.jsonl",
    "dev15b (was test19)": DATA / "recall_test19.jsonl",
    "dev14 (was test16)": DATA / "recall_test16.jsonl",
    "dev14b (was test17)": DATA / "recall_test17.jsonl",
    "dev13 (was test14)": DATA / "recall_test14.jsonl",
    "dev13b (was test15)": DATA / "recall_test15.jsonl",
    "dev12 (was test12)": DATA / "recall_test12.jsonl",
    "dev12b (was test13)": DATA / "recall_test13.jsonl",
    "dev11 (was test10)": DATA / "recall_test10.jsonl",
    "dev11b (was test11)": DATA / "recall_test11.jsonl",
    "dev10 (was test9)": DATA / "recall_test9.jsonl",
    "dev9 (was test8)": DATA / "recall_test8.jsonl",
    "dev8 (was test7)": DATA / "recall_test7.jsonl",
    "dev7 (was test6)": DATA / "recall_test6.jsonl",
    "dev6 (was test5)": DATA / "recall_test5.jsonl",
    "dev5 (was test4)": DATA / "recall_test4.jsonl",
    "dev4 (was test3)": DATA / "recall_test3.jsonl",
    "dev3 (was test2)": DATA / "recall_test2.jsonl",
    "dev (was test)": DATA / "recall_test.jsonl",
    "dev2": DATA / "recall_dev2.jsonl",
    "dev-old": DATA / "recall_dev.jsonl",
}
HELD_OUT = frozenset(
    {
        "test28",
        "test29",
        "test30",
        "test31",
        "test32",
        "test33",
        "test34",
        "test35",
        "test36",
        "test37",
        "test38",
        "test39",
    }
)


def held_out(path: str | Path) -> bool:
    """Whether ``path`` is a held-out split's file, however it is named (``--file`` too)."""
    return Path(path).resolve() in {SPLITS[name].resolve() for name in HELD_OUT}


DEFAULT_DEV = SPLITS["dev2"]
K = 12


def load(path: str | Path) -> dict:
    """Facts and turns of a split, in the new layout or the older one."""
    facts, turns, meta = [], [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            kind = row["kind"]
            if kind == "meta":
                meta = row
            elif kind == "fact":
                said_on, text = row.get("said_on"), row["text"]
                if said_on is None and text[:10].count("-") == 2:
                    said_on, text = text[:10], text[12:]
                facts.append(
                    {
                        "id": row["id"],
                        "said_on": said_on or "2026-01-01",
                        "text": text,
                        "replaces": row.get("replaces"),
                        "status": row.get("status", "active"),
                    }
                )
            elif kind == "turn":
                turns.append(row)
            else:  # older layout: the kind is the class
                turns.append(
                    {
                        "case": row.get("case", row["text"]),
                        "class": kind,
                        "text": row["text"],
                        "gold": row.get("gold", []),
                        "task": row.get("task", False),
                        "rule": row.get("rule", False),
                        "lang": row.get("lang", ""),
                    }
                )
    return {"facts": facts, "turns": turns, "meta": meta}


def store(split: dict):
    """A ``:memory:`` store holding the split's facts; returns (db, {db id: split id})."""
    from memory import facts as fact_log
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    to_db: dict = {}
    with transaction(db) as conn:
        # In the order they were said, as a memory writer would store them.
        for f in sorted(split["facts"], key=lambda f: f["said_on"]):
            if f.get("replaces") is not None:
                new = fact_log.update_fact(conn, to_db[f["replaces"]], f["text"], f["said_on"], [])
            else:
                new = fact_log.add_fact(conn, f["text"], f["said_on"], [])
            to_db[f["id"]] = new
    return db, {v: k for k, v in to_db.items()}


def systems(db, back: dict) -> dict[str, Callable[[str], list]]:
    """name -> function(turn text) -> split ids of the facts it brings."""
    from memory import accept, meaning, recall
    from memory import facts as fact_log

    active = fact_log.by_status(db, fact_log.ACTIVE)
    docs = [recall.fact_body(f.text) for f in active]

    def plain(text: str) -> list:
        return [back[active[i].id] for i, _ in recall.rank(text, docs, K)]

    def kept(text: str) -> list:
        return [back[r.id] for r in recall.recall_facts(db, text, k=K)]

    found: dict[str, Callable[[str], list]] = {"top-12, no gate": plain, "kept recall": kept}
    if accept.load("meaning" if meaning.available() else "words") is not None:

        def other(text: str) -> list:
            with accept.switched(not accept.enabled()):
                return kept(text)

        # The fitted acceptance step (memory/accept.py) beside the hand rules: whichever of the two
        # kept recall is not running (on by default; KEPT_ACCEPT=0 turns the step off). Its weights were fitted on
        # every dev split, so its figures on a dev split are in-sample (on a held-out one they are
        # not): `python -m evals.bench.fit_gate cv`
        # gives them leaving each split out.
        found["kept, hand rules only" if accept.enabled() else "kept + fitted step (fit on dev)"] = other
    if meaning.available():

        def words(text: str) -> list:
            with meaning.words_only():
                return kept(text)

        # What kept recalls without the meaning model (KEPT_MEANING=0, or the model not installed).
        found["kept, words only"] = words
    return found


# Language labels as the splits write them -> the rows they count in ("zh-hant": Traditional
# characters, read as Chinese like any other).
_LANG = {"zh-hant": "zh", "zh-hans": "zh", "mixed": "mix"}


def evaluate(split: dict, bring: Callable[[str], list]) -> dict:
    by_class: dict[str, list] = {"ordinary": [], "general": [], "absent": [], "answerable": []}
    all_needed: dict[str, list] = {
        "question": [],
        "task": [],
        "current": [],
        "chain": [],
        "en": [],
        "zh": [],
        "mix": [],
    }
    rule_cases: dict[str, list] = {}
    rule_turns = []
    stale = []
    superseded = {f["id"] for f in split["facts"] if f["status"] != "active"}
    for turn in split["turns"]:
        got = bring(turn["text"])
        cls = turn["class"]
        by_class.setdefault(cls, []).append(got)
        if cls != "answerable":
            continue
        hit = set(turn["gold"]) <= set(got)
        all_needed["task" if turn.get("task") else "question"].append(hit)
        lang = _LANG.get(turn.get("lang", ""), turn.get("lang"))
        if lang in all_needed:
            all_needed[lang].append(hit)
        if turn.get("update"):
            all_needed[turn["update"]].append(hit)
            if turn["update"] == "current":
                stale.append(bool(superseded & set(got)))
        if turn.get("rule"):
            rule_turns.append(hit)
            rule_cases.setdefault(turn["case"], []).append(hit)

    def any_fact(rows):
        return _share([bool(g) for g in rows])

    answerable = [
        set(t["gold"]) <= set(g)
        for t, g in zip([t for t in split["turns"] if t["class"] == "answerable"], by_class["answerable"], strict=True)
    ]
    found_cases = sum(1 for hits in rule_cases.values() if sum(hits) * 2 >= len(hits))
    return {
        "answerable: all facts": _share(answerable),
        "  questions": _share(all_needed["question"]),
        "  tasks": _share(all_needed["task"]),
        "  English": _share(all_needed["en"]),
        "  Chinese": _share(all_needed["zh"]),
        "  mixed": _share(all_needed["mix"]),
        "  update: current value": _share(all_needed["current"]),
        "  update: whole chain": _share(all_needed["chain"]),
        "  current asked, superseded shown": _share(stale),
        "indirect rules: turns found": _share(rule_turns),
        "indirect rules: cases found": f"{found_cases} of {len(rule_cases)}" if rule_cases else None,
        "ordinary+general: any fact": any_fact(by_class["ordinary"] + by_class["general"]),
        "  ordinary: any fact": any_fact(by_class["ordinary"]),
        "  general: any fact": any_fact(by_class["general"]),
        "never stored: any fact": any_fact(by_class["absent"]),
        "facts per answerable turn": _avg([len(g) for g in by_class["answerable"]]),
        "facts per ordinary/general turn": _avg([len(g) for g in by_class["ordinary"] + by_class["general"]]),
        "facts per never-stored turn": _avg([len(g) for g in by_class["absent"]]),
    }


def _share(hits: list) -> float | None:
    return round(sum(hits) / len(hits), 3) if hits else None


def _avg(counts: list) -> float | None:
    return round(sum(counts) / len(counts), 2) if counts else None


def chosen(names: list[str] | None = None, dev_only: bool = False) -> dict[str, Path]:
    """The splits to run: those named (a key of SPLITS, its first word: "dev", "dev3", or the split it
    was: "test2"), or all;
    ``dev_only`` leaves the held-out ones out (for tuning)."""
    if names:
        out = {}
        for name in names:
            keys = [k for k in SPLITS if name in (k, k.split()[0]) or k.endswith(f"(was {name})")]
            if not keys:
                raise KeyError(name)
            out.update({k: SPLITS[k] for k in keys})
    else:
        out = dict(SPLITS)
    return {k: v for k, v in out.items() if not (dev_only and k in HELD_OUT)}


def run(paths: dict[str, Path] | None = None) -> dict:
    """Figures per split and system: ``{"splits": {name: {"facts", "turns", "systems": {system: figures}}}}``."""
    report: dict = {"k": K, "splits": {}}
    for name, path in (paths or SPLITS).items():
        if not Path(path).exists():
            continue
        split = load(path)
        db, back = store(split)
        try:
            counts: dict[str, int] = {}
            for t in split["turns"]:
                counts[t["class"]] = counts.get(t["class"], 0) + 1
            report["splits"][name] = {
                "path": str(path),
                "facts": len(split["facts"]),
                "turns": counts,
                "how": split["meta"].get("how", ""),
                "systems": {sys_name: evaluate(split, fn) for sys_name, fn in systems(db, back).items()},
            }
        finally:
            db.conn.close()
    return report


def misses(path: str | Path, system: str = "kept recall") -> list[dict]:
    """Turns a system gets wrong on one split (for tuning: run it on dev only)."""
    split = load(path)
    db, back = store(split)
    bring = systems(db, back)[system]
    texts = {f["id"]: f["text"] for f in split["facts"]}
    out = []
    for turn in split["turns"]:
        got = bring(turn["text"])
        wrong = (not set(turn["gold"]) <= set(got)) if turn["class"] == "answerable" else bool(got)
        if wrong:
            out.append(
                {
                    "class": turn["class"],
                    "text": turn["text"],
                    "gold": turn["gold"],
                    "got": [(i, texts[i][:70]) for i in got],
                }
            )
    db.conn.close()
    return out


def ceiling(paths: dict[str, Path], ks: tuple[int, ...] = (12, 6, 3)) -> dict:
    """For answerable turns, the share whose needed facts are all among the top k of BM25, of
    MiniLM (a Chinese turn read in its dictionary English) and of their reciprocal-rank fusion
    over the active facts, no gate: what a ranking could bring at best. A replaced fact counts
    as found with the fact that replaced it. Needs the meaning model."""
    from memory import meaning, recall
    from memory.text import bilingual

    report: dict = {"k": list(ks), "splits": {}}
    for name, path in paths.items():
        if not Path(path).exists():
            continue
        split = load(path)
        db, back = store(split)
        try:
            idx = recall._fact_index(db)
            covers = [
                {back[f.id]} | {back[p.id] for p in chain} for f, chain in zip(idx.active, idx.chains, strict=True)
            ]
            vectors = meaning.embed([bilingual.english_reading(d) for d in idx.docs.docs])
            hits: dict[str, list[bool]] = {f"{r} top {k}": [] for r in ("BM25", "MiniLM", "fused") for k in ks}
            for turn in split["turns"]:
                if turn["class"] != "answerable":
                    continue
                text = turn["text"]
                scores = idx.docs.index.scores(recall._terms(text))
                words = sorted(scores, key=lambda i: (-scores[i], -i))
                reading = bilingual.english_reading(text)
                dense = [int(i) for i in (vectors @ meaning.embed_one(reading)).argsort()[::-1]]
                ranked = {"BM25": words, "MiniLM": dense, "fused": recall._rrf(words, dense)}
                for system, order in ranked.items():
                    for k in ks:
                        got = set().union(*(covers[i] for i in order[:k])) if order else set()
                        hits[f"{system} top {k}"].append(set(turn["gold"]) <= got)
            report["splits"][name] = {key: _share(v) for key, v in hits.items()}
        finally:
            db.conn.close()
    return report


def render_ceiling(report: dict) -> str:
    splits = list(report["splits"])
    if not splits:
        return "No recall split found."
    keys = list(next(iter(report["splits"].values())))
    rows = [[key] + [report["splits"][s][key] for s in splits] for key in keys]
    return render_table(
        "Answerable turns whose needed facts are all in a ranking's top k (no gate)", ["ranking"] + splits, rows
    )


def render(report: dict) -> str:
    splits = list(report["splits"])
    if not splits:
        return "No recall split found."
    sys_names = list(next(iter(report["splits"].values()))["systems"])
    metrics = list(next(iter(next(iter(report["splits"].values()))["systems"].values())))
    header = [f"per turn class (k = {report['k']})"] + [f"{s}: {n}" for s in splits for n in sys_names]
    rows = [[m] + [report["splits"][s]["systems"][n][m] for s in splits for n in sys_names] for m in metrics]
    sizes = "; ".join(
        f"{s}: {r['facts']} facts, " + ", ".join(f"{v} {k}" for k, v in r["turns"].items())
        for s, r in report["splits"].items()
    )
    return render_table(f"Recall per turn class. {sizes}", header, rows)
