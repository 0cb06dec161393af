"""The people a request names, as the screen reads them: the first sessions' requests, dev and held out.

    python -m evals.bench.people

For every request step of evals/data/first_sessions*.json whose expected call names someone (its
``to``, ``attendees`` or ``assignee``), whether every expected name is inside a person
``memory.text.people.named`` reads in the request (what ``agent.screen`` fills a call's people
from). Code only, no model. Held-out files (``fit_kind.HELD_OUT_SESSIONS``) print aggregates only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.bench.fit_kind import HELD_OUT_SESSIONS

DATA = Path(__file__).resolve().parent.parent / "data"
PERSON_FIELDS = ("to", "attendees", "assignee")


def cases(path: Path) -> list[tuple[str, list[str]]]:
    """(request, expected names) for each request step that names someone."""
    out = []
    for session in json.loads(path.read_text(encoding="utf-8"))["sessions"]:
        for step in session["steps"]:
            text = step.get("say") or step.get("ask") or ""
            for field, check in (step.get("expect") or {}).items():
                if any(f in PERSON_FIELDS for f in field.split("|")) and check.get("has"):
                    out.append((text, check["has"]))
    return out


def found(text: str, want: list[str]) -> bool:
    from memory.text import people

    read = " ".join(people.named(text)).lower()
    return all(w.lower() in read for w in want)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.people", description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="also list the dev requests whose person is missed")
    args = parser.parse_args(argv)
    totals = {"dev": [0, 0], "held out": [0, 0]}
    for path in sorted(DATA.glob("first_sessions*.json")):
        split = "held out" if path.name in HELD_OUT_SESSIONS else "dev"
        for text, want in cases(path):
            ok = found(text, want)
            totals[split][0] += ok
            totals[split][1] += 1
            if args.show and split == "dev" and not ok:
                print(f"  missed {want} in {path.name}: {text[:100]}")
    for split, (right, n) in totals.items():
        print(f"{split}: the expected person read in {right}/{n} requests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
