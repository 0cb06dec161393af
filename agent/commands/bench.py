"""`kept bench`: retrieval benchmarks on public data, the store at scale, the relevance gate.

The data is never shipped with kept: point --data at your copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from agent.commands.errors import fail

app = typer.Typer(help="Measure recall and search (public benchmarks, scale, the relevance gate) and the embedded model's speed.", no_args_is_help=True)
NAME = "bench"

DATA_HELP = "Path to the benchmark file (never copied into kept)."
LIMIT_OPT = typer.Option(None, "--limit", min=1, help="Only the first N questions (quick iterations).")
JSON_OPT = typer.Option(False, "--json", help="Print the figures as JSON instead of tables.")
QUIET_OPT = typer.Option(False, "--no-progress", help="Do not show a progress bar.")



def _check_data(path: Path) -> None:
    if not path.is_file():
        fail(f"no benchmark file at {path}; pass --data with the path to your copy")


def _emit(report: dict, metrics, as_json: bool) -> None:
    from evals.bench.common import render_report

    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        typer.echo(render_report(report, metrics))


def _run_dataset(bench, label: str, data: Path, limit: Optional[int], as_json: bool, no_progress: bool) -> None:
    _check_data(data)
    try:
        report = bench.run(data, limit=limit, show_progress=not no_progress)
    except (OSError, ValueError, KeyError) as exc:
        fail(f"cannot read {data} as {label}: {exc}")
    _emit(report, bench.METRICS, as_json)


@app.command()
def longmemeval(
    data: Path = typer.Option(..., "--data", help=DATA_HELP + " e.g. longmemeval_s_cleaned_498of500.json.xz"),
    limit: Optional[int] = LIMIT_OPT,
    as_json: bool = JSON_OPT,
    no_progress: bool = QUIET_OPT,
) -> None:
    """LongMemEval-S session and turn recall: kept beside whitespace and lowercase-word BM25."""
    from evals.bench import longmemeval as bench

    _run_dataset(bench, "LongMemEval", data, limit, as_json, no_progress)


@app.command()
def locomo(
    data: Path = typer.Option(..., "--data", help=DATA_HELP + " e.g. locomo10.json"),
    limit: Optional[int] = LIMIT_OPT,
    as_json: bool = JSON_OPT,
    no_progress: bool = QUIET_OPT,
) -> None:
    """LoCoMo session and turn recall: kept beside whitespace and lowercase-word BM25."""
    from evals.bench import locomo as bench

    _run_dataset(bench, "LoCoMo", data, limit, as_json, no_progress)


@app.command()
def scale(
    sizes: str = typer.Option("1000,10000,100000", "--messages", help="Comma-separated message counts to build stores of."),
    facts: int = typer.Option(500, "--facts", min=1, help="How many active facts recall ranks."),
    queries: int = typer.Option(200, "--queries", min=1, help="Queries timed per measurement."),
    as_json: bool = JSON_OPT,
) -> None:
    """Latency of recall over the facts and of search over stored messages, and the cost of adding one message."""
    from evals.bench import scale as bench

    try:
        counts = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        fail(f"--messages takes comma-separated numbers, not {sizes!r}")
    report = bench.run(counts, n_facts=facts, n_queries=queries)
    typer.echo(json.dumps(report, indent=2) if as_json else bench.render(report))


@app.command()
def gate(
    dev: Optional[Path] = typer.Option(None, "--dev", help="Dev set (JSONL); default: the one shipped with kept's tests."),
    as_json: bool = JSON_OPT,
) -> None:
    """The relevance gate's trade-off on the dev set: facts injected on ordinary turns vs answerable turns keeping their fact."""
    from evals.bench import gate as bench

    path = dev or bench.DEFAULT_DEV
    _check_data(path)
    report = bench.run(path)
    typer.echo(json.dumps(report, indent=2) if as_json else bench.render(report))


@app.command()
def faults(
    trials: int = typer.Option(50, "--trials", min=1, help="How many SIGKILL trials (mid-turn and mid-write-pass)."),
    seed: int = typer.Option(1, "--seed", help="Seed for where the kills land."),
    rounds: int = typer.Option(2, "--rounds", min=1, help="Rounds over every provider fault class."),
    turns: int = typer.Option(8, "--turns", min=1, help="Turns per session in the two-session concurrency trial."),
    as_json: bool = JSON_OPT,
) -> None:
    """Crash, provider-fault and concurrency trials against a fake model server on 127.0.0.1: messages lost, facts duplicated."""
    from evals.bench import faults as bench

    results = bench.run(trials, seed, rounds, turns)
    typer.echo(json.dumps(bench.as_json(results), indent=2) if as_json else bench.report(results))
    if not results["total"].clean:
        raise typer.Exit(1)


@app.command()
def local(as_json: bool = JSON_OPT) -> None:
    """The embedded model's speed in one run: load, prefix cold and restored from disk, time to first token and tok/s
    for a question and a booking, cold and in a second process that starts from the saved prefix."""
    from agent.models.base import ModelError
    from evals.bench import local as bench

    try:
        report = bench.run()
    except ModelError as exc:
        fail(f"the embedded model is not usable: {exc}")
    except RuntimeError as exc:
        fail(str(exc))
    typer.echo(json.dumps(report, indent=2) if as_json else bench.render(report))
