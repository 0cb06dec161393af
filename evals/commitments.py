"""Figures for the commitment detector on the labelled sets.

``python -m evals.commitments`` prints, for every labelled split
(tests/data/commitments_*.jsonl; how each was written is in
tests/data/commitments.md), candidate recall and precision of
``memory.promises.detect``. An utterance counts as found when the detector
gives a candidate of the right party: the person's own (``own``) or someone
else's promise to the person (``third``). Precision is over every utterance
that got a candidate. ``--misses SPLIT`` lists the wrong ones of a dev split;
it refuses the held-out ones (``HELD_OUT``), which are read in aggregate only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SPLITS = ("dev", "dev2", "test", "test2", "test3", "test4", "test5", "test6")
# Written by people who read no code of the detector's; their wrong lines are not read while tuning.
HELD_OUT = ("test5", "test6")


def load(split: str) -> list[dict]:
    path = DATA / f"commitments_{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def predict(text: str) -> str:
    from memory.text.commitments import detect

    found = detect(text)
    parties = {getattr(c, "party", "own") for c in found}
    if "own" in parties:
        return "own"
    return "third" if parties else "none"


def score(rows: list[dict]) -> dict:
    positives = [r for r in rows if r["label"] != "none"]
    guessed = [(r, predict(r["text"])) for r in rows]
    flagged = [(r, p) for r, p in guessed if p != "none"]
    right = [(r, p) for r, p in flagged if p == r["label"]]
    wrong = [(r, p) for r, p in guessed if p != r["label"]]
    return {
        "n": len(rows),
        "positives": len(positives),
        "recall": len(right) / len(positives) if positives else 1.0,
        "precision": len(right) / len(flagged) if flagged else 1.0,
        "wrong": wrong,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.commitments", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--misses", choices=SPLITS, nargs="?", const="dev", help="list the wrong lines of a dev split (default: dev)"
    )
    args = parser.parse_args(argv)
    if args.misses in HELD_OUT:
        parser.error(f"{args.misses} is held out: its figures are printed, its wrong lines are not")
    for split in SPLITS:
        s = score(load(split))
        print(
            f"{split:5}{' (held out)' if split in HELD_OUT else ''} n={s['n']:3} positives={s['positives']:3} "
            f"recall={s['recall']:.3f} precision={s['precision']:.3f} wrong={len(s['wrong'])}"
        )
        if args.misses == split:
            for r, p in s["wrong"]:
                print(f"    {r['label']:5} -> {p:5} [{r['kind']}] {r['text']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
