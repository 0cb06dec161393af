"""How often a wish about treatment reaches SOUL (memory.soul.wished_treatment), on two pairs of sets:

- ``nicknames`` (tests/data/nicknames_dev.jsonl, _test.jsonl): introductions giving the short name to
  use in a wording of their own (memory.text.nicknames), against introductions naming someone or
  something else with a look-alike name;
- ``asked`` (tests/data/wishes_asked_dev.jsonl, _test.jsonl): wishes asked as a modal question to kept
  ("Could you call me Bex?"), against tasks asked the same way ("Could you send your reply to Anna?");
- ``treatment`` (tests/data/treatment_test.jsonl, the ninth round's held-out, dev from the tenth):
  wishes by kind (name, format, tone, language, length) in many wordings, each with the words a
  right SOUL line must hold ("expect"), against look-alikes (tasks naming formats, other people's
  names). Scored by kind: wishes found, found with every expected word in the lines SOUL would
  take (the sentences read as wishes), look-alikes taken.

    python -m evals.soul_wishes [--set treatment] [--misses]

A message counts as read as a wish when any of its sentences is."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = ("nicknames", "wishes_asked")
SPLITS = ("dev", "test")
TREATMENT = "treatment_test"  # the ninth round's held-out, dev from the tenth
KINDS = ("name", "format", "tone", "language", "length")


def load(split: str, name: str = "nicknames") -> list[dict]:
    return _rows(DATA / f"{name}_{split}.jsonl")


def _rows(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [row for row in map(json.loads, lines) if row["kind"] != "meta"]


def soul_lines(message: str, with_message: bool = True, llm=None) -> list[str]:
    """The sentences of ``message`` SOUL would take, as the write pass reads them
    (memory/embedded_writer.py: a question only by the general reading)."""
    from memory import soul
    from memory.embedded_writer import sentences

    said = sentences(message)
    items = [(i, s, message if with_message else "") for i, s in enumerate(said)]
    taken = soul.read_wishes(items, llm)
    return [s for i, s, _ in items if i in taken]


def read_as_wish(message: str, with_message: bool = True, llm=None) -> bool:
    return bool(soul_lines(message, with_message, llm))


def score(rows: list[dict], with_message: bool = True, llm=None) -> dict:
    wishes = [r for r in rows if r["kind"] == "wish"]
    others = [r for r in rows if r["kind"] == "none"]
    missed: list[str] = []
    worded = 0
    by_kind: dict[str, list[int]] = {}
    for r in wishes:
        lines = soul_lines(r["message"], with_message, llm)
        kind = by_kind.setdefault(r.get("about", "wish"), [0, 0, 0])
        kind[2] += 1
        if not lines:
            missed.append(r["message"])
            continue
        kind[0] += 1
        said = " ".join(lines).lower()
        if all(w in said for w in r.get("expect", [])):
            kind[1] += 1
            worded += 1
        else:
            missed.append(r["message"] + "  [found, words missing: " + " | ".join(lines) + "]")
    flagged = [r["message"] for r in others if read_as_wish(r["message"], with_message, llm)]
    return {
        "wishes": len(wishes),
        "found": sum(k[0] for k in by_kind.values()),
        "worded": worded,
        "by_kind": by_kind,
        "others": len(others),
        "flagged": flagged,
        "missed": missed,
    }


def _local_llm():
    """The embedded model as the write pass gets it (agent/memory_llm.py), for ``--confirm``."""
    from agent.memory_llm import ModelMemoryLLM
    from agent.models.local import LocalModel

    return ModelMemoryLLM(LocalModel())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list what each split gets wrong")
    parser.add_argument("--set", choices=(*SETS, "treatment"), help="one set only")
    parser.add_argument("--confirm", action="store_true", help="confirm new candidates with the embedded model")
    args = parser.parse_args(argv)
    llm = _local_llm() if args.confirm else None
    runs = [(name, split, DATA / f"{name}_{split}.jsonl") for name in SETS for split in SPLITS]
    runs.append(("treatment", "dev", DATA / f"{TREATMENT}.jsonl"))
    for name, split, path in runs:
        if args.set and name != args.set:
            continue
        for with_message, label in ((False, "sentence alone"), (True, "with its message")):
            s = score(_rows(path), with_message, llm)
            line = (
                f"{name:12} {split:4} {label:16} wishes found {s['found']}/{s['wishes']}, "
                f"others read as wishes {len(s['flagged'])}/{s['others']}"
            )
            if name == "treatment":
                kinds = ", ".join(f"{k} {v[0]}/{v[2]}" for k, v in s["by_kind"].items())
                line += f"; with the expected words {s['worded']}/{s['wishes']}; by kind: {kinds}"
            print(line)
            if args.misses and with_message:
                for m in s["missed"]:
                    print(f"    missed: {m}")
                for m in s["flagged"]:
                    print(f"    flagged: {m}")


if __name__ == "__main__":
    main()
