"""Command groups, one module each, mounted on the `kept` app.

A module defines ``app`` (a typer.Typer) and ``NAME``; heavy imports stay
inside its commands.
"""

from __future__ import annotations

import importlib

GROUPS = ("calendar", "outbox", "tasks", "connect", "memory", "soul", "promises", "bench", "eval", "model")


def mount(root) -> None:
    for group in GROUPS:
        module = importlib.import_module(f"agent.commands.{group}")
        module.app.rich_markup_mode = root.rich_markup_mode  # one help style, and a fast one
        root.add_typer(module.app, name=group)
