"""How well the forget's line rule (memory.forget.holds) finds the MEMORY lines that state a fact.

It runs when no memory model rewrites MEMORY, and as a check on a model's
rewrite. A line it misses keeps the forgotten fact; a line it takes by
mistake loses something the person did not ask to forget. Prints precision
and recall on the dev split (tuned on) and the test split (written apart,
not tuned on): ``python -m evals.forget_lines``.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def score(path: Path) -> dict:
    from memory.forget import holds
    from memory.recall import fact_body

    tp = fp = fn = tn = 0
    misses, wrong = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        said = holds(item["line"], fact_body(item["fact"]))
        if said and item["holds"]:
            tp += 1
        elif said:
            fp += 1
            wrong.append(item["line"])
        elif item["holds"]:
            fn += 1
            misses.append(item["line"])
        else:
            tn += 1
    return {
        "pairs": tp + fp + fn + tn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "missed": misses,
        "taken_by_mistake": wrong,
    }


def main() -> None:
    for split in ("dev", "test"):
        r = score(DATA / f"forget_lines_{split}.jsonl")
        print(
            f"{split:4} {r['pairs']:3} pairs  precision {r['precision']:.2f}  recall {r['recall']:.2f}  "
            f"(missed {len(r['missed'])}, taken by mistake {len(r['taken_by_mistake'])})"
        )
        if split == "dev":  # the test split's misses are not shown: it is not tuned on
            for m in r["missed"]:
                print(f"       missed: {m}")
            for w in r["taken_by_mistake"]:
                print(f"       taken by mistake: {w}")


if __name__ == "__main__":
    main()
