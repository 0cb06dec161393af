"""Day and time phrases as people say them: right / wrong / refused per split.

    python -m evals.bench.dates                  # kept's resolver, dev and test
    python -m evals.bench.dates --engine dateparser
    python -m evals.bench.dates --show dev       # and the misses of a split

The sets are evals/data/dates_dev.jsonl (tuned on), dates_test.jsonl
(written first and separately, not tuned on) and dates_fresh.jsonl (written
after the resolver was done, another now and zone, run once). Each line has the phrase, the
``now`` and ``zone`` it is said in, and ``want``: a wall time
("2026-11-27T14:00"), a day ("2026-11-30") for a phrase that names only a
day, or "refuse" for a phrase that must be refused as ambiguous.

dates_world.jsonl (held out, the twenty-fourth round) holds whole requests instead, in English
or Chinese with the day said in the writer's own language ("set up a call with Felipe amanhã at
16h10", 聽日下午三點), and controls: a name or a place spelt like a day word, no day at all. Each
is read as a booking reads it (``agent.screen.named_time``: the request's day and time);
``want`` is the wall time, or null where no day and time are named (right: none read).

- right: the wanted moment or day, or a refusal where one is wanted;
- wrong: another moment or day, or any answer where a refusal is wanted
  (a wrong booking is worse than a question back);
- refused: no answer where one was wanted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections import Counter
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

DATA = Path(__file__).resolve().parent.parent / "data"
SPLITS = ("dev", "test", "fresh", "world", "test2")
HELD_OUT = frozenset({"world", "test2"})  # their misses are not listed
RIGHT, WRONG, REFUSED = "right", "wrong", "refused"


def load(split: str) -> list[dict]:
    with open(DATA / f"dates_{split}.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r.get("kind") != "meta"]


def _kept(phrase: str, now: datetime, tz: ZoneInfo, day_only: bool):
    """kept's answer: a naive wall time, a date, or None for a refusal (with the reason)."""
    from tools import when

    try:
        if day_only:
            parsed = when.parse(phrase, now, tz)
            return (parsed.day if parsed.exact is None else parsed.exact.date()), ""
        return when.resolve(phrase, now, tz).replace(tzinfo=None), ""
    except when.WhenError as exc:
        return None, str(exc)


def _dateparser(phrase: str, now: datetime, tz: ZoneInfo, day_only: bool):
    """dateparser's answer, set up to kept's rules as far as its settings go."""
    import dateparser

    found = dateparser.parse(
        phrase,
        languages=["en", "zh"],
        settings={
            "RELATIVE_BASE": now.replace(tzinfo=None),
            "TIMEZONE": str(tz),
            "TO_TIMEZONE": str(tz),
            "RETURN_AS_TIMEZONE_AWARE": False,
            "PREFER_DATES_FROM": "future",
            "DATE_ORDER": "DMY",
            "STRICT_PARSING": False,
        },
    )
    if found is None:
        return None, "no reading"
    return (found.date() if day_only else found.replace(second=0, microsecond=0)), ""


ENGINES = {"kept": _kept, "dateparser": _dateparser}


def _kept_request(request: str, now: datetime, tz: ZoneInfo) -> datetime | None:
    """The day and time a booking reads in a whole request (naive wall time), or None."""
    from agent import screen

    named = screen.named_time(request, now, tz)
    return named.moment.astimezone(tz).replace(tzinfo=None) if named and named.moment else None


def _dateparser_request(request: str, now: datetime, tz: ZoneInfo) -> datetime | None:
    """dateparser's search of a whole request, every language it knows: its first date with a time."""
    from dateparser.search import search_dates

    found = search_dates(
        request,
        settings={
            "RELATIVE_BASE": now.replace(tzinfo=None),
            "PREFER_DATES_FROM": "future",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    return found[0][1].replace(second=0, microsecond=0) if found else None


REQUEST_ENGINES = {"kept": _kept_request, "dateparser": _dateparser_request}


def judge(item: dict, engine: str = "kept") -> tuple[str, str]:
    """(verdict, what the engine said) for one item."""
    tz = ZoneInfo(item["zone"])
    now = datetime.fromisoformat(item["now"]).replace(tzinfo=tz)
    want = item["want"]
    if "request" in item:
        moment = REQUEST_ENGINES[engine](item["request"], now, tz)
        if want is None:
            return (RIGHT if moment is None else WRONG), str(moment)
        if moment is None:
            return REFUSED, "no day and time read"
        return (RIGHT if moment == datetime.fromisoformat(want) else WRONG), moment.isoformat()
    day_only = want != "refuse" and "T" not in want
    got, why = ENGINES[engine](item["phrase"], now, tz, day_only or want == "refuse")
    said = why if got is None else got.isoformat()
    if want == "refuse":
        return (RIGHT if got is None else WRONG), said
    if got is None:
        return REFUSED, said
    expected = date.fromisoformat(want) if day_only else datetime.fromisoformat(want)
    return (RIGHT if got == expected else WRONG), said


def run(engine: str = "kept") -> dict[str, dict]:
    report = {}
    for split in SPLITS:
        rows = [(item, *judge(item, engine)) for item in load(split)]
        report[split] = {
            "counts": Counter(v for _, v, _ in rows),
            "n": len(rows),
            "misses": [(i, v, s) for i, v, s in rows if v != RIGHT],
            # per language where a split names one (world): right of n, aggregates only
            "languages": {
                lang: (
                    sum(v == RIGHT for i, v, _ in rows if i.get("lang") == lang),
                    sum(i.get("lang") == lang for i, _, _ in rows),
                )
                for lang in sorted({i["lang"] for i, _, _ in rows if "lang" in i})
            },
        }
    return report


def render(report: dict, engine: str, show: list[str]) -> str:
    lines = []
    for split, r in report.items():
        c, n = r["counts"], r["n"]
        lines.append(
            f"{engine} {split}: {c[RIGHT]}/{n} right ({100 * c[RIGHT] / n:.1f}%), {c[WRONG]} wrong, {c[REFUSED]} refused"
        )
        if r.get("languages"):
            lines.append("  by language: " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in r["languages"].items()))
        if split in show:
            for item, verdict, said in r["misses"]:
                lines.append(
                    f"  {verdict:>7}: {item.get('phrase') or item['request']!r} want {item['want']}, got {said}"
                )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.dates", description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), default="kept", help="which resolver to measure")
    parser.add_argument(
        "--show",
        choices=[s for s in SPLITS if s not in HELD_OUT],
        action="append",
        default=[],
        help="print the misses of this split (the held-out world split is refused)",
    )
    args = parser.parse_args(argv)
    if args.engine == "dateparser" and importlib.util.find_spec("dateparser") is None:
        print("the dateparser comparison needs dateparser: pip install dateparser (kept itself does not use it)")
        return 2
    print(render(run(args.engine), args.engine, args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
