"""Fits SOUL's reading of a wish by meaning (memory/treatment_weights.json) and scores it leaving
one set out.

SOUL's general reading (memory.soul.treatment_reading) takes a sentence said to kept about the
person as a candidate when its meaning is near one description of a kind of treatment (a cosine
of all-MiniLM-L6-v2 vectors over a hand-set bound). One description per kind is a narrow target:
"tl;dr version only please" and "can u be more direct pls" sit far from every description. A
logistic model over the same vectors, fitted on wishes and on sentences that are not wishes,
learns the region of meaning wishes occupy instead of five points in it. It is asked only where
the cosine was too low, for a sentence the grammar already reads as said to kept on no
particular text, and its candidates go to the same confirmation as the cosine's.

Data, all dev: the treatment sets (evals/soul_wishes.TREATMENT, the wish sentence of each wish
line is the one holding its expected words; every sentence of a look-alike line is a negative)
and, as negatives, what people say to kept that the current reading does not take as a wish: the
user messages of the committed personas, the acts sets and the commitments sets. A held-out set
is never read (``HELD_OUT``).

    python -m evals.treatment_fit cv     # leave one treatment set out, per set and pooled
    python -m evals.treatment_fit fit    # writes memory/treatment_weights.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from evals import soul_wishes
from evals.bench.fit_gate import fit_logistic

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
WEIGHTS = ROOT / "memory" / "treatment_weights.json"
HELD_OUT = frozenset({"treatment_test6"})  # this round's held-out set: never read here
L2S = (1.0, 3.0, 10.0, 30.0)
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


def _split_sentences(text: str) -> list[str]:
    from memory.text.acts import split

    return [s for s in split(text) if s.strip()] or [text]


def examples(name: str) -> tuple[list[str], list[int]]:
    """The sentences of one treatment set with their labels (1: the wish sentence of a wish line)."""
    if name in HELD_OUT:
        raise ValueError(f"{name} is held out: it is never read for fitting")
    texts: list[str] = []
    labels: list[int] = []
    for row in soul_wishes._rows(DATA / f"{name}.jsonl"):
        said = _split_sentences(row["message"])
        if row["kind"] == "wish":
            expect = [w.lower() for w in row.get("expect", [])]
            texts.append(max(said, key=lambda s: sum(w in s.lower() for w in expect)))
            labels.append(1)
        else:
            texts += said
            labels += [0] * len(said)
    return texts, labels


def background() -> list[str]:
    """What people say to kept that the current reading takes as no wish: the committed personas'
    user messages, the acts sets and the commitments sets, sentence by sentence."""
    from memory import soul

    said: list[str] = []
    for path in sorted((ROOT / "evals" / "personas").glob("*.json")):
        persona = json.loads(path.read_text(encoding="utf-8"))
        said += [s for m in persona.get("messages", []) if m.get("role") == "user" for s in _split_sentences(m["text"])]
    for path in sorted((ROOT / "evals" / "data").glob("acts_*.jsonl")) + sorted(DATA.glob("commitments_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "text" in row:
                said += _split_sentences(row["text"])
    unique = list(dict.fromkeys(said))
    with soul.fitted_reading(None):  # what the reading without the fitted model takes is no negative
        return [s for s in unique if not soul.wished_treatment(s) and not soul.treatment_reading(s)[0]]


def vectors(texts: list[str]) -> np.ndarray:
    from memory import meaning
    from memory.text.bilingual import english_reading

    return meaning.embed([english_reading(t) for t in texts])


def _half(text: str) -> int:
    """A fixed half of the background each sentence belongs to, by its hash (for cross-validation)."""
    return hashlib.sha1(text.encode("utf-8")).digest()[0] & 1


def _fit(sets: list[tuple[np.ndarray, np.ndarray]], l2: float) -> tuple[np.ndarray, float]:
    x = np.vstack([v for v, _ in sets])
    y = np.concatenate([labels for _, labels in sets]).astype(float)
    return fit_logistic(x, y, l2=l2)


def _model(weights: np.ndarray, bias: float, threshold: float, l2: float, how: str) -> dict:
    return {
        "how": how,
        "l2": l2,
        "threshold": threshold,
        "bias": bias,
        "weights": [round(float(w), 6) for w in weights],
    }


def cross_validate(names: tuple[str, ...] = soul_wishes.TREATMENT) -> list[dict]:
    """For each (l2, threshold): SOUL's score on each treatment set with a model fitted on the other
    sets and one half of the background, and how many sentences of the other half it newly takes."""
    from memory import soul

    data = {name: examples(name) for name in names}
    vecs = {name: (vectors(t), np.array(y)) for name, (t, y) in data.items()}
    bg = background()
    bg_vecs = vectors(bg)
    halves = np.array([_half(s) for s in bg])
    train_bg = (bg_vecs[halves == 0], np.zeros(int((halves == 0).sum())))
    test_bg = [s for s, h in zip(bg, halves, strict=True) if h == 1]
    out = []
    for l2 in L2S:
        fitted = {name: _fit([vecs[o] for o in names if o != name] + [train_bg], l2) for name in names}
        for threshold in THRESHOLDS:
            row: dict = {"l2": l2, "threshold": threshold, "sets": {}}
            for name in names:
                w, b = fitted[name]
                with soul.fitted_reading(_model(w, b, threshold, l2, "cv")):
                    s = soul_wishes.score(soul_wishes._rows(DATA / f"{name}.jsonl"), True, None)
                row["sets"][name] = (s["found"], s["worded"], s["wishes"], len(s["flagged"]), s["others"])
            w, b = _fit([vecs[o] for o in names] + [train_bg], l2)
            with soul.fitted_reading(_model(w, b, threshold, l2, "cv")):
                row["background"] = (sum(bool(soul.treatment_reading(s)[0]) for s in test_bg), len(test_bg))
            out.append(row)
    return out


def fit(l2: float, threshold: float, names: tuple[str, ...] = soul_wishes.TREATMENT) -> dict:
    sets = [(vectors(t), np.array(y)) for t, y in (examples(n) for n in names)]
    bg = background()
    weights, bias = _fit([*sets, (vectors(bg), np.zeros(len(bg)))], l2)
    how = (
        f"python -m evals.treatment_fit fit --l2 {l2:g} --threshold {threshold:g}: fitted on {', '.join(names)} "
        f"and {len(bg)} background sentences (dev only)"
    )
    return _model(weights, bias, threshold, l2, how)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m evals.treatment_fit", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("cv", help="leave one treatment set out: found / worded / look-alikes per set and pooled")
    f = sub.add_parser("fit", help=f"fit on every dev set and write {WEIGHTS.relative_to(ROOT)}")
    f.add_argument("--l2", type=float, default=10.0, help="the L2 penalty (chosen by cv)")
    f.add_argument("--threshold", type=float, default=0.7, help="the probability a candidate needs (chosen by cv)")
    args = ap.parse_args(argv)
    if args.command == "cv":
        from memory import soul

        with soul.fitted_reading(None):
            base = {
                n: soul_wishes.score(soul_wishes._rows(DATA / f"{n}.jsonl"), True, None) for n in soul_wishes.TREATMENT
            }
        pooled = [sum(s[k] for s in base.values()) for k in ("found", "worded", "wishes", "others")]
        flagged = sum(len(s["flagged"]) for s in base.values())
        print(
            f"without the fitted reading: found {pooled[0]}/{pooled[2]}, worded {pooled[1]}, look-alikes {flagged}/{pooled[3]}"
        )
        for row in cross_validate():
            sets = row["sets"].values()
            found, worded, wishes, flagged, others = (sum(s[i] for s in sets) for i in range(5))
            per = "; ".join(f"{n.removeprefix('treatment_')} {s[0]}/{s[2]} ({s[3]})" for n, s in row["sets"].items())
            bg, n_bg = row["background"]
            print(
                f"l2 {row['l2']:g} threshold {row['threshold']:g}: found {found}/{wishes}, worded {worded}, "
                f"look-alikes {flagged}/{others}, background newly taken {bg}/{n_bg}  [{per}]"
            )
    else:
        model = fit(args.l2, args.threshold)
        WEIGHTS.write_text(json.dumps(model) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS.relative_to(ROOT)}: {model['how']}")


if __name__ == "__main__":
    main()
