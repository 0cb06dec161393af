"""The shape every write-pass stage has.

A stage (summary, facts, promises, series) is a module with:

- ``NAME``: how its counts are reported (``PassResult.extra[NAME]``);
- ``DOING``: the progress line shown while it plans;
- ``plan(db, batch, llm, today) -> plan``: model calls and reads, no writes;
- ``apply(conn, plan) -> counts``: writes, inside the pass's one transaction;
- ``for_turn(db, text, today) -> lines``: what it has that bears on a turn.

``memory.writer`` runs the declared list of stages in order; an earlier
stage may leave what it read for a later one in ``Batch.read`` (the facts
extraction of a hosted model also reads commitments, for promises).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol


@dataclass
class Batch:
    """One pass's messages, as every stage reads them."""

    messages: list  # memory.messages.StoredMessage, oldest first
    transcript: str = ""  # the messages numbered from 1, dated, redacted (memory.writer.transcript)
    cap: int = 0  # MEMORY's character cap
    max_active: int = 0  # the fact log's bound of active facts
    hosted: bool = False  # the memory model reads well enough to take more in one call
    read: dict[str, Any] = field(default_factory=dict)  # what an earlier stage read for a later one

    @property
    def said_dates(self) -> list[str]:
        return [m.at[:10] for m in self.messages]


def messages_of(batch: Batch | list) -> list:
    """A stage's messages, from a Batch or (in tests and tools) a plain list of messages."""
    return batch.messages if isinstance(batch, Batch) else list(batch)


def persons_own(message) -> bool:
    """Whether a stored message is the person's own words (not kept's, not another chat member's)."""
    return message.role == "user" and message.author in ("me", "")


class Stage(Protocol):
    NAME: str
    DOING: str

    def plan(self, db, batch: Batch, llm, today: date) -> Any: ...

    def apply(self, conn, plan: Any) -> dict[str, Any]: ...

    def for_turn(self, db, text: str, today: date | None = None) -> list[str]: ...


@dataclass(frozen=True)
class InCode:
    """A stage whose plan is read in code, for a memory model that reads badly (the embedded
    0.5B model): the same ledger and ``apply``, another ``plan``. Which stages a model gets is
    chosen in one place, memory.writer (``STAGES`` or ``IN_CODE_STAGES``)."""

    NAME: str
    DOING: str
    plan: Callable[..., Any]
    apply: Callable[..., dict[str, Any]]
    for_turn: Callable[..., list[str]]
