"""`kept eval`: the self-eval suite (generate personas, run, report)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agent.commands.errors import fail

NAME = "eval"
app = typer.Typer(help="Measure whether memory changes what kept does: personas, runs, reports.", no_args_is_help=True)


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


@app.command()
def generate(
    names: list[str] = typer.Argument(
        None, help="Personas to generate (default: all). Known: light, heavy, mixed, yearlong."
    ),
    out: Path = typer.Option(None, "--out", help="Folder to write into (default: evals/personas)."),
    check: bool = typer.Option(
        False,
        "--check",
        help="Do not write: verify each persona's plan and that committed files match a fresh generation.",
    ),
) -> None:
    """Generate the synthetic personas and their items (seeded, deterministic, no model)."""
    from evals.generate import PERSONA_DIR, SPECS, write
    from evals.generate import generate as gen
    from evals.items import dump_items
    from evals.persona import verify

    chosen = names or list(SPECS)
    unknown = [n for n in chosen if n not in SPECS]
    if unknown:
        fail(f"unknown persona(s) {', '.join(unknown)}; known: {', '.join(SPECS)}")
    bad = 0
    for name in chosen:
        persona, items = gen(name)
        problems = verify(persona, items)
        for p in problems:
            typer.echo(f"{name}: {p}", err=True)
        bad += len(problems)
        if check:
            committed = (out or PERSONA_DIR) / f"{name}.json"
            if committed.exists():
                same = committed.read_text(encoding="utf-8") == persona.dumps() and committed.with_name(
                    f"{name}.items.jsonl"
                ).read_text(encoding="utf-8") == dump_items(items)
                typer.echo(
                    f"{name}: {len(persona.messages)} messages, {len(items)} items, "
                    f"{'matches the committed file' if same else 'DIFFERS from the committed file'}"
                )
                bad += 0 if same else 1
            else:
                typer.echo(f"{name}: {len(persona.messages)} messages, {len(items)} items (generated on demand)")
            continue
        ppath, ipath = write(name, out or PERSONA_DIR)
        typer.echo(f"{name}: {len(persona.messages)} messages, {len(items)} items -> {ppath}")
    if bad:
        raise typer.Exit(1)


@app.command()
def run(
    level: str = typer.Option(
        "context",
        "--level",
        help="context: does the assembled prompt hold the current value (no model). answer: a model answers and acts.",
    ),
    designs: str = typer.Option(
        "none,full,summary,raw,kept,oracle",
        "--designs",
        help="Comma-separated designs: none, full, summary, raw, kept, oracle.",
    ),
    personas: str = typer.Option(
        "tiny,light,heavy,mixed,yearlong", "--personas", help="Comma-separated persona names."
    ),
    persona: Path | None = typer.Option(
        None, "--persona", help="Run on your own history: a persona .json file with its .items.jsonl beside it."
    ),
    facts: str = typer.Option(
        "gold",
        "--facts",
        help="gold: the planted facts as if extracted perfectly; write: kept's real write path (needs --memory-model), its extraction stage scored and printed.",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Answering model for --level answer, e.g. anthropic:claude-haiku-4-5 or local."
    ),
    memory_model: str | None = typer.Option(
        None, "--memory-model", help="Model for kept's write path (with --facts write)."
    ),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Answer each item this many times."),
    kinds: str = typer.Option("", "--kinds", help="Only these item kinds (comma-separated)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most this many items per persona."),
    label: str = typer.Option("", "--label", help="A label for the run folder's name."),
    out: Path | None = typer.Option(None, "--out", help="Folder that holds run folders (default: evals/runs)."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue an interrupted run in this folder."),
    replay: Path | None = typer.Option(
        None, "--replay", help="Regrade this run's saved replies without calling a model."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the run folder and fairness checks as JSON."),
) -> None:
    """Run the suite; writes evals/runs/<timestamp>--<label>/ and prints the context table or a summary."""
    from evals import run as runner

    base = out or runner.RUNS_DIR
    try:
        if replay:
            run_dir = runner.replay(replay, base)
        else:
            settings = runner.Settings(
                level=level,
                designs=_split(designs),
                personas=[str(persona)] if persona else _split(personas),
                facts=facts,
                model=model,
                memory_model=memory_model,
                repeats=repeats,
                kinds=_split(kinds),
                limit=limit,
                label=label,
            )
            if facts not in ("gold", "write"):
                fail("--facts must be gold or write")
            if resume:
                settings = runner.Settings(**json.loads((resume / "fingerprint.json").read_text())["settings"])
            with typer.progressbar(length=1, label="eval", file=None) as bar:
                state = {"done": 0}

                def progress(done: int, total: int) -> None:
                    bar.length = total
                    bar.update(done - state["done"])
                    state["done"] = done

                run_dir = runner.run(settings, resume, resume=bool(resume), base=base, progress=progress)
    except (runner.RunError, FileNotFoundError, ValueError) as exc:
        fail(str(exc))
        return
    fairness = json.loads((run_dir / "fairness.json").read_text())
    if as_json:
        typer.echo(json.dumps({"run": str(run_dir), "fairness": fairness}, indent=2))
        return
    typer.echo(f"run: {run_dir}")
    for path in sorted(run_dir.glob("extraction-*.json")):
        from evals.extraction import summary_line

        data = json.loads(path.read_text())
        write, fact_stats = data.get("write", {}), data.get("facts")
        typer.echo(
            f"write path {path.stem[len('extraction-') :]}: {write.get('passes')} passes, "
            f"{write.get('model_calls')} model calls ({write.get('failed_attempts', 0)} failed attempts besides), "
            f"{write.get('input_tokens')} input and "
            f"{write.get('output_tokens')} output tokens"
            + (f", {write['seconds']} s" if write.get("seconds") is not None else "")
            + (
                f"; STOPPED with {write.get('unread_messages')} messages unread: {write['stopped']}"
                if write.get("stopped")
                else ""
            )
        )
        if fact_stats:
            typer.echo(summary_line(path.stem[len("extraction-") :], fact_stats))
    if (run_dir / "context.md").exists():
        typer.echo((run_dir / "context.md").read_text())
    typer.echo(
        f"fairness: none passes {len(fairness['none_passing'])}/{fairness['none_checked']} memory items; "
        f"oracle fails {len(fairness['oracle_failing'])}/{fairness['oracle_checked']}"
        + (
            ""
            if fairness["ok"]
            else " -- NOT OK: " + ", ".join((fairness["none_passing"] + fairness["oracle_failing"])[:20])
        )
    )
    typer.echo(f"report: kept eval report {run_dir}")


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="A run folder (evals/runs/<timestamp>--<label>)."),
    charts: bool = typer.Option(
        True, "--charts/--no-charts", help="Write PNG charts beside report.md (needs matplotlib)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the fairness checks and file paths as JSON instead of the report."
    ),
) -> None:
    """Write report.md (and charts) for a run and print it."""
    from evals.report import build_report

    if not (run_dir / "records.jsonl").exists():
        fail(f"{run_dir} is not a run folder (no records.jsonl)")
    try:
        text = build_report(run_dir, charts=charts)
    except ValueError as exc:
        fail(str(exc))
        return
    if as_json:
        fairness = json.loads((run_dir / "fairness.json").read_text()) if (run_dir / "fairness.json").exists() else None
        typer.echo(
            json.dumps(
                {
                    "report": str(run_dir / "report.md"),
                    "charts": sorted(str(p) for p in run_dir.glob("*.png")),
                    "fairness": fairness,
                },
                indent=2,
            )
        )
        return
    typer.echo(text)


@app.command()
def session(
    ids: list[str] = typer.Argument(None, help="Session ids from evals/data/first_sessions.json (default: all)."),
    short: bool = typer.Option(
        False, "--short", help="Only the short session, without its long steps (what `make test` runs)."
    ),
    data: Path = typer.Option(
        None, "--data", help="A sessions file of the same shape (default: evals/data/first_sessions.json)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the grades as JSON."),
) -> None:
    """A newcomer's first sessions with the embedded model, through the real `kept chat` and `kept ask`, graded in code."""
    import sys

    from evals import first_session

    source = data or first_session.DATA
    if not source.is_file():
        fail(f"no sessions file at {source}")
    try:
        results = first_session.run(
            ids or None, short=short, data=source, say=lambda line: print(line, file=sys.stderr, flush=True)
        )
    except (RuntimeError, ValueError, KeyError) as exc:
        fail(f"{source}: {exc}")
    if not results:
        fail(f"no such session in {source}")
    if as_json:
        typer.echo(json.dumps([{"id": r.id, **g} for r, g in results], indent=2, ensure_ascii=False))
    else:
        typer.echo(first_session.render(results))
