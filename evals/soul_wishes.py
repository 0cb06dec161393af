"""How often a wish about treatment reaches SOUL (memory.soul.wished_treatment), on two pairs of sets:

- ``nicknames`` (tests/data/nicknames_dev.jsonl, _test.jsonl): introductions giving the short name to
  use in a wording of their own (memory.text.nicknames), against introductions naming someone or
  something else with a look-alike name;
- ``asked`` (tests/data/wishes_asked_dev.jsonl, _test.jsonl): wishes asked as a modal question to kept
  ("Could you call me Bex?"), against tasks asked the same way ("Could you send your reply to Anna?");
- ``treatment`` (tests/data/treatment_test.jsonl, the ninth round's held-out, dev from the tenth, and
  treatment_test2.jsonl, the tenth round's held-out, dev from the eleventh, and treatment_test3.jsonl,
  the eleventh round's held-out, dev from the twelfth, and treatment_test4, the twelfth round's
  held-out, dev from the thirteenth, and treatment_test5, the thirteenth round's held-out, dev
  from the fourteenth; treatment_test6 is held out and never read here): wishes by kind (name, format, tone, language, length) in many wordings, each with the words a
  right SOUL line must hold ("expect"), against look-alikes (tasks naming formats, other people's
  names). Scored by kind: wishes found, found with every expected word in the lines SOUL would
  take (the sentences read as wishes), look-alikes taken.

    python -m evals.soul_wishes [--set treatment] [--misses] [--anatomy] [--confirm]

``--anatomy`` sorts the missed wishes by why they were missed (memory.soul.treatment_reading): not
said to kept, about a third party, about a particular text, far from every kind, confirmed away by
the model, or found with the expected words in a sentence SOUL did not take.

A message counts as read as a wish when any of its sentences is."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memory.text.words import has_cjk

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = ("nicknames", "wishes_asked")
SPLITS = ("dev", "test")
# The ninth to thirteenth rounds' held-out sets, dev from the round after each. Named one by one: a
# later held-out set (treatment_test6) must never be picked up by a pattern.
TREATMENT = ("treatment_test", "treatment_test2", "treatment_test3", "treatment_test4", "treatment_test5")
KINDS = ("name", "format", "tone", "language", "length")


def load(split: str, name: str = "nicknames") -> list[dict]:
    return _rows(DATA / f"{name}_{split}.jsonl")


def _rows(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [row for row in map(json.loads, lines) if row["kind"] != "meta"]


def soul_lines(message: str, with_message: bool = True, llm=None) -> list[str]:
    """The sentences of ``message`` SOUL would take, as the write pass reads them and cuts them
    (memory/embedded_writer.py: a question only by the general reading; soul.wish_text)."""
    from memory import soul
    from memory.embedded_writer import sentences

    said = sentences(message)
    items = [(i, s, message if with_message else "") for i, s in enumerate(said)]
    taken = soul.read_wishes(items, llm)
    return [soul.wish_text(s) for i, s, _ in items if i in taken]


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


def why_missed(row: dict, llm=None) -> str:
    """Why the wish of ``row`` is missed or found without its expected words: "" when it is not."""
    from memory import soul
    from memory.embedded_writer import sentences

    message = row["message"]
    said = sentences(message)
    items = [(i, s, message) for i, s in enumerate(said)]
    taken = soul.read_wishes(items, llm)
    expect = row.get("expect", [])
    took = " ".join(said[i] for i in taken).lower()
    if taken and all(w in took for w in expect):
        return ""
    if taken:
        return "found, the expected words in a sentence not taken"
    if llm is not None and soul.read_wishes(items):
        return "confirmed away by the model"
    # The sentence holding the expected words (or every sentence), read by the general reading.
    holding = [s for s in said if all(w in s.lower() for w in expect)] or said
    whys = {soul.treatment_reading(s)[1] for s in holding}
    why = next(
        (w for w in ("far from every kind", "a particular text", "a third party", "not addressed") if w in whys), ""
    )
    chinese = any(has_cjk(s) for s in holding)
    return (why or "read, not taken") + (" (Chinese)" if chinese else "")


def anatomy(rows: list[dict], llm=None) -> dict[str, list[str]]:
    """The missed wishes of ``rows`` by why they were missed."""
    out: dict[str, list[str]] = {}
    for r in rows:
        if r["kind"] == "wish" and (why := why_missed(r, llm)):
            out.setdefault(why, []).append(r["message"])
    return out


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
    parser.add_argument("--anatomy", action="store_true", help="sort the missed wishes by why they were missed")
    args = parser.parse_args(argv)
    llm = _local_llm() if args.confirm else None
    runs = [(name, split, DATA / f"{name}_{split}.jsonl") for name in SETS for split in SPLITS]
    runs += [("treatment", name.removeprefix("treatment_"), DATA / f"{name}.jsonl") for name in TREATMENT]
    for name, split, path in runs:
        if args.set and name != args.set:
            continue
        for with_message, label in ((False, "sentence alone"), (True, "with its message")):
            s = score(_rows(path), with_message, llm)
            line = (
                f"{name:12} {split:5} {label:16} wishes found {s['found']}/{s['wishes']}, "
                f"others read as wishes {len(s['flagged'])}/{s['others']}"
            )
            if name == "treatment":
                kinds = ", ".join(f"{k} {v[0]}/{v[2]}" for k, v in s["by_kind"].items())
                line += f"; with the expected words {s['worded']}/{s['wishes']}; by kind: {kinds}"
            print(line)
            if args.anatomy and with_message and name == "treatment":
                for why, missed in sorted(anatomy(_rows(path), llm).items(), key=lambda kv: -len(kv[1])):
                    print(f"  {len(missed):3}  {why}")
                    for m in missed:
                        print(f"         {m}")
            if args.misses and with_message:
                for m in s["missed"]:
                    print(f"    missed: {m}")
                for m in s["flagged"]:
                    print(f"    flagged: {m}")


if __name__ == "__main__":
    main()
