"""MEMORY: the capped rolling summary. (Issue 3 fills this in.)"""

from __future__ import annotations


def current(db) -> str:
    """The latest MEMORY note; empty before the first write pass."""
    return ""
