"""How well memory.text.acts tells requests from questions: right / wrong per split.

    python -m evals.bench.acts            # dev and test
    python -m evals.bench.acts --show dev # and the misses of a split

The sets are evals/data/acts_dev.jsonl (tuned on) and acts_test.jsonl
(written separately, not tuned on). Each line: {"text", "label"} with label
request, question or statement.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memory.text import acts

DATA = Path(__file__).resolve().parent.parent / "data"
SPLITS = ("dev", "test")


def load(split: str) -> list[dict]:
    with open(DATA / f"acts_{split}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def reading(text: str) -> str:
    """The label the code gives a whole turn."""
    if acts.is_request(text):
        return acts.REQUEST
    return acts.QUESTION if acts.is_question(text) else acts.STATEMENT


def score(items: list[dict]) -> tuple[int, list[tuple[dict, str]]]:
    misses = [(item, got) for item in items if (got := reading(item["text"])) != item["label"]]
    return len(items) - len(misses), misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.acts", description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=SPLITS, action="append", default=[], help="print the misses of this split")
    args = parser.parse_args(argv)
    for split in SPLITS:
        items = load(split)
        right, misses = score(items)
        print(f"{split}: {right}/{len(items)} right ({100 * right / len(items):.1f}%), {len(misses)} wrong")
        if split in args.show:
            for item, got in misses:
                print(f"  {item['label']:>9} read as {got:<9} {item['text']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
