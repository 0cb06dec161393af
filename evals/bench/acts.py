"""How well memory.text.acts tells requests from questions and statements: right / wrong per split.

    python -m evals.bench.acts                 # every split under evals/data/
    python -m evals.bench.acts --split dev2    # only these splits
    python -m evals.bench.acts --show dev      # and the misses of a split

Splits (evals/data/acts_<split>.jsonl; each line {"text", "label"} with label
request, question or statement):

- dev: written with memory/text/acts.py and tuned on.
- dev2: written for issue 12 (lowercase questions without "?", introductions
  and wishes about how kept should speak, "Update: …" statements, polite
  questions that ask for an action) and tuned on.
- test: written separately from dev before acts.py was tuned; its misses were
  never listed while tuning (held out since issue 13).
- test2: written by another person for this issue without reading the code;
  read once at the end, never tuned on.
- dev3, test3 (issue 18, the eighteenth round): written by two other people
  (a helper each) without reading the code, each line also naming the tool a
  request asks for (schedule_meeting, send_message, assign_task, or none);
  most statements mention people, times and work without asking anything.
  dev3 is tuned on; test3 and test4 (written later in the round, by a third
  helper) were held out. test3's aggregate was read mid-round, so it is dev
  from the nineteenth round on.
- test5 (the nineteenth round): written at the round's start by another helper
  without reading the code (only dev3, for its format); held out with test4
  (their misses are refused by --show).
- dev_hant, test6 (the twenty-first round, Traditional characters): dev_hant is
  the Chinese and mixed lines of dev, dev2, dev3 and test3 machine-converted to
  Traditional with Taiwan's words (OpenCC s2twp): tuned on. test6 was written by
  hand at the round's start by another helper without reading the code, in
  Taiwan's and Hong Kong's usage (some Cantonese): held out.

- test7 (the twenty-second round): written at the round's start by another helper
  without reading the code (only test5, for its format); held out.

For the splits that name tools, a second line reads what licenses an acting
tool (``agent.reply_check.asks_to_act``: acts' reading, less the wishes about treatment) and which tool a request's shape calls for
(``asks_to_tell``: a message, ``asks_to_assign``: a task, neither: the kind of act the
meaning model reads, ``memory.request_kind``; by shapes alone, neither was a meeting). The
request kind's weights were fitted on dev3, test3 and the dev first sessions, so on those its
figure is in-sample (``python -m evals.bench.fit_kind cv`` leaves each file out).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memory.text import acts

DATA = Path(__file__).resolve().parent.parent / "data"
# The order they print in; a split whose file is missing is left out.
SPLITS = (
    "dev",
    "dev2",
    "dev3",
    "test",
    "test2",
    "test3",
    "test4",
    "test5",
    "dev_hant",
    "test6",
    "test7",
    "test8",
    "test9",
    "existing_dev",
    "existing_dev2",
    "existing_test",
)
LABELS = {
    "dev": "dev (tuned on)",
    "dev2": "dev2 (tuned on)",
    "dev3": "dev3 (tuned on)",
    "test": "test (held out since issue 13)",
    "test2": "test2 (held out)",
    "test3": "test3 (dev since the nineteenth round)",
    "test4": "test4 (held out)",
    "test5": "test5 (held out)",
    "dev_hant": "dev_hant (machine-converted, tuned on)",
    "test6": "test6 (held out)",
    "test7": "test7 (held out)",
    "test8": "test8 (held out)",
    "test9": "test9 (held out)",
    "existing_dev": "existing_dev (cancel, complete and their look-alikes; tuned on)",
    "existing_dev2": "existing_dev2 (cancel, complete and their look-alikes, for the fit; tuned on)",
    "existing_test": "existing_test (cancel, complete and their look-alikes; held out)",
}
HELD_OUT = frozenset({"test4", "test5", "test6", "test7", "test8", "test9", "existing_test"})
TOOLS = ("schedule_meeting", "send_message", "assign_task")


def available() -> list[str]:
    return [s for s in SPLITS if (DATA / f"acts_{s}.jsonl").exists()]


def load(split: str) -> list[dict]:
    with open(DATA / f"acts_{split}.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r.get("kind") != "meta"]  # a split may open with a line saying how it was written


def reading(text: str) -> str:
    """The label the code gives a whole turn."""
    if acts.is_request(text):
        return acts.REQUEST
    return acts.QUESTION if acts.is_question(text) else acts.STATEMENT


def score(items: list[dict]) -> tuple[int, list[tuple[dict, str]]]:
    misses = [(item, got) for item in items if (got := reading(item["text"])) != item["label"]]
    return len(items) - len(misses), misses


# The tool of each kind of act (memory.request_kind).
_TOOL_OF_KIND = {"meeting": "schedule_meeting", "message": "send_message", "task": "assign_task"}


def tool_read(text: str, fitted: bool = True, kind: str | None = None, none: bool | None = None) -> str | None:
    """The acting tool the code reads a turn as asking for, or None when it asks for none: the one
    the embedded model is made to write (``agent.models.local.forced_kind``: a message when it tells
    someone, a task when it hands work over or its every time is a deadline, else, with ``fitted``,
    the kind the meaning model reads; ``kind`` given: that one), else a meeting, the tool the model
    mostly chose when left to choose. With ``fitted``, a line the meaning model reads as asking for no
    act in every acting sentence, or as closing something already there (``offers_making``; ``none``
    and ``kind`` given: those readings), asks for none."""
    from agent.models.local import forced_kind, offers_making

    if not offers_making(text, fitted, none, kind):
        return None
    return _TOOL_OF_KIND.get(forced_kind(text, fitted, kind) or "", "schedule_meeting")


def acting(items: list[dict]) -> dict[str, tuple[int, int]] | None:
    """For a split whose lines name tools: statements read as asking to act, requests for a tool
    read as asking to act, and those whose tool is read right, each as (count, of)."""
    if not any("tool" in item for item in items):
        return None
    statements = [i for i in items if i["label"] == "statement"]
    asked = [i for i in items if i.get("tool") in TOOLS]
    read = {id(i): tool_read(i["text"]) for i in statements + asked}
    return {
        "statements read as asking to act": (sum(read[id(i)] is not None for i in statements), len(statements)),
        "requests for a tool read as asking to act": (sum(read[id(i)] is not None for i in asked), len(asked)),
        "  their tool read right": (sum(read[id(i)] == i["tool"] for i in asked), len(asked)),
        "  by shapes alone": (sum(tool_read(i["text"], fitted=False) == i["tool"] for i in asked), len(asked)),
    }


def per_label(items: list[dict]) -> dict[str, tuple[int, int]]:
    """label -> (right, of) for one split."""
    out: dict[str, tuple[int, int]] = {}
    for item in items:
        right, of = out.get(item["label"], (0, 0))
        out[item["label"]] = (right + (reading(item["text"]) == item["label"]), of + 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.acts", description=__doc__.splitlines()[0])
    parser.add_argument("--split", action="append", default=[], help="only this split (repeatable); default: all")
    parser.add_argument("--show", action="append", default=[], help="print the misses of this split (dev splits)")
    args = parser.parse_args(argv)
    splits = args.split or available()
    for split in args.show:
        if split in HELD_OUT:
            parser.error(f"{split!r} is held out: its misses are not listed (choose a dev split)")
    for split in splits:
        if not (DATA / f"acts_{split}.jsonl").exists():
            parser.error(f"no split {split!r}: no file {DATA / f'acts_{split}.jsonl'}")
        items = load(split)
        right, misses = score(items)
        kinds = ", ".join(f"{label} {r}/{n}" for label, (r, n) in sorted(per_label(items).items()))
        print(
            f"{LABELS.get(split, split)}: {right}/{len(items)} right ({100 * right / len(items):.1f}%),"
            f" {len(misses)} wrong [{kinds}]"
        )
        tools = acting(items)
        if tools:
            print("  " + "; ".join(f"{k.strip()} {n}/{of}" for k, (n, of) in tools.items()))
        if split in args.show:
            for item, got in misses:
                print(f"  {item['label']:>9} read as {got:<9} {item['text']}")
            for item in items:
                if "tool" not in item or item["label"] not in ("statement", "request"):
                    continue
                want = item["tool"] if item["tool"] in TOOLS else None
                read = tool_read(item["text"])
                if read != want:
                    print(f"  tool {want or 'none'} read as {read or 'none'}: {item['text']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
