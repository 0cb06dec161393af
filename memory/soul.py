"""SOUL: how the person asked to be treated. (Issue 3 fills this in.)"""

from __future__ import annotations

MIGRATIONS: list = []


def render(db) -> str:
    """The SOUL note as it goes into the prompt; empty when nothing was asked."""
    return ""
