"""Work that runs after the reply is shown: the memory write pass."""

from __future__ import annotations


def after_turn(session) -> None:
    """Run a write pass if one is due. (Issue 3 wires the writer in.)"""
    return None
