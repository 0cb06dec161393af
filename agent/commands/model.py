"""`kept model`: install, describe and serve the embedded model."""

from __future__ import annotations

import json
import time

import typer

from agent.commands.errors import fail

NAME = "model"
app = typer.Typer(
    help="The embedded model (Qwen2.5-Coder-0.5B-Instruct, Apache-2.0): install it, show it, serve it.",
    no_args_is_help=True,
)


@app.command()
def install(
    verify: bool = typer.Option(False, "--verify", help="Hash an already installed file again."),
) -> None:
    """Assemble the model file from its packages and verify its sha256 (quick when already done)."""
    from agent.models import model_file
    from agent.models.local import _progress_bar

    started = time.perf_counter()
    try:
        found = model_file.locate()
        if found is None:
            progress, advance = _progress_bar()
            with progress:
                found = model_file.ensure(progress=advance)
            typer.echo(
                f"installed {model_file.MODEL_NAME} at {found.path} "
                f"(sha256 verified, {time.perf_counter() - started:.1f}s)"
            )
            return
        if not found.verified:
            typer.echo(f"using {found.path} from {model_file.ENV_OVERRIDE} (your own file: not hash-checked)")
            return
        if verify:
            progress, advance = _progress_bar()
            with progress:
                ok = model_file.verify(found.path, advance)
            if not ok:
                found.path.unlink(missing_ok=True)
                fail(f"{found.path} does not match the pinned sha256; it was deleted: run `kept model install` again")
            typer.echo(f"{found.path}: sha256 verified")
            return
        typer.echo(f"already installed: {found.path}")
    except model_file.ModelFileError as exc:
        fail(str(exc))


@app.command()
def warm() -> None:
    """Evaluate and save the embedded model's prompt prefixes (persona and tools) now, so that the first replies of
    `kept chat` and `kept ask` start from them instead of reading ~2,000 tokens first (`make chat` runs it)."""
    from agent import context
    from agent.models.base import ToolSpec
    from agent.models.local import LocalModel
    from tools import all_tools

    started = time.perf_counter()
    specs = [ToolSpec(t.name, t.description, t.parameters) for t in all_tools()]
    typer.echo("preparing the embedded model's prompt prefixes (once per kept version)…", err=True)
    try:
        sources = LocalModel().warm(context.PERSONA, specs)
    except Exception as exc:  # a missing model file or llama.cpp: say so, as `kept chat` would
        fail(f"could not prepare the prefixes: {exc}")
    done = ", ".join(f"{s or 'skipped'}" for s in sources)
    typer.echo(f"{len(sources)} prompt prefixes ready ({done}) in {time.perf_counter() - started:.1f}s")


@app.command()
def info(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text.")) -> None:
    """Show which model file kept would load, where it is, and whether llama-cpp-python is installed."""
    import importlib.util

    from agent.models import model_file

    row: dict = {"model": model_file.MODEL_NAME, "expected_sha256": model_file.SHA256, "size": model_file.SIZE}
    try:
        found = model_file.locate()
    except model_file.ModelFileError as exc:
        found, row["error"] = None, str(exc)
    row.update(
        path=str(found.path) if found else None,
        installed=found is not None,
        verified=found.verified if found else None,
        source=found.source if found else None,
        would_install_to=str(model_file.target_path()),
        comes_from=[p.replace("_", "-") + "==0.9.0" for p in model_file.PART_PACKAGES],
        other_gguf=f"set {model_file.ENV_OVERRIDE}=/path/to/model.gguf (any GGUF; not hash-checked)",
        llama_cpp=importlib.util.find_spec("llama_cpp") is not None,
    )
    try:
        row["packages"] = bool(model_file.part_files())
    except model_file.ModelFileError:
        row["packages"] = False
    if as_json:
        typer.echo(json.dumps(row, indent=2))
        return
    typer.echo(f"model:      {row['model']}")
    if found:
        note = "sha256 verified" if found.verified else f"from {model_file.ENV_OVERRIDE}, not hash-checked"
        typer.echo(f"file:       {found.path} ({note})")
    else:
        typer.echo(f"file:       not installed yet (run `kept model install`; it goes to {row['would_install_to']})")
    typer.echo(f"packages:   {'installed' if row['packages'] else 'missing (pip install -e .[local])'}")
    typer.echo(
        f"comes from: {len(row['comes_from'])} PyPI packages whose names do not say what they hold "
        f"({row['comes_from'][0]} … {row['comes_from'][-1]}), joined in order, sha256 checked before loading"
    )
    typer.echo(f"sha256:     {row['expected_sha256']}")
    typer.echo(f"other GGUF: {row['other_gguf']}")
    typer.echo(f"llama.cpp:  {'installed' if row['llama_cpp'] else 'missing (pip install -e .[local])'}")
    if row.get("error"):
        typer.echo(f"error:      {row['error']}")


@app.command()
def serve(
    port: int = typer.Option(8080, "--port", "-p", help="TCP port to listen on."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind; keep 127.0.0.1 unless you mean to share it."
    ),
) -> None:
    """Serve the embedded model as an OpenAI-compatible API (tool calls included).

    Point kept (or any OpenAI client) at it with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1.
    """
    from agent.models.base import ModelError
    from agent.models.local_server import run

    try:
        run(host=host, port=port)
    except ModelError as exc:
        fail(str(exc))
