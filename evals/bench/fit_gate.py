"""A fitted acceptance decision for recall, measured leaving one split out.

Three steps (``python -m evals.bench.fit_gate --help``):

- ``extract``: for every turn of every dev split of ``kept bench gate`` (``gate.SPLITS``), the
  candidates ``memory.accept.rows`` lays out (the fused top 12 and whatever the rules accepted),
  each with its signals and its label (it is one of the turn's gold facts, or brings one with its
  chain), the turn's own signals and whether it needs memory at all, and what kept recall brought.
  Loads the meaning model: run it under ``flock /tmp/model.lock``. Written as one JSON file.
- ``cv``: leave one split out. For each split, a logistic model per candidate and one per turn are
  fitted (numpy, L2) on the other splits, the operating thresholds are chosen on those other splits
  only, and the held-out split is scored with ``gate.evaluate``, the figures ``kept bench gate``
  prints, beside kept recall on the same split. No model needed.
- ``fit``: the models fitted on every split, written as JSON (``memory/accept_weights.json``).

Thresholds are chosen three ways, each on the training splits pooled: ``same-leaks`` (the most
answerable turns with all facts, leaking on no more ordinary, general and never-stored turns than
kept recall does there), ``same-answerable`` (the fewest leaking turns with at least kept's
answerable share) and ``balanced`` (answerable share minus leaking share, largest).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evals.bench import gate

DEFAULT_ROWS = Path("/tmp/kept_fit_rows.json")
LEAK_CLASSES = ("ordinary", "general", "absent")
L2 = 1.0  # on standardised signals; not tuned


# --- extraction (needs the store and, for the meaning signals, the model) --------------------


def extract(paths: dict[str, Path], words_only: bool = False) -> dict:
    """Per split, per turn: what kept recall brought and every candidate's signals and label."""
    from memory import accept, meaning, recall

    out: dict = {"features": list(accept.FEATURES), "turn_features": list(accept.TURN_FEATURES), "splits": {}}
    for name, path in paths.items():
        if not Path(path).exists():
            continue
        split = gate.load(path)
        db, back = gate.store(split)
        try:
            with meaning.words_only() if words_only else _nothing():
                idx = recall._fact_index(db)
                covers = [
                    [back[f.id]] + [back[p.id] for p in chain] for f, chain in zip(idx.active, idx.chains, strict=True)
                ]
                turns = []
                for turn in split["turns"]:
                    text = turn["text"]
                    kept = [back[x.id] for x in recall.recall_facts(db, text, k=gate.K)]
                    past = recall.asks_about_change(text)
                    q = recall._CHANGE_CUE.sub(" ", text) if past else text
                    accepted = idx.docs.match(q, gate.K, fill=recall.FILL_N)
                    trow, cands = accept.rows(idx.docs, q, accepted, past)
                    gold = set(turn["gold"])
                    turns.append(
                        {
                            "text": text,
                            "class": turn["class"],
                            "gold": sorted(gold),
                            "kept": kept,
                            "turn": accept.vector(trow, accept.TURN_FEATURES),
                            "cands": [
                                {
                                    "brings": covers[i] if past else covers[i][:1],
                                    "label": int(bool(gold & set(covers[i] if past else covers[i][:1]))),
                                    "x": [round(v, 5) for v in accept.vector(row)],
                                }
                                for i, row in cands
                            ],
                        }
                    )
        finally:
            db.conn.close()
        out["splits"][name] = {"path": str(path), "turns": turns}
        print(f"extracted {name}: {len(turns)} turns", file=sys.stderr)
    return out


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


# --- fitting ---------------------------------------------------------------------------------


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, iters: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method on standardised columns; returns
    (weights, bias) on the raw columns. A constant column gets weight 0."""
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std < 1e-9] = 1.0
    z = (x - mean) / std
    n, d = z.shape
    a = np.hstack([z, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -30, 30)))
        grad = a.T @ (p - y) + reg * w
        h = (a * (p * (1 - p))[:, None]).T @ a + np.diag(reg) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(h, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = w[:d] / std
    bias = float(w[d] - (w[:d] * mean / std).sum())
    return weights, bias


def predict(x: np.ndarray, weights: np.ndarray, bias: float) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(x @ weights + bias, -30, 30)))


def _matrices(splits: dict, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cx, cy, tx, ty = [], [], [], []
    for name in names:
        for t in splits[name]["turns"]:
            tx.append(t["turn"])
            ty.append(1.0 if t["class"] == "answerable" else 0.0)
            for c in t["cands"]:
                cx.append(c["x"])
                cy.append(float(c["label"]))
    return np.array(cx, dtype=float), np.array(cy), np.array(tx, dtype=float), np.array(ty)


def fit(splits: dict, names: Sequence[str]) -> dict:
    cx, cy, tx, ty = _matrices(splits, names)
    cw, cb = fit_logistic(cx, cy)
    tw, tb = fit_logistic(tx, ty)
    return {"candidate": (cw, cb), "turn": (tw, tb)}


# --- deciding and scoring --------------------------------------------------------------------


def _probabilities(turns: list, model: dict) -> list[tuple[float, np.ndarray]]:
    tw, tb = model["turn"]
    cw, cb = model["candidate"]
    out = []
    for t in turns:
        pt = float(predict(np.array([t["turn"]], dtype=float), tw, tb)[0])
        pc = predict(np.array([c["x"] for c in t["cands"]], dtype=float), cw, cb) if t["cands"] else np.zeros(0)
        out.append((pt, pc))
    return out


def _reach(turns: list, probs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per turn: its turn probability, the candidate threshold at which it has all its gold facts
    (answerable; -1 if never), the one at which it gets any fact (the others), and whether it is
    answerable or a leak class."""
    pt_all, need, anyp, kind = [], [], [], []
    for t, (pt, pc) in zip(turns, probs, strict=True):
        pt_all.append(pt)
        if t["class"] == "answerable":
            gold = set(t["gold"])
            reach = []
            for g in gold:
                ps = [float(p) for c, p in zip(t["cands"], pc, strict=True) if g in c["brings"]]
                reach.append(max(ps) if ps else -1.0)
            need.append(min(reach) if reach else -1.0)
            anyp.append(0.0)
            kind.append(1)
        else:
            need.append(0.0)
            anyp.append(float(pc.max()) if len(pc) else -1.0)
            kind.append(2 if t["class"] in LEAK_CLASSES else 0)
    return np.array(pt_all), np.array(need), np.array(anyp), np.array(kind)


def _kept_rates(turns: list) -> tuple[float, float]:
    ans = [set(t["gold"]) <= set(t["kept"]) for t in turns if t["class"] == "answerable"]
    leak = [bool(t["kept"]) for t in turns if t["class"] in LEAK_CLASSES]
    return sum(ans) / max(1, len(ans)), sum(leak) / max(1, len(leak))


GRID = np.round(np.arange(0.0, 1.0001, 0.025), 3)


def thresholds(turns: list, probs: list) -> dict[str, tuple[float, float, float, float]]:
    """Operating points chosen on ``turns``: name -> (turn threshold, candidate threshold,
    answerable share, leak share) there."""
    pt, need, anyp, kind = _reach(turns, probs)
    ka, kl = _kept_rates(turns)
    ans, leak = kind == 1, kind == 2
    best: dict[str, tuple] = {}
    for tt in GRID:
        open_ = pt >= tt
        for tc in GRID[1:]:
            a = float((open_ & (need >= tc))[ans].mean())
            lk = float((open_ & (anyp >= tc))[leak].mean())
            cands = {
                "same-leaks": (a, -lk) if lk <= kl + 1e-9 else None,
                "same-answerable": (-lk, a) if a >= ka - 1e-9 else None,
                "balanced": (a - lk, a),
            }
            for key, value in cands.items():
                if value is not None and (key not in best or value > best[key][0]):
                    best[key] = (value, (float(tt), float(tc), a, lk))
    return {k: v[1] for k, v in best.items()}


def decide(turn: dict, pt: float, pc: np.ndarray, tt: float, tc: float, k: int = gate.K) -> list:
    """The split ids the fitted decision brings for one turn (best first, at most k facts)."""
    if pt < tt or not len(pc):
        return []
    order = [j for j in np.argsort(-pc, kind="stable") if pc[j] >= tc][:k]
    out: list = []
    for j in order:
        out += [x for x in turn["cands"][j]["brings"] if x not in out]
    return out


def score(split_path: str, turns: list, bring_lists: list[list]) -> dict:
    """``gate.evaluate``'s figures for one split, given what a system brought per turn (in order)."""
    split = gate.load(split_path)
    by_text = {t["text"]: got for t, got in zip(turns, bring_lists, strict=True)}
    return gate.evaluate(split, lambda text: by_text[text])


FIGURES = (
    "answerable: all facts",
    "  tasks",
    "  update: whole chain",
    "indirect rules: cases found",
    "ordinary+general: any fact",
    "never stored: any fact",
    "facts per answerable turn",
    "facts per ordinary/general turn",
)


def cross_validate(data: dict, points: Sequence[str] = ("same-leaks", "same-answerable", "balanced")) -> dict:
    splits = data["splits"]
    names = list(splits)
    report: dict = {"splits": {}}
    for held in names:
        train = [n for n in names if n != held]
        model = fit(splits, train)
        train_turns = [t for n in train for t in splits[n]["turns"]]
        chosen = thresholds(train_turns, _probabilities(train_turns, model))
        turns = splits[held]["turns"]
        probs = _probabilities(turns, model)
        row = {"kept recall": score(splits[held]["path"], turns, [t["kept"] for t in turns])}
        for point in points:
            if point not in chosen:
                continue
            tt, tc, _, _ = chosen[point]
            got = [decide(t, pt, pc, tt, tc) for t, (pt, pc) in zip(turns, probs, strict=True)]
            row[f"fitted, {point} (t={tt:.3f}, c={tc:.3f})"] = score(splits[held]["path"], turns, got)
        report["splits"][held] = row
        print(f"cv {held} done", file=sys.stderr)
    return report


def pooled(report: dict, rows_data: dict) -> dict:
    """Micro-averaged figures over all held-out splits per system (by system name prefix)."""
    sums: dict = {}
    for held, row in report["splits"].items():
        turns = rows_data["splits"][held]["turns"]
        n_ans = sum(1 for t in turns if t["class"] == "answerable")
        n_og = sum(1 for t in turns if t["class"] in ("ordinary", "general"))
        n_ab = sum(1 for t in turns if t["class"] == "absent")
        for system, figs in row.items():
            key = system.split(" (")[0]
            s = sums.setdefault(key, {"ans": 0.0, "n_ans": 0, "og": 0.0, "n_og": 0, "ab": 0.0, "n_ab": 0})
            s["ans"] += (figs["answerable: all facts"] or 0) * n_ans
            s["n_ans"] += n_ans
            s["og"] += (figs["ordinary+general: any fact"] or 0) * n_og
            s["n_og"] += n_og
            s["ab"] += (figs["never stored: any fact"] or 0) * n_ab
            s["n_ab"] += n_ab
    return {
        k: {
            "answerable: all facts": round(s["ans"] / max(1, s["n_ans"]), 3),
            "ordinary+general: any fact": round(s["og"] / max(1, s["n_og"]), 3),
            "never stored: any fact": round(s["ab"] / max(1, s["n_ab"]), 3),
        }
        for k, s in sums.items()
    }


def render(report: dict, pool: dict) -> str:
    from evals.bench.common import render_table

    out = []
    for held, row in report["splits"].items():
        systems = list(row)
        rows = [[f] + [row[s].get(f) for s in systems] for f in FIGURES]
        out.append(render_table(f"held out: {held} (dev, cross-validated)", ["figure"] + systems, rows))
    systems = list(pool)
    keys = list(next(iter(pool.values())))
    rows = [[k] + [pool[s][k] for s in systems] for k in keys]
    out.append(render_table("all held-out splits pooled (dev, cross-validated)", ["figure"] + systems, rows))
    return "\n\n".join(out)


def weights_json(model: dict, point: tuple, features: Sequence[str], turn_features: Sequence[str], how: str) -> dict:
    cw, cb = model["candidate"]
    tw, tb = model["turn"]
    return {
        "how": how,
        "candidate": {
            "bias": round(cb, 6),
            "weights": {f: round(float(w), 6) for f, w in zip(features, cw, strict=True)},
        },
        "turn": {
            "bias": round(tb, 6),
            "weights": {f: round(float(w), 6) for f, w in zip(turn_features, tw, strict=True)},
        },
        "turn_threshold": point[0],
        "candidate_threshold": point[1],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.bench.fit_gate", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract", help="candidate rows of every dev split (loads the meaning model: use flock)")
    ex.add_argument("--out", type=Path, default=DEFAULT_ROWS)
    ex.add_argument("--split", action="append", default=[])
    ex.add_argument("--words-only", action="store_true", help="as with KEPT_MEANING=0")
    cv = sub.add_parser("cv", help="leave-one-split-out figures beside kept recall")
    cv.add_argument("--rows", type=Path, default=DEFAULT_ROWS)
    cv.add_argument("--json", action="store_true")
    ft = sub.add_parser("fit", help="fit on every split and write the weights")
    ft.add_argument("--rows", type=Path, default=DEFAULT_ROWS)
    ft.add_argument("--point", default="same-leaks", choices=["same-leaks", "same-answerable", "balanced"])
    ft.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "memory" / "accept_weights.json")
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        paths = gate.chosen(args.split or None)
        data = extract(paths, words_only=args.words_only)
        args.out.write_text(json.dumps(data))
        return 0
    data = json.loads(args.rows.read_text())
    if args.cmd == "cv":
        report = cross_validate(data)
        pool = pooled(report, data)
        print(json.dumps({"report": report, "pooled": pool}, indent=1) if args.json else render(report, pool))
        return 0
    model = fit(data["splits"], list(data["splits"]))
    turns = [t for s in data["splits"].values() for t in s["turns"]]
    point = thresholds(turns, _probabilities(turns, model))[args.point]
    how = f"python -m evals.bench.fit_gate fit --point {args.point} (rows: extract over {', '.join(data['splits'])})"
    args.out.write_text(json.dumps(weights_json(model, point, data["features"], data["turn_features"], how), indent=1))
    print(f"wrote {args.out}: thresholds {point}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
