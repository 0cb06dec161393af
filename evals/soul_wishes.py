"""How often a wish about treatment reaches SOUL (memory.soul.wished_treatment), on two pairs of sets:

- ``nicknames`` (tests/data/nicknames_dev.jsonl, _test.jsonl): introductions giving the short name to
  use in a wording of their own (memory.text.nicknames), against introductions naming someone or
  something else with a look-alike name;
- ``asked`` (tests/data/wishes_asked_dev.jsonl, _test.jsonl): wishes asked as a modal question to kept
  ("Could you call me Bex?"), against tasks asked the same way ("Could you send your reply to Anna?").

    python -m evals.soul_wishes [--misses]

A message counts as read as a wish when any of its sentences is."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = ("nicknames", "wishes_asked")
SPLITS = ("dev", "test")


def load(split: str, name: str = "nicknames") -> list[dict]:
    lines = (DATA / f"{name}_{split}.jsonl").read_text(encoding="utf-8").splitlines()
    return [row for row in map(json.loads, lines) if row["kind"] != "meta"]


def read_as_wish(message: str, with_message: bool = True) -> bool:
    from memory import soul
    from memory.embedded_writer import sentences

    return any(soul.wished_treatment(s, message if with_message else "") for s in sentences(message))


def score(rows: list[dict], with_message: bool = True) -> dict:
    wishes = [r for r in rows if r["kind"] == "wish"]
    others = [r for r in rows if r["kind"] == "none"]
    missed = [r["message"] for r in wishes if not read_as_wish(r["message"], with_message)]
    flagged = [r["message"] for r in others if read_as_wish(r["message"], with_message)]
    return {
        "wishes": len(wishes),
        "found": len(wishes) - len(missed),
        "others": len(others),
        "flagged": flagged,
        "missed": missed,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list what each split gets wrong")
    args = parser.parse_args(argv)
    for name in SETS:
        for split in SPLITS:
            for with_message, label in ((False, "sentence alone"), (True, "with its message")):
                s = score(load(split, name), with_message)
                print(
                    f"{name:12} {split:4} {label:16} wishes found {s['found']}/{s['wishes']}, "
                    f"others read as wishes {len(s['flagged'])}/{s['others']}"
                )
                if args.misses and with_message:
                    for m in s["missed"]:
                        print(f"    missed: {m}")
                    for m in s["flagged"]:
                        print(f"    flagged: {m}")


if __name__ == "__main__":
    main()
