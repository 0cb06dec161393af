"""Run the suite: personas x designs x items (x repeats) at one level, into a run folder.

``evals/runs/<timestamp>--<label>/`` holds:

- ``fingerprint.json``: the commit (``-dirty`` when the tree has changes),
  hashes of each persona, its items and the settings;
- ``records.jsonl``: one line per item, design and repeat;
- ``fairness.json``: items that pass without memory or fail with exactly
  their sources, by id;
- ``context.md`` (context level): the table of designs by kind and persona;
- ``extraction-<persona>.json`` (``--facts write``): the write path's calls
  and tokens, the items its active facts cover, and the extraction stage
  (``evals/extraction.py``): planted facts right, wrong-dated or missing,
  changed facts superseded, and every active fact classed as planted, stale,
  wrong, invented or unplanned.

``--resume`` skips records already written; ``--replay`` regrades a run's
saved replies and tool effects without calling a model.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.items import Item, dump_items, load_items
from evals.persona import Persona, load_persona, verify
from evals.records import read_records

RUNS_DIR = Path(__file__).parent / "runs"
PERSONAS_DIR = Path(__file__).parent / "personas"
CONTEXT, ANSWER = "context", "answer"
INFRA_RETRIES = 2  # extra attempts after an infrastructure failure, the same for every design


class RunError(Exception):
    """A run cannot start or continue; the text says why in one line."""


@dataclass
class Settings:
    level: str = CONTEXT
    designs: list[str] = field(default_factory=lambda: ["none", "full", "summary", "raw", "kept", "oracle"])
    personas: list[str] = field(default_factory=lambda: ["tiny", "light", "heavy", "mixed", "yearlong"])
    facts: str = "gold"  # or "write" (kept's write path with memory_model)
    model: str | None = None
    memory_model: str | None = None
    repeats: int = 1
    kinds: list[str] = field(default_factory=list)  # empty: every kind
    limit: int | None = None  # at most this many items per persona
    label: str = ""


# --- personas -----------------------------------------------------------------


def resolve_persona(name: str) -> tuple[Persona, list[Item]]:
    """A persona by name (committed file, else generated on demand) or by path to a file."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        items_path = path.with_name(path.name[:-5] + ".items.jsonl")
        if not items_path.exists():
            raise RunError(f"{path} has no items file beside it ({items_path.name})")
        return load_persona(path), load_items(items_path)
    committed = PERSONAS_DIR / f"{name}.json"
    if committed.exists():
        return load_persona(committed), load_items(PERSONAS_DIR / f"{name}.items.jsonl")
    from evals.generate import SPECS, generate

    if name in SPECS:
        return generate(name)
    raise RunError(f"no persona {name!r}: give a name ({', '.join(['tiny', *SPECS])}) or a path to a .json file")


def git_commit() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprint(settings: Settings, loaded: dict[str, tuple[Persona, list[Item]]]) -> dict[str, Any]:
    return {
        "commit": git_commit(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "settings": asdict(settings),
        "settings_hash": _hash(json.dumps(asdict(settings), sort_keys=True)),
        "personas": {
            name: {
                "persona_hash": _hash(p.dumps()),
                "items_hash": _hash(dump_items(items)),
                "messages": len(p.messages),
                "items": len(items),
            }
            for name, (p, items) in loaded.items()
        },
    }


def new_run_dir(settings: Settings, base: Path = RUNS_DIR) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    label = settings.label or f"{settings.level}-{settings.facts}" + (f"-{settings.model}" if settings.model else "")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in label)
    path = base / f"{stamp}--{safe}"
    path.mkdir(parents=True, exist_ok=False)
    return path


# --- running ------------------------------------------------------------------


def _select(items: list[Item], settings: Settings) -> list[Item]:
    chosen = [i for i in items if not settings.kinds or i.kind in settings.kinds]
    return chosen[: settings.limit] if settings.limit else chosen


def _key(r: dict[str, Any]) -> tuple:
    return (r["persona"], r["item"], r["design"], r.get("repeat", 0))


def run(
    settings: Settings,
    run_dir: Path | None = None,
    *,
    resume: bool = False,
    base: Path = RUNS_DIR,
    progress: Callable[[int, int], None] | None = None,
    model=None,
    memory_llm=None,
) -> Path:
    """Run the suite and return the run folder. ``model``/``memory_llm`` override the specs (tests)."""
    from evals.designs import DESIGNS

    bad = [d for d in settings.designs if d not in DESIGNS]
    if bad:
        raise RunError(f"unknown design(s) {', '.join(bad)}; known: {', '.join(DESIGNS)}")
    if settings.level not in (CONTEXT, ANSWER):
        raise RunError(f"level must be {CONTEXT} or {ANSWER}")
    if settings.level == ANSWER and model is None and not settings.model:
        raise RunError("the answer level needs --model")
    if settings.facts == "write" and memory_llm is None and not settings.memory_model:
        raise RunError("--facts write needs --memory-model (or use --facts gold)")
    loaded = {name: resolve_persona(name) for name in settings.personas}
    for name, (persona, items) in loaded.items():
        # The whole-history scan for stray values runs in the tests and `kept eval generate --check`.
        problems = verify(persona, items, thorough=False)
        if problems:
            raise RunError(
                f"persona {name} fails its own checks: {problems[0]}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
            )
    if resume:
        if run_dir is None or not (run_dir / "fingerprint.json").exists():
            raise RunError("--resume needs the folder of an earlier run")
        old = json.loads((run_dir / "fingerprint.json").read_text())
        now_fp = fingerprint(settings, loaded)
        if old["settings_hash"] != now_fp["settings_hash"] or old["personas"] != now_fp["personas"]:
            raise RunError("this run's settings, personas or items changed since it started; start a new run")
    else:
        run_dir = run_dir or new_run_dir(settings, base)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "fingerprint.json").write_text(json.dumps(fingerprint(settings, loaded), indent=2) + "\n")
    done: set[tuple] = set()
    if resume:
        # Keep the complete records; a line cut short by the interruption and
        # infrastructure failures are redone.
        kept = [r for r in read_records(run_dir) if not r.get("infra")]
        done = {_key(r) for r in kept}
        (run_dir / "records.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in kept), encoding="utf-8"
        )
    if settings.level == ANSWER and model is None:
        from agent.models import registry

        model = registry.create(settings.model)
    total = (
        sum(len(_select(items, settings)) for _, items in loaded.values()) * len(settings.designs) * settings.repeats
    )
    count = 0
    with (
        tempfile.TemporaryDirectory(prefix="kept-eval-") as tmp,
        open(run_dir / "records.jsonl", "a", encoding="utf-8") as out,
    ):
        for name, (persona, items) in loaded.items():
            chosen = _select(items, settings)
            # Inside this run's own folder whatever the persona is called: a path
            # ("/abs/mine.json") must not put a store beside the file and reuse it.
            base_db = Path(tmp) / f"{len(list(Path(tmp).glob('*.db')))}-{Path(name).name}.db"
            mem_llm = memory_llm
            if settings.facts == "write" and mem_llm is None:
                assert settings.memory_model  # checked before the run starts
                mem_llm = _memory_llm(settings.memory_model, base_db)
            loaded_store = _load(persona, base_db, settings.facts, mem_llm)
            if settings.facts == "write":
                from evals import extraction as planted_facts
                from evals.load import extraction

                stats = {
                    "write": loaded_store.write_stats,
                    "extraction": extraction(loaded_store, items),
                    "facts": planted_facts.score(persona, loaded_store.db),
                }
                (run_dir / f"extraction-{persona.name}.json").write_text(json.dumps(stats, indent=2) + "\n")
            from evals.designs import Designs

            designs = Designs(loaded_store)
            for design in settings.designs:
                for item in chosen:
                    for repeat in range(settings.repeats):
                        count += 1
                        if (persona.name, item.id, design, repeat) in done:
                            continue
                        assembled = designs.assemble(design, item)
                        record = _base_record(settings, persona, item, design, repeat, assembled)
                        if settings.level == CONTEXT:
                            _context_record(record, item, assembled)
                        else:
                            _answer_record(record, item, assembled, loaded_store, model, Path(tmp))
                        out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                        out.flush()
                        if progress:
                            progress(count, total)
            loaded_store.db.conn.close()
    finish(run_dir)
    return run_dir


def _memory_llm(spec: str, db_path: Path):
    from agent.memory_llm import for_memory
    from agent.models import registry

    return for_memory(registry.create(spec, memory=True))


def _load(persona: Persona, path: Path, facts: str, memory_llm):
    from evals.load import load

    return load(
        persona, path, "none" if facts == "write" else facts, memory_llm=memory_llm if facts == "write" else None
    )


def _base_record(
    settings: Settings, persona: Persona, item: Item, design: str, repeat: int, assembled
) -> dict[str, Any]:
    return {
        "level": settings.level,
        "persona": persona.name,
        "item": item.id,
        "kind": item.kind,
        "design": design,
        "repeat": repeat,
        "facts": settings.facts,
        "needs_memory": item.needs_memory,
        "is_task": item.is_task,
        "context_tokens_est": assembled.tokens(),
        "injected": assembled.injected,
    }


def _context_record(record: dict[str, Any], item: Item, assembled) -> None:
    from evals.score import grade_context

    graded = grade_context(item, assembled.memory_text())
    record.update(graded)


def _answer_record(record: dict[str, Any], item: Item, assembled, loaded_store, model, tmp: Path) -> None:
    from agent.models import prices
    from evals.answer import grade_answer, run_answer
    from evals.load import open_store

    record.update({"model": getattr(model, "name", None), "provider": getattr(model, "provider", None)})
    for attempt in range(INFRA_RETRIES + 1):
        # Each answer acts on its own copy of the store, so one item's tool
        # effects never leak into another's grading.
        copy_path = tmp / f"answer-{record['persona']}-{record['design']}-{attempt}.db"
        if copy_path.exists():
            copy_path.unlink()
        dst = open_store(copy_path)
        loaded_store.db.conn.backup(dst.conn)
        ans = run_answer(model, assembled, dst, loaded_store.now, loaded_store.tz)
        dst.conn.close()
        if ans.infra is None:
            break
    record.update(
        {
            "attempts": attempt + 1,
            "infra": ans.infra,
            "infra_detail": ans.infra_detail,
            "reply": ans.reply,
            "calls": ans.calls,
            "usage": ans.usage,
            "input_tokens": ans.input_tokens,
            "output_tokens": ans.output_tokens,
            "latency_s": ans.latency_s,
            "effects": ans.effects,
            "cost_usd": prices.cost(
                record["provider"] or "",
                record["model"] or "",
                ans.input_tokens,
                ans.output_tokens,
                ans.cached_input_tokens,
            ),
            "prices_as_of": prices.PRICES_AS_OF,
        }
    )
    if ans.infra is None:
        record.update(grade_answer(item, ans.reply, ans.calls, ans.effects, loaded_store.tz))
    else:
        record["passed"] = None  # infrastructure: counted, never scored


def finish(run_dir: Path) -> None:
    """Write the fairness checks and the context table from the records."""
    from evals.report import context_table
    from evals.score import fairness

    records = read_records(run_dir)
    (run_dir / "fairness.json").write_text(json.dumps(fairness(records).to_json(), indent=2) + "\n")
    if records and records[0]["level"] == CONTEXT:
        (run_dir / "context.md").write_text(context_table(records))


def replay(src: Path, base: Path = RUNS_DIR) -> Path:
    """Regrade a saved answer-level run with the current items, without calling a model."""
    from zoneinfo import ZoneInfo

    from evals.answer import grade_answer

    fp = json.loads((src / "fingerprint.json").read_text())
    settings = Settings(**fp["settings"])
    settings.label = (settings.label or "run") + "-replay"
    items = {}
    tzs = {}
    for name in settings.personas:
        persona, its = resolve_persona(name)
        tzs[persona.name] = ZoneInfo(persona.tz)
        items.update({(persona.name, i.id): i for i in its})
    dst = new_run_dir(settings, base)
    fp["replayed_from"] = str(src)
    fp["commit"] = git_commit()
    (dst / "fingerprint.json").write_text(json.dumps(fp, indent=2) + "\n")
    with open(dst / "records.jsonl", "w", encoding="utf-8") as out:
        for r in read_records(src):
            item = items.get((r["persona"], r["item"]))
            if item is not None and r.get("level") == ANSWER and not r.get("infra"):
                for key in ("checks", "checks_passed", "reply_grade"):
                    r.pop(key, None)
                r.update(
                    grade_answer(item, r.get("reply", ""), r.get("calls", []), r.get("effects", {}), tzs[r["persona"]])
                )
            r["replayed"] = True
            out.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    finish(dst)
    return dst
