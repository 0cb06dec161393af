"""Recall for the prompt. (Issue 4 fills this in.)"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Recalled:
    text: str  # already dated: "2026-10-07: ..."
    fact_id: int | None
    status: str  # active, superseded, archived
    score: float


def recall_facts(db, query: str, k: int = 12) -> list[Recalled]:
    """Up to ``k`` stored facts that bear on ``query``; none when none apply."""
    return []
