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
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evals.bench import gate
from memory import accept

DEFAULT_ROWS = Path("/tmp/kept_fit_rows.json")
LEAK_CLASSES = ("ordinary", "general", "absent")
L2 = 1.0  # on standardised signals; not tuned
STACKED = os.environ.get("KEPT_FIT_STACK", "1") != "0"
# The step decides within the turns the hand rules opened (``accept.Model.within_rules``): a turn
# where they found nothing gets no turn probability. KEPT_FIT_WITHIN=0 lets it open any turn.
WITHIN_RULES = os.environ.get("KEPT_FIT_WITHIN", "1") != "0"
_ANY_ACCEPTED = accept.TURN_FEATURES.index("any_accepted")
_ACCEPTED = accept.FEATURES.index("accepted")


# --- extraction (needs the store and, for the meaning signals, the model) --------------------


def extract(paths: dict[str, Path], words_only: bool = False, rows_in_words: bool = False) -> dict:
    """Per split, per turn: what kept recall brought and every candidate's signals and label."""
    from memory import meaning, recall

    out: dict = {"features": list(accept.FEATURES), "turn_features": list(accept.TURN_FEATURES), "splits": {}}
    for name, path in paths.items():
        if not Path(path).exists():
            continue
        split = gate.load(path)
        db, back = gate.store(split)
        try:
            with meaning.words_only() if words_only else _nothing(), accept.hand_rules_only():
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
                    trow, cands = recall.candidate_rows(idx.docs, q, accepted, past, use_meaning=not rows_in_words)
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


def _matrices(
    splits: dict, names: Sequence[str], skip: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Candidate rows and labels, turn rows and labels; ``skip``: leave out candidates with that
    signal set (the standing rules the rules' path keeps are not the model's to decide)."""
    cx, cy, tx, ty = [], [], [], []
    for name in names:
        for t in splits[name]["turns"]:
            tx.append(t["turn"])
            ty.append(1.0 if t["class"] == "answerable" else 0.0)
            for c in t["cands"]:
                if skip is not None and c["x"][skip]:
                    continue
                cx.append(c["x"])
                cy.append(float(c["label"]))
    return np.array(cx, dtype=float), np.array(cy), np.array(tx, dtype=float), np.array(ty)


STACK = accept.STACK  # the turn model's reading of the candidates


def stacked(pc: np.ndarray) -> list[float]:
    """What the candidate model says of a turn as a whole: its best and second probabilities and their sum."""
    top = np.sort(pc)[::-1] if len(pc) else np.zeros(0)
    return [float(top[0]) if len(top) else 0.0, float(top[1]) if len(top) > 1 else 0.0, float(top.sum())]


# Signals of the store as a whole rather than of the turn: constant within a split, so a weight on
# one names the split it was fitted on ("the store has standing rules" was true of every split but
# dev-old, and took a weight of 4 on the turn model: a store without rules would get nothing).
STORE_LEVEL = ("store_rules",)


def fit(splits: dict, names: Sequence[str], skip: int | None = None, stack: bool = STACKED) -> dict:
    """The candidate model, then the turn model (over the turn's signals and, with ``stack``, the
    candidate model's reading of its candidates: in-sample on the training splits). The
    ``STORE_LEVEL`` signals are left out (their columns zeroed: weight 0)."""
    cx, cy, tx, ty = _matrices(splits, names, skip)
    for f in STORE_LEVEL:
        cx[:, list(accept.FEATURES).index(f)] = 0.0
        tx[:, list(accept.TURN_FEATURES).index(f)] = 0.0
    cw, cb = fit_logistic(cx, cy)
    if stack:
        extra = []
        for name in names:
            for t in splits[name]["turns"]:
                pc = predict(np.array([c["x"] for c in t["cands"]], dtype=float), cw, cb) if t["cands"] else np.zeros(0)
                extra.append(stacked(pc))
        tx = np.hstack([tx, np.array(extra)])
    tw, tb = fit_logistic(tx, ty)
    return {"candidate": (cw, cb), "turn": (tw, tb), "stack": stack}


# --- deciding and scoring --------------------------------------------------------------------


def _probabilities(turns: list, model: dict) -> list[tuple[float, np.ndarray]]:
    tw, tb = model["turn"]
    cw, cb = model["candidate"]
    out = []
    for t in turns:
        pc = predict(np.array([c["x"] for c in t["cands"]], dtype=float), cw, cb) if t["cands"] else np.zeros(0)
        row = list(t["turn"]) + (stacked(pc) if model.get("stack") else [])
        pt = float(predict(np.array([row], dtype=float), tw, tb)[0])
        if WITHIN_RULES and not t["turn"][_ANY_ACCEPTED]:
            pt = -1.0  # below every turn threshold: the hand rules found nothing here
        out.append((pt, pc))
    return out


CAPS = (3, 4, 6, 8, 12)  # the most facts the fitted part may bring to a turn


def _reach(turns: list, probs: list, keep: Sequence[Sequence[bool]] | None = None) -> dict[str, np.ndarray]:
    """Per turn: ``pt`` its turn probability; per cap c of ``CAPS``, ``need`` the candidate
    threshold at which the fitted part brings all its gold facts that the kept part does not
    within its first c (answerable; -1 if never, 2 if none is left to it); ``whole`` the kept
    part alone brings them all; ``anyp`` the best free candidate's probability (-1: none);
    ``kept_any`` the kept part brings a fact; ``kind`` 1 answerable, 2 a leak class; ``sizes``
    the facts the fitted part brings at each candidate threshold of ``CAND_GRID`` and cap, and
    ``fixed_n`` those the kept part brings.
    ``keep[t][j]``: candidate j of turn t is brought whatever the model says (the rules' standing rules)."""
    n_turns = len(turns)
    pt_all = np.zeros(n_turns)
    need = np.full((n_turns, len(CAPS)), -1.0)
    whole = np.zeros(n_turns, dtype=bool)
    anyp = np.full(n_turns, -1.0)
    kept_any = np.zeros(n_turns, dtype=bool)
    kind = np.zeros(n_turns, dtype=int)
    sizes = np.zeros((n_turns, len(CAND_GRID), len(CAPS)))
    fixed_n = np.zeros(n_turns)
    for n, (t, (pt, pc)) in enumerate(zip(turns, probs, strict=True)):
        fixed = list(keep[n]) if keep is not None else [False] * len(t["cands"])
        pt_all[n] = pt
        held = {x for c, f in zip(t["cands"], fixed, strict=True) if f for x in c["brings"]}
        fixed_n[n] = len(held)
        free = [j for j in np.argsort(-pc, kind="stable") if not fixed[j]]
        lengths = np.array([len(t["cands"][j]["brings"]) for j in free])
        ps = np.array([float(pc[j]) for j in free])
        for a, tc in enumerate(CAND_GRID):
            m = int((ps >= tc).sum())
            for b, cap in enumerate(CAPS):
                sizes[n, a, b] = lengths[: min(m, cap)].sum()
        if t["class"] == "answerable":
            kind[n] = 1
            gold = set(t["gold"]) - held
            whole[n] = not gold
            for b, cap in enumerate(CAPS):
                reach = []
                for g in gold:
                    at = [r for r, j in enumerate(free[:cap]) if g in t["cands"][j]["brings"]]
                    reach.append(float(ps[at[0]]) if at else -1.0)
                need[n, b] = min(reach) if reach else 2.0
        else:
            anyp[n] = float(ps[0]) if len(ps) else -1.0
            kept_any[n] = bool(held)
            kind[n] = 2 if t["class"] in LEAK_CLASSES else 0
    return {
        "pt": pt_all,
        "need": need,
        "whole": whole,
        "anyp": anyp,
        "kept_any": kept_any,
        "kind": kind,
        "sizes": sizes,
        "fixed_n": fixed_n,
    }


def _kept_rates(turns: list) -> tuple[float, float, float]:
    ans = [set(t["gold"]) <= set(t["kept"]) for t in turns if t["class"] == "answerable"]
    leak = [bool(t["kept"]) for t in turns if t["class"] in LEAK_CLASSES]
    size = [len(t["kept"]) for t in turns]
    return sum(ans) / max(1, len(ans)), sum(leak) / max(1, len(leak)), sum(size) / max(1, len(size))


TURN_GRID = np.round(np.arange(0.0, 1.0001, 0.025), 3)
CAND_GRID = np.array(
    [0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08] + list(np.arange(0.1, 0.951, 0.025))
)


def thresholds(turns: list, probs: list, keep: Sequence[Sequence[bool]] | None = None) -> dict[str, tuple]:
    """Operating points chosen on ``turns``, each bringing no more facts per turn than kept recall
    does there: name -> (turn threshold, candidate threshold, cap, answerable share, leak share)."""
    r = _reach(turns, probs, keep)
    ka, kl, ks = _kept_rates(turns)
    ans, leak = r["kind"] == 1, r["kind"] == 2
    best: dict[str, tuple] = {}
    for tt in TURN_GRID:
        open_ = r["pt"] >= tt
        for a_i, tc in enumerate(CAND_GRID):
            lk = float((r["kept_any"] | (open_ & (r["anyp"] >= tc)))[leak].mean())
            for b, cap in enumerate(CAPS):
                size = float((r["fixed_n"] + np.where(open_, r["sizes"][:, a_i, b], 0.0)).mean())
                if size > ks + 1e-9:
                    continue
                a = float((r["whole"] | (open_ & (r["need"][:, b] >= tc)))[ans].mean())
                cands = {
                    "same-leaks": (a, -lk) if lk <= kl + 1e-9 else None,
                    "same-answerable": (-lk, a) if a >= ka - 1e-9 else None,
                    "balanced": (a - lk, a),
                }
                for key, value in cands.items():
                    if value is not None and (key not in best or value > best[key][0]):
                        best[key] = (value, (float(tt), float(tc), cap, a, lk))
    return {k: v[1] for k, v in best.items()}


def decide(
    turn: dict, pt: float, pc: np.ndarray, tt: float, tc: float, k: int = gate.K, keep: Sequence[bool] | None = None
) -> list:
    """The split ids the fitted decision brings for one turn (best first, at most k facts), and
    those ``keep`` marks whatever it says, after them."""
    fixed = list(keep) if keep is not None else [False] * len(pc)
    passing = [] if pt < tt else [j for j in np.argsort(-pc, kind="stable") if pc[j] >= tc and not fixed[j]]
    # As ``accept.Model.accepted``: the cap bounds the model's own choice, not what the hand rules
    # accepted too (those all come, up to recall's k).
    room = max(k, sum(1 for j in passing if _hand_accepted(turn["cands"][j])))
    order = passing[: min(gate.K, room)]
    order += [j for j, f in enumerate(fixed) if f]
    out: list = []
    for j in order:
        out += [x for x in turn["cands"][j]["brings"] if x not in out]
    return out


def _hand_accepted(cand: dict) -> bool:
    """Whether the hand rules accepted this candidate (its ``accepted`` signal; a row without the
    signals counts as not)."""
    x = cand.get("x", ())
    return len(x) > _ACCEPTED and bool(x[_ACCEPTED])


def rule_kept(data: dict, turns: list) -> list[list[bool]]:
    """Per turn and candidate: a standing rule the rules' own path brought (kept as it is)."""
    at = data["features"].index("acc_rule")
    return [[bool(c["x"][at]) for c in t["cands"]] for t in turns]


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


def cross_validate(
    data: dict,
    points: Sequence[str] = ("same-leaks", "same-answerable", "balanced"),
    keep_rules: bool = True,
) -> dict:
    """Leave one split out: fit on the others, choose the thresholds there, score the one left out.
    ``keep_rules``: the standing rules the rules' path brings stay (the model decides the rest)."""
    splits = data["splits"]
    names = list(splits)
    report: dict = {"splits": {}}
    for held in names:
        train = [n for n in names if n != held]
        model = fit(splits, train, data["features"].index("acc_rule") if keep_rules else None)
        train_turns = [t for n in train for t in splits[n]["turns"]]
        keep = rule_kept(data, train_turns) if keep_rules else None
        chosen = thresholds(train_turns, _probabilities(train_turns, model), keep)
        turns = splits[held]["turns"]
        probs = _probabilities(turns, model)
        held_keep = rule_kept(data, turns) if keep_rules else [None] * len(turns)
        row = {"kept recall": score(splits[held]["path"], turns, [t["kept"] for t in turns])}
        for point in points:
            if point not in chosen:
                continue
            tt, tc, cap, _, _ = chosen[point]
            got = [
                decide(t, pt, pc, tt, tc, k=cap, keep=kp)
                for t, (pt, pc), kp in zip(turns, probs, held_keep, strict=True)
            ]
            row[f"fitted, {point} (t={tt:.3f}, c={tc:.3f}, k={cap})"] = score(splits[held]["path"], turns, got)
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
    turn_features = list(turn_features) + (list(STACK) if model.get("stack") else [])
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
        "cap": point[2],
        "within_rules": WITHIN_RULES,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.bench.fit_gate", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract", help="candidate rows of every dev split (loads the meaning model: use flock)")
    ex.add_argument("--out", type=Path, default=DEFAULT_ROWS)
    ex.add_argument("--split", action="append", default=[])
    ex.add_argument("--words-only", action="store_true", help="as with KEPT_MEANING=0")
    ex.add_argument(
        "--rows-in-words", action="store_true", help="the rules with meaning, the rows without it (no cosine)"
    )
    cv = sub.add_parser("cv", help="leave-one-split-out figures beside kept recall")
    cv.add_argument("--rows", type=Path, default=DEFAULT_ROWS)
    cv.add_argument("--json", action="store_true")
    cv.add_argument("--rules-too", action="store_true", help="the model decides the standing rules too")
    ft = sub.add_parser("fit", help="fit on every split and write the weights")
    ft.add_argument("--rows", type=Path, default=DEFAULT_ROWS)
    ft.add_argument(
        "--variant",
        default="meaning",
        choices=["meaning", "words"],
        help="meaning: rows from --rows-in-words (what recall ships); words: rows from --words-only",
    )
    ft.add_argument("--point", default="same-answerable", choices=["same-leaks", "same-answerable", "balanced"])
    ft.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "memory" / "accept_weights.json")
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        # Fitting reads the dev splits only: a held-out split named here is refused, never read.
        paths = gate.chosen(args.split) if args.split else gate.chosen(None, dev_only=True)
        held = [name for name, path in paths.items() if name in gate.HELD_OUT or gate.held_out(path)]
        if held:
            ap.error(f"held-out split(s) {', '.join(held)}: fit and cross-validate on dev splits only")
        data = extract(paths, words_only=args.words_only, rows_in_words=args.rows_in_words)
        args.out.write_text(json.dumps(data))
        return 0
    data = json.loads(args.rows.read_text())
    if args.cmd == "cv":
        report = cross_validate(data, keep_rules=not args.rules_too)
        pool = pooled(report, data)
        if args.json:
            print(json.dumps({"report": report, "pooled": pool}, indent=1))
        else:
            print(render(report, pool) + "\n\n" + render_compact(report))
        return 0
    model = fit(data["splits"], list(data["splits"]), data["features"].index("acc_rule"))
    turns = [t for s in data["splits"].values() for t in s["turns"]]
    point = thresholds(turns, _probabilities(turns, model), rule_kept(data, turns))[args.point]
    how = (
        f"python -m evals.bench.fit_gate extract {'--words-only' if args.variant == 'words' else '--rows-in-words'}"
        " --out ROWS; "
        f"python -m evals.bench.fit_gate fit --rows ROWS --variant {args.variant} --point {args.point} "
        f"(splits: {', '.join(data['splits'])})"
    )
    found = json.loads(args.out.read_text()) if args.out.exists() else {}
    found[args.variant] = weights_json(model, point, data["features"], data["turn_features"], how)
    args.out.write_text(json.dumps(found, indent=1) + "\n")
    print(f"wrote {args.out}: thresholds {point}", file=sys.stderr)
    return 0


def render_compact(report: dict) -> str:
    """One line per held-out split: answerable / ordinary+general / never stored, per system."""
    from evals.bench.common import render_table

    keys = ("answerable: all facts", "ordinary+general: any fact", "never stored: any fact")
    systems = [s.split(" (")[0] for s in next(iter(report["splits"].values()))]
    rows = []
    for held, row in report["splits"].items():
        rows.append([held] + [" / ".join(str(row[s].get(k)) for k in keys) for s in row])
    return render_table(
        "held out split: answerable all facts / ordinary+general any fact / never stored any fact (dev, cross-validated)",
        ["split"] + systems,
        rows,
    )


if __name__ == "__main__":
    raise SystemExit(main())
